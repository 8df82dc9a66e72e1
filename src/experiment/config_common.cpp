// The one config reader's shared parts: JSON text, the keys every family shares, and the
// dispatch of load_experiment() / parse_experiment() to the family a config names.
#include "experiment/config_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "experiment/registry_internal.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {

using nlohmann::json;
namespace fs = std::filesystem;

std::size_t validation_budget(const ExperimentSettings& s) {
  if (s.memory_budget_bytes != 0) return s.memory_budget_bytes;
  if (s.backend == Backend::Cpu) {
    return Context::automatic_memory_budget(Backend::Cpu, available_host_memory());
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return kCpuDefaultBudgetBytes;
  return std::max(kCpuDefaultBudgetBytes,
                  static_cast<std::size_t>(pages) * static_cast<std::size_t>(page));
}

json parse_json_text(const std::string& text, const std::string& source) {
  std::vector<std::set<std::string>> keys;
  const json::parser_callback_t cb = [&](int, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::object_start) keys.emplace_back();
    if (ev == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (ev == json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second) {
      throw InvalidArgument(source + ": duplicate key '" + parsed.get<std::string>() + "'");
    }
    return true;
  };
  try {
    return json::parse(text, cb, true, true);
  } catch (const json::parse_error& e) {
    const std::size_t byte = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < byte; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    const auto colpos = what.find("column ");
    const auto sep = what.find(": ", colpos == std::string::npos ? 0 : colpos);
    if (sep != std::string::npos) what = what.substr(sep + 2);
    throw InvalidArgument(source + ":" + std::to_string(line) + ":" + std::to_string(col) +
                          ": JSON syntax error: " + what);
  } catch (const json::out_of_range& e) {
    // A number literal outside the range of a double (e.g. 1e999); found by fuzzing.
    std::string what = e.what();
    const auto sep = what.find("] ");
    if (sep != std::string::npos) what = what.substr(sep + 2);
    throw InvalidArgument(source + ": JSON " + what + " (out of the range of a double)");
  }
}

namespace {

std::string default_name(const std::string& source) {
  const std::string stem = fs::path(source).stem().string();
  bool ok = !stem.empty() && stem != "." && stem != "..";
  for (char ch : stem)
    ok =
        ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-');
  return ok ? stem : "experiment";
}

bool valid_name(const std::string& name) {
  bool ok = !name.empty() && name != "." && name != "..";
  for (char ch : name) {
    ok =
        ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-');
  }
  return ok;
}

/// "seed": an integer in [0, 2^64 - 1].
std::uint64_t read_seed(const Checker& c, const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) c.fail("seed", "must be >= 0, got " + v.dump());
  c.fail("seed", "must be an integer in [0, 18446744073709551615], got " + describe_value(v));
}

}  // namespace

std::string family_of(const Checker& c, const json& root) {
  if (!root.contains("experiment")) return "finite";
  const json& e = root.at("experiment");
  const std::string v = e.is_string() ? e.get<std::string>() : "";
  if (v != "finite" && v != "pool" && v != "dp-gibo" && v != "fed-pne") {
    c.fail("experiment", "must be one of finite, pool, dp-gibo, fed-pne, got " +
                             (e.is_string() ? "'" + v + "'" : describe_value(e)));
  }
  return v;
}

ExperimentSettings read_settings(const Checker& c, const json& root, const std::string& family) {
  const RegistryEntry* top = find_registry_entry("experiment", family);
  c.check_keys(root, *top, "", false);
  ExperimentSettings s;
  s.family = family;
  s.source = c.source();
  s.config_json = root.dump();
  if (family == "dp-gibo") {
    s.runs = 3;
    s.backend = Backend::Cpu;
  }
  if (family == "fed-pne") s.backend = Backend::Cpu;
  if (family == "pool") s.runs = 5;
  if (root.contains("name")) {
    s.name = root["name"].get<std::string>();
    if (!valid_name(s.name)) c.fail("name", "must match [A-Za-z0-9._-]+, got '" + s.name + "'");
  } else {
    s.name = default_name(c.source());
  }
  if (root.contains("seed")) s.seed = read_seed(c, root["seed"]);
  if (root.contains("runs")) s.runs = static_cast<int>(c.integer(root, "runs", "runs", 1, 1 << 24));
  if (root.contains("lockstep"))
    s.lockstep = static_cast<int>(c.integer(root, "lockstep", "lockstep", 0, INT_MAX));
  if (root.contains("threads"))
    s.threads = static_cast<int>(c.integer(root, "threads", "threads", 0, 4096));
  if (root.contains("backend")) {
    const std::string b = root["backend"].get<std::string>();
    if (b != "auto" && b != "cpu" && b != "cuda") {
      c.fail("backend", "must be one of auto, cpu, cuda, got '" + b + "'");
    }
    s.backend = parse_backend(b);
  }
  if (root.contains("precision")) {
    // A string by the key's registered type (checked before); only its value is checked here.
    const std::string v = root["precision"].get<std::string>();
    if (v != "double" && v != "mixed") {
      c.fail("precision", "must be double or mixed, got " + root["precision"].dump());
    }
    s.precision = v == "mixed" ? Precision::Mixed : Precision::Double;
  }
  if (root.contains("memory_budget_mb")) {
    const double mb = c.positive(root, "memory_budget_mb", "memory_budget_mb");
    if (mb > 1e12) c.fail("memory_budget_mb", "too large, got " + root["memory_budget_mb"].dump());
    s.memory_budget_bytes =
        std::max<std::size_t>(1, static_cast<std::size_t>(mb * 1024.0 * 1024.0));
  }
  if (root.contains("privacy_noise")) {
    const std::string t = root["privacy_noise"].get<std::string>();
    if (t != "secure" && t != "seeded") {
      c.fail("privacy_noise", "must be secure or seeded, got '" + t + "'");
    }
    s.privacy_seeded = t == "seeded";
  }
  return s;
}

}  // namespace gpb::detail

namespace gpb {

using nlohmann::json;
namespace fs = std::filesystem;

Experiment::Experiment(std::shared_ptr<const detail::Family> family) : family_(std::move(family)) {
  if (!family_) throw InvalidArgument("Experiment: no family");
}

Experiment::Experiment(ExperimentConfig config)
    : family_(detail::make_finite_family(std::move(config))) {}

const ExperimentSettings& Experiment::settings() const {
  return family_->settings();
}

void Experiment::check_ranks(int ranks) const {
  family_->check_ranks(ranks);
}

std::string Experiment::whole_domain(int ranks) const {
  return family_->whole_domain(ranks);
}

Experiment parse_experiment(const std::string& json_text, const std::string& source,
                            const std::string& base_dir, DomainShard shard) {
  const std::string base = base_dir.empty() ? "." : base_dir;
  const detail::Checker c(source, base);
  const json root = detail::parse_json_text(json_text, source);
  if (!root.is_object()) {
    c.fail_plain("expected a JSON object at top level, got " + detail::describe_value(root));
  }
  const std::string family = detail::family_of(c, root);
  if (family == "finite")
    return Experiment(parse_experiment_config(json_text, source, base, shard));
  ExperimentSettings s = detail::read_settings(c, root, family);
  if (family == "dp-gibo") return Experiment(detail::make_dpgibo_family(c, root, std::move(s)));
  if (family == "pool") return Experiment(detail::make_pool_family(c, root, std::move(s)));
  return Experiment(detail::make_xarmed_family(c, root, std::move(s)));
}

Experiment load_experiment(const std::string& path, DomainShard shard) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || fs::is_directory(path, ec)) throw IoError("cannot read config file '" + path + "'");
  std::ostringstream os;
  os << in.rdbuf();
  const std::string base = fs::path(path).parent_path().string();
  return parse_experiment(os.str(), path, base.empty() ? "." : base, shard);
}

}  // namespace gpb
