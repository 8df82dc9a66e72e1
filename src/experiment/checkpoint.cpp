// The checkpoint of an unfinished run: unit files and state.json, checked on --resume.
#include "experiment/checkpoint.hpp"

#include "experiment/config_identity.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"
#include "io/atomic_file.hpp"

namespace gpb::detail {
namespace fs = std::filesystem;
using nlohmann::json;

std::string fnv1a_hex(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Checkpoint::Checkpoint(std::string out_dir, std::string config_hash, int streams,
                       nlohmann::json identity, std::string legacy_hash,
                       std::vector<std::string> stream_names)
    : dir_((fs::path(out_dir) / ".checkpoint").string()),
      hash_(std::move(config_hash)),
      legacy_hash_(std::move(legacy_hash)),
      identity_(std::move(identity)),
      streams_(streams),
      stream_names_(std::move(stream_names)) {}

namespace {

/// The phrase naming what differs between the checkpoint's identity and this run's.
std::string identity_mismatch(const json& saved, const json& now) {
  const auto d = first_difference(saved, now);
  if (!d) return "";
  IdentityDifference shown = *d;
  if (shown.key.rfind("config.", 0) == 0) shown.key = shown.key.substr(7);
  if (shown.key == "runs") shown.key = "runs (the config's runs or --runs)";
  if (shown.key == "seed") shown.key = "seed (the config's seed or --seed)";
  if (shown.key == "backend_flag") shown.key = "--backend";
  std::string text = describe_difference(shown, "the checkpoint");
  if (shown.key == "T") text += " (finished runs cannot be extended to another T)";
  return text;
}

/// "n (a, b)": a count of streams with their file names when known.
std::string count_and_names(std::size_t n, const std::vector<std::string>& names) {
  std::string text = std::to_string(n);
  if (names.size() < n || n == 0) return text;
  text += " (";
  for (std::size_t i = 0; i < n; ++i) text += (i > 0 ? ", " : "") + names[i];
  return text + ")";
}

}  // namespace

std::string Checkpoint::file(int stream, int policy, std::uint32_t first_run) const {
  const std::string base = stream == 0 ? "rows" : "extra" + std::to_string(stream);
  return (fs::path(dir_) /
          (base + "-p" + std::to_string(policy) + "-r" + std::to_string(first_run) + ".csv"))
      .string();
}

bool Checkpoint::exists() const {
  std::error_code ec;
  return fs::exists(fs::path(dir_) / "state.json", ec);
}

int Checkpoint::peek_units() const {
  try {
    const json j = json::parse(read_whole_file((fs::path(dir_) / "state.json").string()));
    return static_cast<int>(j.at("units").size());
  } catch (const std::exception&) {
    return -1;
  }
}

void Checkpoint::load() {
  const std::string state = (fs::path(dir_) / "state.json").string();
  const std::string fix = "; remove it or start over with --force";
  json j;
  try {
    j = json::parse(read_whole_file(state));
    const std::string saved = j.at("config_hash").get<std::string>();
    const bool legacy = !j.contains("identity") && !legacy_hash_.empty() && saved == legacy_hash_;
    if (saved != hash_ && !legacy) {
      const std::string what =
          j.contains("identity") ? identity_mismatch(j["identity"], identity_) : "";
      throw InvalidArgument(
          "--resume: the checkpoint in " + dir_ + " belongs to a different experiment" +
          (what.empty() ? std::string(" (config, --runs, --seed or --backend)") : ": " + what) +
          "; resume with the same settings, or start over with --force (name, description, "
          "threads, lockstep, memory_budget_mb, comments and whitespace may change)");
    }
    units_.clear();
    sums_.clear();
    for (const json& u : j.at("units")) {
      UnitRecord r;
      r.policy = u.at("policy").get<int>();
      r.first_run = u.at("first_run").get<std::uint32_t>();
      r.count = u.at("count").get<int>();
      r.seconds = u.at("seconds").get<double>();
      r.record = u.at("record");
      std::vector<std::pair<std::size_t, std::string>> sums;
      for (const json& f : u.at("files")) {
        sums.emplace_back(f.at("bytes").get<std::size_t>(), f.at("fnv").get<std::string>());
      }
      if (static_cast<int>(sums.size()) != streams_) {
        throw InvalidArgument(
            "--resume: the checkpoint in " + dir_ + " holds " +
            count_and_names(sums.size(), stream_names_) +
            " file(s) per finished unit where this "
            "gpbandit writes " +
            count_and_names(static_cast<std::size_t>(streams_), stream_names_) +
            ": it comes from another gpbandit version (an older one, before acquired.csv?) and the "
            "missing files of its finished runs cannot be rebuilt; start over with --force");
      }
      units_.push_back(std::move(r));
      sums_.push_back(std::move(sums));
    }
    elapsed_ = j.at("elapsed_seconds").get<double>();
  } catch (const json::exception& e) {
    throw IoError("the checkpoint in " + dir_ + " is unreadable (" + e.what() + ")" + fix);
  }
  for (std::size_t i = 0; i < units_.size(); ++i) {
    for (int s = 0; s < streams_; ++s) {
      const std::string path = file(s, units_[i].policy, units_[i].first_run);
      std::error_code ec;
      if (!fs::exists(path, ec)) {
        throw IoError("the checkpoint in " + dir_ + " is incomplete (missing " + path + ")" + fix);
      }
      const std::string content = read_whole_file(path);
      const auto& want = sums_[i][static_cast<std::size_t>(s)];
      if (content.size() != want.first || fnv1a_hex(content) != want.second) {
        throw IoError("the checkpoint in " + dir_ + " does not match its state.json (" + path +
                      " was changed or written by another run)" + fix);
      }
    }
  }
}

void Checkpoint::clear() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
  if (ec) throw IoError("cannot remove the old checkpoint " + dir_ + ": " + ec.message());
  units_.clear();
  sums_.clear();
  elapsed_ = 0;
}

void Checkpoint::save(const UnitRecord& unit, const std::vector<std::string>& contents,
                      double elapsed_seconds) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw IoError("cannot create the checkpoint folder " + dir_ + ": " + ec.message());
  std::vector<std::pair<std::size_t, std::string>> sums;
  for (int s = 0; s < streams_; ++s) {
    const std::string& c = contents.at(static_cast<std::size_t>(s));
    write_file_atomic(file(s, unit.policy, unit.first_run), c);
    sums.emplace_back(c.size(), fnv1a_hex(c));
  }
  units_.push_back(unit);
  sums_.push_back(std::move(sums));
  elapsed_ = elapsed_seconds;
  write_state();
}

bool Checkpoint::done(int policy, std::uint32_t first_run) const {
  return std::any_of(units_.begin(), units_.end(), [&](const UnitRecord& u) {
    return u.policy == policy && u.first_run == first_run;
  });
}

int Checkpoint::group_size(std::uint32_t first_run) const {
  for (const UnitRecord& u : units_) {
    if (u.first_run == first_run) return u.count;
  }
  return 0;
}

void Checkpoint::write_state() const {
  json units = json::array();
  for (std::size_t i = 0; i < units_.size(); ++i) {
    const UnitRecord& u = units_[i];
    json files = json::array();
    for (const auto& [bytes, fnv] : sums_[i]) files.push_back({{"bytes", bytes}, {"fnv", fnv}});
    units.push_back({{"policy", u.policy},
                     {"first_run", u.first_run},
                     {"count", u.count},
                     {"seconds", u.seconds},
                     {"record", u.record},
                     {"files", files}});
  }
  const json j = {{"config_hash", hash_},
                  {"identity", identity_},
                  {"version", GPB_VERSION},
                  {"elapsed_seconds", elapsed_},
                  {"units", units}};
  write_file_atomic((fs::path(dir_) / "state.json").string(), j.dump() + "\n");
}

}  // namespace gpb::detail
