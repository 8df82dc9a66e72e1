// The Optimizer's whole state as JSON text or an .npz archive, and back (see Optimizer::dumps and
// src/optimizer/state.hpp: loading replays the posterior's operation log in order).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

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

json rows_json(const std::vector<double>& flat, int d) {
  json out = json::array();
  for (std::size_t i = 0; i + static_cast<std::size_t>(d) <= flat.size(); i += d) {
    out.push_back(std::vector<double>(flat.begin() + static_cast<long>(i),
                                      flat.begin() + static_cast<long>(i) + d));
  }
  return out;
}

std::vector<double> flat_rows(const json& rows, int d, const char* field) {
  std::vector<double> out;
  for (const json& r : rows) {
    const auto v = r.get<std::vector<double>>();
    GPB_EXPECTS(static_cast<int>(v.size()) == d, "state: " << field << ": a point has " << v.size()
                                                           << " coordinates, expected " << d);
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
  GPB_EXPECTS(j.is_array() && j.size() == 2 && j[0].is_string(),
              "state: posterior.log: bad entry " << j.dump());
  const std::string k = j[0].get<std::string>();
  PosteriorOp op;
  if (k == "o" || k == "p") {
    op.kind = k == "o" ? PosteriorOp::Kind::Observe : PosteriorOp::Kind::Pending;
    op.value = j[1].get<int>();
  } else {
    GPB_EXPECTS(k == "r", "state: posterior.log: unknown operation '" << k << "'");
    op.kind = PosteriorOp::Kind::Resolve;
    op.ids = j[1].get<std::vector<int>>();
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
  return {
      {"format", kFormat},
      {"version", kVersion},
      {"config", detail::options_to_json(s.opt)},
      {"model", {{"y_offset", s.y_offset}, {"y_scale", s.y_scale}}},
      {"observations", {{"x", rows_json(s.obs_x, s.d)}, {"y", s.obs_y}, {"point", s.obs_point}}},
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
  const json& m = j.at("model");
  s.y_offset = m.at("y_offset").get<double>();
  s.y_scale = m.at("y_scale").get<double>();
  GPB_EXPECTS(s.y_scale > 0, "state: model.y_scale must be > 0");
  const json& o = j.at("observations");
  s.obs_x = flat_rows(o.at("x"), s.d, "observations.x");
  s.obs_y = o.at("y").get<std::vector<double>>();
  s.obs_point = o.at("point").get<std::vector<int>>();
  s.extras = flat_rows(j.at("extras"), s.d, "extras");
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
    s.tr_length = tr.at("length").get<double>();
    s.tr_success = tr.at("success").get<int>();
    s.tr_failure = tr.at("failure").get<int>();
    s.tr_best = tr.at("best").get<double>();
    GPB_EXPECTS(s.tr_length > 0 && std::isfinite(s.tr_length),
                "state: trust_region.length must be > 0");
  }
  const json& c = j.at("counters");
  s.asks_served = c.at("asks_served").get<int>();
  s.fits = c.at("fits").get<int>();
  s.obs_at_last_fit = c.at("obs_at_last_fit").get<int>();
  s.last_fit_error = c.at("last_fit_error").get<std::string>();
  const json& r = j.at("rng");
  s.tiebreak.front() =
      Rng(s.opt.seed, 0, stream_of(StreamId::TieBreak, 0), r.at("tiebreak").get<std::uint64_t>());
  s.policy = Rng(s.opt.seed, 0, static_cast<std::uint32_t>(StreamId::Policy),
                 r.at("policy").get<std::uint64_t>());
}

/// Rebuilds the posterior by replaying the log, then the pending bookkeeping.
void replay_posterior(Optimizer::State& s, const json& j) {
  const json& p = j.at("posterior");
  const int extras = p.at("extras").get<int>();
  GPB_EXPECTS(extras >= 0 && extras <= s.num_extras(), "state: posterior.extras out of range");
  s.reset_posterior(extras);
  const int count = s.num_obs();
  for (const json& e : p.at("log")) {
    const PosteriorOp op = op_from(e);
    if (op.kind == PosteriorOp::Kind::Observe) check_id(op.value, count, "posterior.log");
    for (int id : op.ids) check_id(id, count, "posterior.log");
    s.apply(op);
  }
  s.slot_answer = p.at("slot_answer").get<std::vector<int>>();
  s.unposted = p.at("unposted").get<std::vector<int>>();
  s.dirty = p.at("dirty").get<bool>();
  GPB_EXPECTS(static_cast<int>(s.slot_answer.size()) == s.post->pending(),
              "state: posterior.slot_answer has " << s.slot_answer.size() << " entries but the log "
                                                  << "leaves " << s.post->pending()
                                                  << " pending rows");
  for (int id : s.slot_answer) {
    if (id >= 0) check_id(id, count, "posterior.slot_answer");
  }
  for (int id : s.unposted) check_id(id, count, "posterior.unposted");
  for (const json& a : j.at("outstanding")) {
    const OutstandingAsk ask{a.at(0).get<int>(), a.at(1).get<int>()};
    GPB_EXPECTS(ask.candidate >= 0 && ask.candidate < s.n + s.num_extras() && ask.slot >= -1 &&
                    ask.slot < static_cast<int>(s.slot_answer.size()),
                "state: outstanding: bad ask " << a.dump());
    s.outstanding.push_back(ask);
  }
}

}  // namespace

std::string Optimizer::dumps() const {
  if (s_->dirty) s_->rebuild();  // new hyperparameters: save the posterior they give
  return state_json(*s_).dump();
}

Optimizer Optimizer::loads(const std::string& state_json_text,
                           const std::optional<ContextOptions>& context) {
  const json j = detail::parse_json_text(state_json_text, "state");
  try {
    GPB_EXPECTS(j.is_object() && j.value("format", std::string()) == kFormat,
                "state: not a gpbandit optimizer state (format '" << kFormat << "' expected)");
    const int version = j.value("version", 0);
    GPB_EXPECTS(version == 1 || version == kVersion, "state: unsupported version "
                                                         << version << " (expected 1 or "
                                                         << kVersion << ")");
    json config = j.at("config");
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
    OptimizerOptions opt = detail::parse_optimizer_json(config, "state: config", ".", {});
    if (context) opt.context = *context;
    auto s = std::make_unique<State>(std::move(opt));
    restore_records(*s, j);
    replay_posterior(*s, j);
    return Optimizer(std::move(s));
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(std::string("state: malformed: ") + e.what());
  }
}

void Optimizer::save(const std::string& path) const {
  const State& s = *s_;
  const std::string text = dumps();
  const bool npz = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npz") == 0;
  if (!npz) {
    detail::write_file_atomic(path, text);
    return;
  }
  std::vector<std::int64_t> index;
  for (int p : s.obs_point) index.push_back(p < s.n ? p : -1);
  const Eigen::MatrixXd x = Eigen::Map<const Eigen::MatrixXd>(s.obs_x.data(), s.d, s.num_obs());
  detail::write_file_atomic(
      path,
      detail::zip_stored({{kStateMember, detail::npy_bytes_u8(text)},
                          {"observed_x.npy", detail::npy_bytes(x.transpose())},
                          {"observed_y.npy", detail::npy_bytes(s.obs_y)},
                          {"observed_index.npy", detail::npy_bytes_i64(index)},
                          {"candidates.npy", detail::npy_bytes(s.domain.points().transpose())}}));
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
