// The Optimizer's whole state as JSON text or an .npz archive, and back (see Optimizer::dumps and
// src/optimizer/state.hpp: loading replays the posterior's operation log in order).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "experiment/config_checker.hpp"
#include "experiment/config_common.hpp"
#include "gpbandit/error.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "optimizer/config.hpp"
#include "optimizer/state.hpp"

namespace gpb {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "gpbandit-optimizer-state";
/// 2: box domains, MAP fits in unit coordinates, the trust region; version 1 states load with the
/// fit settings of version 1 (maximum likelihood on standardised inputs, random initial design).
constexpr int kVersion = 2;
constexpr const char* kStateMember = "state.npy";

// Reading a state: every field by its path, so that a corrupt file names what is wrong with it.

/// "a number", "an integer", ... for messages.
template <typename T>
const char* type_word() {
  if constexpr (std::is_same_v<T, bool>) return "a boolean";
  if constexpr (std::is_integral_v<T>) return "an integer";
  if constexpr (std::is_floating_point_v<T>) return "a number";
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  if constexpr (std::is_same_v<T, std::vector<int>>) return "an array of integers";
  if constexpr (std::is_same_v<T, std::vector<double>>) return "an array of numbers";
  return "a value of another type";
}

std::string shortened(const json& v) {
  std::string t = v.dump();
  return t.size() > 60 ? t.substr(0, 57) + "..." : t;
}

/// parent[key] as an object or array (`what`), or InvalidArgument naming path.key.
const json& member(const json& parent, const std::string& path, const char* key) {
  const std::string name = path.empty() ? key : path + "." + key;
  GPB_EXPECTS(parent.is_object(), "state: " << (path.empty() ? "top level" : path)
                                            << ": expected an object, got " << shortened(parent));
  GPB_EXPECTS(parent.contains(key), "state: " << name << ": missing");
  return parent[key];
}

/// parent[key] as T, or InvalidArgument naming path.key, what was expected and what is there.
template <typename T>
T field(const json& parent, const std::string& path, const char* key) {
  const json& v = member(parent, path, key);
  const std::string name = path.empty() ? key : path + "." + key;
  try {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      GPB_EXPECTS(v.is_number_integer(), "");
    }
    return v.get<T>();
  } catch (const std::exception&) {
    throw InvalidArgument("state: " + name + ": expected " + type_word<T>() + ", got " +
                          shortened(v));
  }
}

json rows_json(const std::vector<double>& flat, int d) {
  json out = json::array();
  for (std::size_t i = 0; i + static_cast<std::size_t>(d) <= flat.size(); i += d) {
    out.push_back(std::vector<double>(flat.begin() + static_cast<long>(i),
                                      flat.begin() + static_cast<long>(i) + d));
  }
  return out;
}

/// The observations: x, y, point and, when any was told, the known noise variances (null where
/// not known: JSON has no NaN).
json observations_json(const Optimizer::State& s) {
  // Fingerprints: x is the candidates' packed words (no JSON numbers), found again by point.
  json o = {{"x", s.domain.is_fingerprint() ? json(nullptr) : rows_json(s.obs_x, s.d)},
            {"y", s.obs_y},
            {"point", s.obs_point}};
  if (s.obs_noise.empty()) return o;
  json nz = json::array();
  for (const double v : s.obs_noise) nz.push_back(std::isnan(v) ? json(nullptr) : json(v));
  o["noise"] = std::move(nz);
  return o;
}

std::vector<double> flat_rows(const json& rows, int d, const char* name) {
  GPB_EXPECTS(rows.is_array(),
              "state: " << name << ": expected an array of points, got " << shortened(rows));
  std::vector<double> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<double> v;
    try {
      v = rows[i].get<std::vector<double>>();
    } catch (const std::exception&) {
      throw InvalidArgument("state: " + std::string(name) + "[" + std::to_string(i) +
                            "]: expected an array of numbers, got " + shortened(rows[i]));
    }
    GPB_EXPECTS(static_cast<int>(v.size()) == d, "state: " << name << "[" << i << "]: has "
                                                           << v.size() << " coordinates, expected "
                                                           << d);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

json op_json(const PosteriorOp& op) {
  switch (op.kind) {
    case PosteriorOp::Kind::Observe:
      return json::array({"o", op.value});
    case PosteriorOp::Kind::Pending:
      return json::array({"p", op.value});
    default:
      return json::array({"r", op.ids});
  }
}

PosteriorOp op_from(const json& j) {
  const auto bad = [&] {
    return InvalidArgument("state: posterior.log: bad entry " + shortened(j) +
                           " (expected [\"o\" | \"p\", integer] or [\"r\", [integers]])");
  };
  if (!j.is_array() || j.size() != 2 || !j[0].is_string()) throw bad();
  const std::string k = j[0].get<std::string>();
  PosteriorOp op;
  if ((k == "o" || k == "p") && j[1].is_number_integer()) {
    op.kind = k == "o" ? PosteriorOp::Kind::Observe : PosteriorOp::Kind::Pending;
    op.value = j[1].get<int>();
  } else if (k == "r" && j[1].is_array()) {
    op.kind = PosteriorOp::Kind::Resolve;
    for (const json& id : j[1]) {
      if (!id.is_number_integer()) throw bad();
      op.ids.push_back(id.get<int>());
    }
  } else {
    throw bad();
  }
  return op;
}

/// Checks that an observation id read from a state is in range.
void check_id(int id, int count, const char* field) {
  GPB_EXPECTS(id >= 0 && id < count,
              "state: " << field << ": observation " << id << " out of range [0, " << count << ")");
}

json state_json(const Optimizer::State& s) {
  json log = json::array();
  for (const PosteriorOp& op : s.log) log.push_back(op_json(op));
  json asks = json::array();
  for (const OutstandingAsk& a : s.outstanding) asks.push_back(json::array({a.candidate, a.slot}));
  return {{"format", kFormat},
          {"version", kVersion},
          {"config", detail::options_to_json(s.opt)},
          {"model",
           {{"y_offset", s.y_offset},
            {"y_scale", s.y_scale},
            {"warp", {{"lambda", s.warp.lambda}, {"top", s.warp.top}, {"knee", s.warp.knee}}}}},
          {"observations", observations_json(s)},
          {"extras", rows_json(s.extras, s.d)},
          {"failed", s.failed},
          {"outstanding", asks},
          {"posterior",
           {{"extras", s.post_extras},
            {"log", log},
            {"slot_answer", s.slot_answer},
            {"unposted", s.unposted},
            {"dirty", s.dirty}}},
          {"trust_region",
           {{"length", s.tr_length},
            {"success", s.tr_success},
            {"failure", s.tr_failure},
            {"best", s.tr_best}}},
          {"counters",
           {{"asks_served", s.asks_served},
            {"fits", s.fits},
            {"obs_at_last_fit", s.obs_at_last_fit},
            {"last_fit_error", s.last_fit_error}}},
          {"rng", {{"tiebreak", s.tiebreak.front().position()}, {"policy", s.policy.position()}}}};
}

/// Restores everything but the posterior from `j` into `s` (built from j's config).
void restore_records(Optimizer::State& s, const json& j) {
  const json& m = member(j, "", "model");
  s.y_offset = field<double>(m, "model", "y_offset");
  s.y_scale = field<double>(m, "model", "y_scale");
  GPB_EXPECTS(s.y_scale > 0, "state: model.y_scale must be > 0");
  if (m.contains("warp")) {  // states written before the output warp have none
    const json& w = member(m, "model", "warp");
    s.warp.lambda = field<double>(w, "model.warp", "lambda");
    s.warp.top = field<double>(w, "model.warp", "top");
    s.warp.knee = field<double>(w, "model.warp", "knee");
    GPB_EXPECTS(
        s.warp.lambda >= 0 && s.warp.lambda <= 1 && s.warp.knee > 0 && std::isfinite(s.warp.top),
        "state: model.warp: lambda must be in [0, 1], knee > 0, top finite");
  }
  const json& o = member(j, "", "observations");
  s.obs_y = field<std::vector<double>>(o, "observations", "y");
  s.obs_point = field<std::vector<int>>(o, "observations", "point");
  if (s.domain.is_fingerprint()) {  // every observation is a candidate: x from its point
    for (const int p : s.obs_point) {
      GPB_EXPECTS(p >= 0 && p < s.n, "state: observations.point: " << p << " is not a candidate");
      s.obs_x.insert(s.obs_x.end(), s.point(p), s.point(p) + s.d);
    }
  } else {
    s.obs_x = flat_rows(member(o, "observations", "x"), s.d, "observations.x");
  }
  if (o.contains("noise")) {  // known noise variances (null: not known); older states have none
    const json& nz = o.at("noise");
    GPB_EXPECTS(nz.is_array() && nz.size() == s.obs_y.size(),
                "state: observations.noise must be an array with one entry per observation");
    for (const json& v : nz) {
      GPB_EXPECTS(
          v.is_null() || (v.is_number() && v.get<double>() >= 0 && std::isfinite(v.get<double>())),
          "state: observations.noise: each entry must be null or a number >= 0");
      s.obs_noise.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN()
                                        : v.get<double>());
    }
  }
  s.extras = flat_rows(member(j, "", "extras"), s.d, "extras");
  GPB_EXPECTS(s.obs_x.size() == s.obs_y.size() * static_cast<std::size_t>(s.d) &&
                  s.obs_point.size() == s.obs_y.size(),
              "state: observations: x, y and point differ in length");
  if (j.contains("failed")) s.failed = j.at("failed").get<std::vector<int>>();
  for (int p : s.failed) {
    GPB_EXPECTS(p >= 0 && p < s.n + s.num_extras(),
                "state: failed: " << p << " is neither a candidate nor an extra");
  }
  for (int p : s.obs_point) {
    GPB_EXPECTS(p >= 0 && p < s.n + s.num_extras(),
                "state: observations.point: " << p << " is neither a candidate nor an extra");
  }
  if (j.contains("trust_region")) {
    const json& tr = j.at("trust_region");
    s.tr_length = field<double>(tr, "trust_region", "length");
    s.tr_success = field<int>(tr, "trust_region", "success");
    s.tr_failure = field<int>(tr, "trust_region", "failure");
    s.tr_best = field<double>(tr, "trust_region", "best");
    GPB_EXPECTS(s.tr_length > 0 && std::isfinite(s.tr_length),
                "state: trust_region.length must be > 0");
  }
  const json& c = member(j, "", "counters");
  s.asks_served = field<int>(c, "counters", "asks_served");
  s.fits = field<int>(c, "counters", "fits");
  s.obs_at_last_fit = field<int>(c, "counters", "obs_at_last_fit");
  s.last_fit_error = field<std::string>(c, "counters", "last_fit_error");
  const json& r = member(j, "", "rng");
  s.tiebreak.front() = Rng(s.opt.seed, 0, stream_of(StreamId::TieBreak, 0),
                           field<std::uint64_t>(r, "rng", "tiebreak"));
  s.policy = Rng(s.opt.seed, 0, static_cast<std::uint32_t>(StreamId::Policy),
                 field<std::uint64_t>(r, "rng", "policy"));
}

/// Rebuilds the posterior by replaying the log, then the pending bookkeeping.
void replay_posterior(Optimizer::State& s, const json& j) {
  const json& p = member(j, "", "posterior");
  const int extras = field<int>(p, "posterior", "extras");
  GPB_EXPECTS(extras >= 0 && extras <= s.num_extras(), "state: posterior.extras out of range");
  s.reset_posterior(extras);
  const int count = s.num_obs();
  const json& log = member(p, "posterior", "log");
  GPB_EXPECTS(log.is_array(), "state: posterior.log: expected an array, got " << shortened(log));
  for (const json& e : log) {
    const PosteriorOp op = op_from(e);
    if (op.kind == PosteriorOp::Kind::Observe) check_id(op.value, count, "posterior.log");
    for (int id : op.ids) check_id(id, count, "posterior.log");
    s.apply(op);
  }
  s.slot_answer = field<std::vector<int>>(p, "posterior", "slot_answer");
  s.unposted = field<std::vector<int>>(p, "posterior", "unposted");
  s.dirty = field<bool>(p, "posterior", "dirty");
  GPB_EXPECTS(static_cast<int>(s.slot_answer.size()) == s.post->pending(),
              "state: posterior.slot_answer has " << s.slot_answer.size() << " entries but the log "
                                                  << "leaves " << s.post->pending()
                                                  << " pending rows");
  for (int id : s.slot_answer) {
    if (id >= 0) check_id(id, count, "posterior.slot_answer");
  }
  for (int id : s.unposted) check_id(id, count, "posterior.unposted");
  const json& outstanding = member(j, "", "outstanding");
  GPB_EXPECTS(outstanding.is_array(),
              "state: outstanding: expected an array, got " << shortened(outstanding));
  for (const json& a : outstanding) {
    GPB_EXPECTS(
        a.is_array() && a.size() == 2 && a[0].is_number_integer() && a[1].is_number_integer(),
        "state: outstanding: bad ask " << shortened(a) << " (expected [candidate, slot])");
    const OutstandingAsk ask{a[0].get<int>(), a[1].get<int>()};
    GPB_EXPECTS(ask.candidate >= 0 && ask.candidate < s.n + s.num_extras() && ask.slot >= -1 &&
                    ask.slot < static_cast<int>(s.slot_answer.size()),
                "state: outstanding: bad ask " << a.dump());
    s.outstanding.push_back(ask);
  }
}

}  // namespace

std::string Optimizer::dumps() const {
  std::string text;
  {
    const std::lock_guard<std::mutex> lock(s_->mu);
    if (s_->dirty) s_->rebuild();  // new hyperparameters: save the posterior they give
    text = state_json(*s_).dump();
  }
  s_->flush_warnings();
  return text;
}

Optimizer Optimizer::loads(const std::string& state_json_text,
                           const std::optional<ContextOptions>& context) {
  const json j = detail::parse_json_text(state_json_text, "state");
  try {
    GPB_EXPECTS(j.is_object() && j.value("format", std::string()) == kFormat,
                "state: not a gpbandit optimizer state (format '" << kFormat << "' expected)");
    const int version = j.value("version", 0);
    GPB_EXPECTS(version == 1 || version == kVersion,
                "state: unsupported version " << version << " (expected 1 or " << kVersion << ")");
    json config = member(j, "", "config");
    if (version == 1 && config.is_object()) {  // the settings version 1 had and did not save
      json& f = config["fit"];
      if (f.is_object()) {
        f.emplace("unit_inputs", false);
        f.emplace("prior", false);
        f.emplace("noise_floor", 1e-8);
        f.emplace("warm_start", false);
        f.emplace("restarts_every", 1);
      }
      config.emplace("initial_design", "random");
    }
    if (config.is_object() && config.contains("fit") && config["fit"].is_object()) {
      // States written before the lengthscale prior was configurable keep the prior they used:
      // Hvarfner et al.'s √2 + ln(d)/2, scale √3.
      json& f = config["fit"];
      f.emplace("lengthscale_prior_loc", 1.4142135623730951);
      f.emplace("lengthscale_prior_log_d", 0.5);
      f.emplace("lengthscale_prior_scale", 1.7320508075688772);
      // ... and those written before the warp's knee was configurable, the median.
      f.emplace("warp_knee", 0.5);
    }
    OptimizerOptions opt = detail::parse_optimizer_json(config, "state: config", ".", {});
    if (context) opt.context = *context;
    auto s = std::make_unique<State>(std::move(opt));
    restore_records(*s, j);
    replay_posterior(*s, j);
    Optimizer out(std::move(s));
    out.s_->flush_warnings();
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(std::string("state: malformed: ") + e.what());
  }
}

void Optimizer::save(const std::string& path) const {
  State& s = *s_;
  const bool npz = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npz") == 0;
  std::string bytes;
  {
    const std::lock_guard<std::mutex> lock(s.mu);
    if (s.dirty) s.rebuild();
    const std::string text = state_json(s).dump();
    if (!npz) {
      bytes = text;
    } else {
      std::vector<std::int64_t> index;
      for (int p : s.obs_point) index.push_back(p < s.n ? p : -1);
      const Eigen::MatrixXd x = Eigen::Map<const Eigen::MatrixXd>(s.obs_x.data(), s.d, s.num_obs());
      std::vector<std::pair<std::string, std::string>> members{
          {kStateMember, detail::npy_bytes_u8(text)},
          {"observed_x.npy", detail::npy_bytes(x.transpose())},
          {"observed_y.npy", detail::npy_bytes(s.obs_y)},
          {"observed_index.npy", detail::npy_bytes_i64(index)}};
      if (!s.domain.streams_points()) {  // a streamed space's encodings are never held
        members.emplace_back("candidates.npy", detail::npy_bytes(s.domain.points().transpose()));
      }
      bytes = detail::zip_stored(members);
    }
  }
  s.flush_warnings();
  detail::write_file_atomic(path, bytes);
}

Optimizer Optimizer::load(const std::string& path, const std::optional<ContextOptions>& context) {
  const std::string bytes = detail::read_whole_file(path);
  std::string text = bytes;
  if (bytes.rfind("PK\x03\x04", 0) == 0) {
    const auto members = detail::unzip_stored(bytes, path);
    const auto it = std::find_if(members.begin(), members.end(),
                                 [](const auto& m) { return m.first == kStateMember; });
    GPB_EXPECTS(it != members.end(), path << ": no " << kStateMember << " in the archive");
    const detail::NpyArray a = detail::parse_npy(it->second, path + ": " + kStateMember);
    text.assign(a.values.size(), '\0');
    for (std::size_t i = 0; i < a.values.size(); ++i) text[i] = static_cast<char>(a.values[i]);
  }
  try {
    return loads(text, context);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(path + ": " + e.what());
  }
}

}  // namespace gpb
