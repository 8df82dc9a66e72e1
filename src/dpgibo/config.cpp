// DP-GIBO experiment configs (specs/dp-gibo.md §8): the family's keys, checked against the
// registry (`gpbandit list config`, `gpbandit list dp-gibo`) after the keys every family shares
// (experiment/config_common.cpp). A whole config:
//
// {
//   "experiment": "dp-gibo",           required: selects this family
//   "name": "dpgibo-demo",             output folder results/<name> (default: the file's stem)
//   "seed": 1, "runs": 3,              runs differ in θ⁽⁰⁾ (when "uniform") and random streams;
//                                      task data are drawn once from the seed
//   "backend": "cpu"|"cuda"|"auto",    engine ops backend (default cpu); "threads": 0;
//   "lockstep": 0                      runs per checkpointed group (0: ~2 minutes of work)
//   "privacy_noise": "secure"|"seeded" secure by default; seeded = reproducible simulation, NOT
//                                      private (summary.json says so)
//   "privacy_budget_mu": 1.0,          optional: a private method asking for mu above it refuses
//                                      to start (exit 2)
//   "report_eps": [1, 2],              ledger: δ(ε) of the μ-GDP release for these ε
//   "report_delta": [0.001],           ledger: ε(δ) for these δ (default [1/n])
//   "eval_noise_sd": 0.05,             σ: N(0, σ²) added to every (point, user) loss
//   "eval_noise": "per_user"|"shared_per_point"   per_user (default): one draw per (point, user);
//                                      shared_per_point: one draw per point, added to every user
//   "theta0": "zero"|"uniform"|[...],  start θ⁽⁰⁾ (data independent)
//   "task": {"type": "normal_location", "d": 5, "n": 50, "centre": 1, "spread": 1,
//            "lower": -3, "upper": 3}
//         | {"type": "huber", "d": 4, "n": 100, "c": 1, "lower": -3, "upper": 3}
//         | {"type": "gp_lengthscale", "d": 15, "n_train": 1000, "n": 1000,
//            "input_range": "scaled" | L}   inputs U[0, L]^d; "scaled" (default): L = √(15/d)
//         | {"type": "svr_friedman", "p": 10, "n_train": 200, "n": 1000}   (d = p + 3; libsvm),
//   "methods": [
//     {"type": "dp_gibo", "label": "DP-GIBO", "mu": 1, "B": 3, "T": 25,
//      "b": 16 (fixed) | "eps_bias": 0.5 with "b_max": 30 (adaptive; cap 2d),
//      "acq": "greedy"|"axis"|"joint", "n_cand": 256, "pool": "per_step"|"once", "n_restart": 4,
//      "n_steps": 20, "theta_in_batch": false, "step": "adagrad"|"gd"|"normalized",
//      "eta": 0.3, "eta_units": "absolute"|"lengthscale", "history": "all"|"nearest",
//      "history_k": k, "lengthscale": 1 | [ℓ_1, …, ℓ_d] (ARD), "variance": 1,
//      "sigma2": 0.0025, "jitter": 1e-9, "clip": true,
//      "kernel": "se"|"polynomial",    polynomial v·(xᵀz + offset)^degree ("variance" = v):
//      "degree": 2, "offset": 1,       "poly_impl": "weight_space" (default; degree 2) |
//                                      "function_space"; no "lengthscale" (unit scale for the
//                                      normalised step, eta_units and history distances)
//      "r_box": ℓ,                     half-width of the design box (default ℓ; polynomial: 1)
//      "acq": "joint", "sweeps": 3},   joint design: A1 then block-coordinate sweeps
//     {"type": "gibo", ...}            DP-GIBO keys without mu (μ = ∞; "clip": false allowed)
//     {"type": "dp_gd", "mu", "B", "T", "step", "eta"}   true per-user gradients (huber,
//     {"type": "gd", "T", "step", "eta", "clip"}          normal_location)
//     {"type": "random_search", "evaluations": 100 | "match": "DP-GIBO"}
//     {"type": "ucb_bo", "evaluations": 100 | "match": "DP-GIBO", "n_cand": 512,
//      "beta_width": 2, "lengthscale": 1, "variance": 1}
//   ]
// }
// Every method also takes "eval_noise_sd" (overrides the config's σ for that method).
// "match" takes each run's evaluation count from the named (earlier) method's same run.
// Unknown keys are errors. "mu" may be a number > 0 or "inf".
#include "dpgibo/config.hpp"

#include "experiment/config_common.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "gpbandit/error.hpp"

namespace gpb::dpgibo::detail {

namespace {
using nlohmann::json;

using Reader = gpb::detail::ConfigObject;

/// "kernel", "degree", "offset", "poly_impl", "r_box" of a DP-GIBO / GIBO method.
void parse_kernel(const Reader& r, GiboOptions& o) {
  const std::string kernel = r.str("kernel", "se");
  if (kernel != "se" && kernel != "polynomial") {
    r.fail("kernel", "must be \"se\" or \"polynomial\", got " + kernel);
  }
  o.kernel = kernel == "se" ? SurrogateKernel::SE : SurrogateKernel::Polynomial;
  if (o.kernel == SurrogateKernel::SE) {
    for (const char* k : {"degree", "offset", "poly_impl"}) {
      if (r.has(k)) r.fail(k, "only with kernel = \"polynomial\"");
    }
  } else if (r.has("lengthscale")) {
    r.fail("lengthscale", "a polynomial kernel has no lengthscale (r_box sets the design box)");
  }
  o.degree = r.integer("degree", 2);
  if (o.degree < 1) r.fail("degree", "must be >= 1");
  o.offset = r.num("offset", 1.0);
  if (!(o.offset >= 0)) r.fail("offset", "must be >= 0");
  const std::string impl = r.str("poly_impl", "weight_space");
  if (impl != "weight_space" && impl != "function_space") {
    r.fail("poly_impl", "must be \"weight_space\" or \"function_space\", got " + impl);
  }
  o.poly_weight_space = impl == "weight_space";
  if (o.poly_weight_space && o.degree != 2) {
    r.fail("degree", "weight_space supports degree 2 only (use poly_impl = \"function_space\")");
  }
  o.r_box = r.num("r_box", 0.0);
  if (r.has("r_box") && !(o.r_box > 0)) r.fail("r_box", "must be > 0");
}

GiboOptions parse_gibo(const Reader& r, const std::string& type, int d) {
  GiboOptions o;
  const bool gd = type == "dp_gd" || type == "gd";
  r.keys("dpgibo_method", type);
  const bool private_type = type == "dp_gibo" || type == "dp_gd";
  if (private_type && !r.has("mu")) r.fail("mu", "required for a private method");
  if (!private_type && r.has("mu")) r.fail("mu", "not allowed: " + type + " is non-private");
  o.mu = private_type ? r.num_or_inf("mu", 1.0) : std::numeric_limits<double>::infinity();
  if (private_type && std::isinf(o.mu)) r.fail("mu", "must be finite for " + type);
  o.B = r.num("B", 1.0);
  o.T = r.integer("T", 25);
  o.b_fixed = r.integer("b", 0);
  if (r.has("b") && o.b_fixed < 1) r.fail("b", "must be >= 1, got " + std::to_string(o.b_fixed));
  o.eps_bias = r.num("eps_bias", 0.5);
  o.b_max = r.integer("b_max", 0);
  if (r.has("b_max") && o.b_max < 1) r.fail("b_max", "must be >= 1");
  const std::string acq = r.str("acq", "greedy");
  if (acq != "greedy" && acq != "axis" && acq != "joint") {
    r.fail("acq", "must be \"greedy\", \"axis\" or \"joint\", got " + acq);
  }
  o.acq = acq == "axis" ? Acquisition::Axis
                        : (acq == "joint" ? Acquisition::Joint : Acquisition::Greedy);
  if (r.has("sweeps") && o.acq != Acquisition::Joint) r.fail("sweeps", "only with acq = \"joint\"");
  o.sweeps = r.integer("sweeps", 3);
  if (o.sweeps < 1) r.fail("sweeps", "must be >= 1");
  o.n_cand = r.integer("n_cand", 256);
  const std::string step = r.str("step", gd ? "gd" : "adagrad");
  if (step != "adagrad" && step != "gd" && (gd || step != "normalized")) {
    r.fail("step",
           gd ? "must be \"adagrad\" or \"gd\"" : "must be \"adagrad\", \"gd\" or \"normalized\"");
  }
  o.step = step == "gd" ? StepRule::Gd
                        : (step == "normalized" ? StepRule::Normalized : StepRule::AdaGrad);
  o.eta = r.num("eta", gd ? 0.1 : 0.3);
  if (!gd) parse_kernel(r, o);
  if (r.has("lengthscale") && r.raw("lengthscale").is_array()) {
    o.lengthscales = r.numbers("lengthscale", {});
  } else {
    o.lengthscale = r.num("lengthscale", 1.0);
  }
  if (!gd) {
    const std::string pool = r.str("pool", "per_step");
    if (pool != "per_step" && pool != "once") r.fail("pool", "must be \"per_step\" or \"once\"");
    o.pool_redraw = pool == "per_step";
    o.n_restart = r.integer("n_restart", 4);
    o.n_steps = r.integer("n_steps", 20);
    o.theta_in_batch = r.boolean("theta_in_batch", false);
    const std::string units = r.str("eta_units", "absolute");
    if (units != "absolute" && units != "lengthscale") {
      r.fail("eta_units", "must be \"absolute\" or \"lengthscale\"");
    }
    o.eta_in_lengthscales = units == "lengthscale";
    const std::string hist = r.str("history", "all");
    if (hist != "all" && hist != "nearest") r.fail("history", "must be \"all\" or \"nearest\"");
    if (hist == "nearest") {
      if (!r.has("history_k")) r.fail("history_k", "required with history = \"nearest\"");
      o.history_k = r.integer("history_k", 0);
      if (o.history_k < 1) r.fail("history_k", "must be >= 1");
    } else if (r.has("history_k")) {
      r.fail("history_k", "only with history = \"nearest\"");
    }
  }
  o.variance = r.num("variance", 1.0);
  o.sigma2 = r.num("sigma2", 0.0025);
  o.jitter = r.num("jitter", 1e-9);
  o.clip = r.boolean("clip", type != "gd");
  validate(o, d, r.checker().source() + ": " + r.path() + ".");
  return o;
}

/// task.input_range of gp_lengthscale: "scaled" (default, √(15/d), specs/dp-gibo.md §8) or a
/// number > 0. @throws InvalidArgument naming task.input_range otherwise.
double gp_input_range(const Reader& t, int d) {
  if (!t.has("input_range")) return gp_lengthscale_scaled_range(d);
  const json& v = t.raw("input_range");
  if (v.is_string() && v.get<std::string>() == "scaled") return gp_lengthscale_scaled_range(d);
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
    t.fail("input_range", "must be \"scaled\" or a number > 0, got " + v.dump());
  }
  return v.get<double>();
}

void parse_task(Config& c, const Reader& top) {
  if (!top.has("task")) top.fail("task", "required");
  c.task = top.raw("task");
  const Reader t(top.checker(), c.task, "task");
  const std::string type =
      t.choice("type", "", {"normal_location", "huber", "gp_lengthscale", "svr_friedman"});
  t.keys("dpgibo_task", type);
  c.dim = static_cast<int>(type == "svr_friedman" ? t.integer("p", 0) + 3 : t.integer("d", 0));
  if (type == "svr_friedman" && c.dim < 8) t.fail("p", "must be >= 5 (Friedman #1)");
  c.users = static_cast<int>(t.integer("n", 0));
  if (c.dim < 1) t.fail("d", "must be >= 1, got " + std::to_string(c.dim));
  if (c.users < 1)
    t.fail("n", "must be >= 1 (n is the number of users), got " + std::to_string(c.users));
  if (t.num("lower", -3) >= t.num("upper", 3)) t.fail("lower", "must be below upper");
  if (t.has("n_train") && t.integer("n_train", 1) < 1) t.fail("n_train", "must be >= 1");
  if (type == "gp_lengthscale") gp_input_range(t, c.dim);
}

void parse_method(const gpb::detail::Checker& chk, Config& c, const json& m, std::size_t i,
                  std::set<std::string>& labels) {
  const Reader r(chk, m, "methods[" + std::to_string(i) + "]");
  MethodSpec s;
  s.type = r.choice("type", "", {"dp_gibo", "gibo", "dp_gd", "gd", "random_search", "ucb_bo"});
  s.label = r.str("label", s.type);
  if (!labels.insert(s.label).second) r.fail("label", "duplicate label '" + s.label + "'");
  if (s.type == "dp_gibo" || s.type == "gibo" || s.type == "dp_gd" || s.type == "gd") {
    s.gibo = parse_gibo(r, s.type, c.dim);
  } else if (s.type == "random_search" || s.type == "ucb_bo") {
    r.keys("dpgibo_method", s.type);
    if (s.type == "ucb_bo") {
      s.ucb.n_cand = r.integer("n_cand", 512);
      s.ucb.width = r.num("beta_width", 2.0);
      s.ucb.lengthscale = r.num("lengthscale", 1.0);
      s.ucb.variance = r.num("variance", 1.0);
      if (s.ucb.n_cand < 1) r.fail("n_cand", "must be >= 1");
      if (!(s.ucb.width >= 0) || !std::isfinite(s.ucb.width)) r.fail("beta_width", "must be >= 0");
      if (!(s.ucb.lengthscale > 0)) r.fail("lengthscale", "must be > 0");
      if (!(s.ucb.variance > 0)) r.fail("variance", "must be > 0");
    }
    if (r.has("match") == r.has("evaluations")) {
      r.fail("evaluations", "give exactly one of \"evaluations\" and \"match\"");
    }
    if (r.has("match")) {
      const std::string target = r.str("match", "");
      for (std::size_t j = 0; j < c.methods.size(); ++j) {
        if (c.methods[j].label == target) s.match = static_cast<int>(j);
      }
      if (s.match < 0) r.fail("match", "no earlier method is labelled '" + target + "'");
    } else {
      s.evaluations = r.integer("evaluations", 0);
      if (s.evaluations < 1) r.fail("evaluations", "must be >= 1");
    }
  }
  s.eval_noise_sd = r.num("eval_noise_sd", -1);
  if (r.has("eval_noise_sd") && !(s.eval_noise_sd >= 0 && std::isfinite(s.eval_noise_sd))) {
    r.fail("eval_noise_sd", "must be >= 0");
  }
  c.methods.push_back(s);
}

}  // namespace

Config parse_config(const gpb::detail::Checker& chk, const json& j, ExperimentSettings settings) {
  Config c;
  c.settings = std::move(settings);
  c.source = chk.source();
  const std::string& source = c.source;
  const Reader top(chk, j, "");
  if (top.has("privacy_budget_mu")) {
    c.budget_mu = top.num("privacy_budget_mu", 0);
    if (!(*c.budget_mu > 0)) top.fail("privacy_budget_mu", "must be > 0");
  }
  c.report_eps = top.numbers("report_eps", c.report_eps);
  for (double e : c.report_eps) {
    if (!(e >= 0) || !std::isfinite(e)) top.fail("report_eps", "values must be >= 0");
  }
  c.report_delta = top.numbers("report_delta", {});
  for (double d : c.report_delta) {
    if (!(d > 0 && d < 1)) top.fail("report_delta", "values must lie in (0, 1)");
  }
  c.eval_noise_sd = top.num("eval_noise_sd", 0.0);
  if (!(c.eval_noise_sd >= 0) || !std::isfinite(c.eval_noise_sd)) {
    top.fail("eval_noise_sd", "must be >= 0");
  }
  const std::string noise_mode = top.str("eval_noise", "per_user");
  if (noise_mode != "per_user" && noise_mode != "shared_per_point") {
    top.fail("eval_noise", "must be \"per_user\" or \"shared_per_point\"");
  }
  c.eval_noise_shared = noise_mode == "shared_per_point";
  parse_task(c, top);
  if (top.has("theta0")) {
    const json& t0 = j["theta0"];
    if (t0.is_string()) {
      c.theta0_mode = t0.get<std::string>();
      if (c.theta0_mode != "zero" && c.theta0_mode != "uniform") {
        top.fail("theta0", "must be \"zero\", \"uniform\" or an array of d numbers");
      }
    } else {
      const std::vector<double> v = top.numbers("theta0", {});
      if (static_cast<int>(v.size()) != c.dim) top.fail("theta0", "must have d values");
      c.theta0_mode = "given";
      c.theta0 = Eigen::Map<const Eigen::VectorXd>(v.data(), c.dim);
    }
  }
  if (!top.has("methods") || !j["methods"].is_array() || j["methods"].empty()) {
    top.fail("methods", "required: a non-empty array");
  }
  std::set<std::string> labels;
  for (std::size_t i = 0; i < j["methods"].size(); ++i) {
    parse_method(chk, c, j["methods"][i], i, labels);
  }
  // The budget is checked before anything runs (specs/dp-gibo.md §5).
  if (c.budget_mu) {
    for (std::size_t i = 0; i < c.methods.size(); ++i) {
      const MethodSpec& m = c.methods[i];
      if (m.privat() && m.gibo.mu > *c.budget_mu) {
        std::ostringstream os;
        os << source << ": methods[" << i << "].mu: " << m.gibo.mu
           << " exceeds privacy_budget_mu = " << *c.budget_mu << "; refusing to start";
        throw InvalidArgument(os.str());
      }
    }
  }
  return c;
}

std::unique_ptr<Task> make_task(const Config& c, std::uint64_t seed) {
  const gpb::detail::Checker chk(c.source, ".");
  const Reader t(chk, c.task, "task");
  const std::string type = t.str("type", "");
  if (type == "normal_location") {
    return make_normal_location(c.dim, c.users, t.num("centre", 1.0), t.num("spread", 1.0),
                                t.num("lower", -3.0), t.num("upper", 3.0), seed);
  }
  if (type == "huber") {
    return make_huber(c.dim, c.users, t.num("c", 1.0), t.num("lower", -3.0), t.num("upper", 3.0),
                      seed);
  }
  if (type == "svr_friedman") {
    return make_svr_friedman(c.dim - 3, t.integer("n_train", 1000), c.users, seed);
  }
  return make_gp_lengthscale(c.dim, t.integer("n_train", 1000), c.users, seed,
                             gp_input_range(t, c.dim));
}

}  // namespace gpb::dpgibo::detail
