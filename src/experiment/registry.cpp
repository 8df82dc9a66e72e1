// Policy factory and the registry of everything a config can name.
//
// registry() is the single table behind both the config validator (allowed keys, their types
// and defaults) and `gpbandit list`, so the two can never disagree. Default values are JSON text
// (or detail::kRequired); the validator parses them to fill omitted keys.
#include <nlohmann/json.hpp>

#include "experiment/registry_internal.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment.hpp"

namespace gpb {
namespace {

using nlohmann::json;

const std::string kReq = detail::kRequired;

std::vector<RegistryEntry> build_registry() {
  const std::string beta_default = R"({"type":"srinivas"})";
  std::vector<RegistryEntry> r;
  // ---- top-level keys of a config file
  r.push_back(
      {"experiment",
       "config",
       "Top-level keys of an experiment config file",
       {{"name", "string", "file stem", "output folder name, [A-Za-z0-9._-]+"},
        {"description", "string", "\"\"", "free text, ignored"},
        {"seed", "integer", "0", "master seed of every simulation stream (>= 0)"},
        {"runs", "integer", "10", "independent runs per policy (>= 1)"},
        {"T", "integer", "100", "evaluations per run (>= 1)"},
        {"lockstep", "integer", "0",
         "runs advanced together, 0 = all; checkpoint after each group"},
        {"backend", "string", "\"auto\"", "auto | cpu | cuda"},
        {"memory_budget_mb", "number", "4096", "engine memory budget for posterior buffers (> 0)"},
        {"threads", "integer", "0", "CPU threads for engine ops, 0 = all cores"},
        {"tie_break", "string", "\"random\"", "random | lowest: how exact argmax ties are broken"},
        {"noise_variance", "number", "0.01", "noise variance lambda of the surrogate GP (> 0)"},
        {"domain", "object", "required unless dataset",
         "the finite domain (absent for dataset objectives)"},
        {"kernel", "object", R"({"type":"se"})",
         "surrogate and objective kernel (absent for "
         "dataset objectives)"},
        {"objective", "object", kReq, "the unknown function"},
        {"noise", "object", R"({"type":"none"})", "observation noise added to f(x)"},
        {"policies", "array", kReq, "non-empty list of policies; labels must be unique"}}});
  // ---- policies
  r.push_back({"policy",
               "gp_ucb",
               "GP-UCB over the finite domain (one evaluation per round)",
               {{"label", "string", "type", "name in outputs (unique)"},
                {"beta", "beta", beta_default, "confidence-width schedule"}}});
  r.push_back({"policy",
               "batch_gp_ucb",
               "Batch GP-UCB (GP-BUCB): q points per round by hallucinated variance updates",
               {{"label", "string", "type", "name in outputs (unique)"},
                {"q", "integer", "5", "batch size (>= 1; <= N when distinct)"},
                {"distinct", "boolean", "false", "forbid choosing a candidate twice in one batch"},
                {"beta", "beta", beta_default, "confidence-width schedule"}}});
  r.push_back({"policy",
               "random",
               "Uniform random search over the domain",
               {{"label", "string", "type", "name in outputs (unique)"}}});
  // ---- beta schedules (the "beta" object of UCB policies)
  r.push_back({"beta",
               "srinivas",
               "beta_t = 2 ln(N t^2 pi^2 / (6 delta)) (Srinivas et al. 2010)",
               {{"delta", "number", "0.1", "failure probability, in (0, 1)"},
                {"scale", "number", "1", "multiplies sqrt(beta_t) (> 0)"}}});
  r.push_back({"beta",
               "igp_ucb",
               "sqrt(beta_t) = B + R sqrt(2(gamma_{t-1} + 1 + ln(1/delta))) (Chowdhury & Gopalan)",
               {{"delta", "number", "0.1", "failure probability, in (0, 1)"},
                {"B", "number", "1", "bound on the RKHS norm of f (>= 0)"},
                {"R", "number", "0.1", "sub-Gaussian noise constant (>= 0)"},
                {"scale", "number", "1", "multiplies sqrt(beta_t) (> 0)"}}});
  r.push_back({"beta",
               "constant",
               "beta_t = value",
               {{"value", "number", "4", "beta (> 0)"},
                {"scale", "number", "1", "multiplies sqrt(beta_t) (> 0)"}}});
  // ---- objectives
  r.push_back({"objective",
               "rkhs",
               "f = sum_i a_i k(., s_i), a_i ~ U[-1,1], support points drawn from the domain",
               {{"support", "integer", "100", "number of support points (>= 1)"},
                {"fixed", "boolean", "false", "same f (run 0's) for every run"}}});
  r.push_back({"objective",
               "gp_sample",
               "a GP(0, k) sample path on the domain",
               {{"features", "integer", "0", "random Fourier features (0 = exact, N <= 20000)"},
                {"fixed", "boolean", "false", "same f (run 0's) for every run"}}});
  r.push_back({"objective", "branin", "-Branin on a 2-d domain (max -0.397887)", {}});
  r.push_back({"objective", "hartmann6", "Hartmann-6 on a 6-d domain (max 3.32237)", {}});
  r.push_back(
      {"objective",
       "dataset",
       "a data set as a bandit: arms = columns, f = column means, rewards = resampled rows; "
       "prescribes its own domain and kernel (empirical covariance)",
       {{"path", "path", kReq, "numeric CSV, rows = samples, columns = arms"},
        {"correlation", "boolean", "false", "kernel = correlation instead of covariance"},
        {"skip_columns", "integer", "0", "leading columns to ignore (>= 0)"}}});
  // ---- kernels
  const auto stationary = [](const std::string& name, const std::string& doc) {
    return RegistryEntry{"kernel",
                         name,
                         doc,
                         {{"lengthscale", "number", "1", "length scale (> 0)"},
                          {"variance", "number", "1", "signal variance (> 0)"}}};
  };
  r.push_back(stationary("se", "squared exponential v exp(-s^2/2), s = |x-x'|/l"));
  r.push_back(stationary("matern12", "Matern 1/2: v exp(-s)"));
  r.push_back(stationary("matern32", "Matern 3/2: v (1 + sqrt3 s) exp(-sqrt3 s)"));
  r.push_back(stationary("matern52", "Matern 5/2: v (1 + sqrt5 s + 5s^2/3) exp(-sqrt5 s)"));
  r.push_back({"kernel",
               "linear",
               "v (x.x' + c)",
               {{"variance", "number", "1", "v (> 0)"}, {"offset", "number", "0", "c (>= 0)"}}});
  r.push_back({"kernel",
               "polynomial",
               "v (x.x' + c)^p",
               {{"degree", "integer", "2", "p (>= 1)"},
                {"variance", "number", "1", "v (> 0)"},
                {"offset", "number", "1", "c (>= 0)"}}});
  r.push_back({"kernel",
               "precomputed",
               "an N x N symmetric PSD matrix from a CSV file (domain must be indices with that N)",
               {{"path", "path", kReq, "numeric CSV, N rows of N values"}}});
  // ---- noise
  r.push_back({"noise", "none", "no observation noise", {}});
  r.push_back(
      {"noise", "gaussian", "N(0, sd^2)", {{"sd", "number", "0.1", "standard deviation (>= 0)"}}});
  r.push_back({"noise", "uniform", "U[-R, R]", {{"R", "number", "1", "half width (>= 0)"}}});
  r.push_back({"noise",
               "student_t",
               "scale * t_nu (heavy tails)",
               {{"nu", "number", "3", "degrees of freedom (> 0)"},
                {"scale", "number", "1", "scale (>= 0)"}}});
  r.push_back(
      {"noise",
       "pareto",
       "scale * (P - alpha/(alpha-1)), P ~ Pareto(alpha, 1): centred",
       {{"alpha", "number", "3", "shape (> 1)"}, {"scale", "number", "1", "scale (>= 0)"}}});
  r.push_back(
      {"noise", "laplace", "Laplace(0, scale)", {{"scale", "number", "1", "scale (>= 0)"}}});
  // ---- domains
  r.push_back({"domain",
               "grid",
               "Cartesian grid over a box, endpoints included, axis 0 fastest",
               {{"lower", "number[]", kReq, "lower corner (one value per dimension)"},
                {"upper", "number[]", kReq, "upper corner (>= lower)"},
                {"counts", "integer[]", kReq, "points per axis (>= 1)"}}});
  r.push_back({"domain",
               "csv",
               "points from a CSV file, one candidate per row",
               {{"path", "path", kReq, "numeric CSV (optional header), d columns"}}});
  r.push_back({"domain",
               "indices",
               "N index points 0..N-1 (for a precomputed kernel)",
               {{"n", "integer", kReq, "N (>= 1)"}}});
  return r;
}

BetaSchedule parse_beta(const json& b) {
  BetaSchedule s;
  const std::string type = b.value("type", std::string("srinivas"));
  if (type == "srinivas") {
    s.kind = BetaSchedule::Kind::Srinivas;
  } else if (type == "igp_ucb") {
    s.kind = BetaSchedule::Kind::IgpUcb;
  } else if (type == "constant") {
    s.kind = BetaSchedule::Kind::Constant;
  } else {
    throw InvalidArgument("beta.type: unknown beta schedule '" + type + "'");
  }
  s.delta = b.value("delta", s.delta);
  s.value = b.value("value", s.value);
  s.rkhs_bound = b.value("B", s.rkhs_bound);
  s.subgaussian = b.value("R", s.subgaussian);
  s.scale = b.value("scale", s.scale);
  return s;
}

}  // namespace

std::unique_ptr<Policy> make_policy(const PolicySpec& spec, const PolicyEnv& env) {
  json p = spec.params_json.empty() ? json::object() : json::parse(spec.params_json);
  if (!p.is_object())
    throw InvalidArgument("policy " + spec.label + ": parameters must be an object");
  const json beta = p.contains("beta") ? p["beta"] : json::object();
  if (spec.type == "gp_ucb") return make_gp_ucb(env, parse_beta(beta));
  if (spec.type == "batch_gp_ucb") {
    return make_batch_gp_ucb(env, parse_beta(beta), p.value("q", 5), p.value("distinct", false));
  }
  if (spec.type == "random") return make_random_search(env);
  throw InvalidArgument("unknown policy type '" + spec.type + "'");
}

std::vector<RegistryEntry> registry() {
  return build_registry();
}

namespace detail {

const RegistryEntry* find_registry_entry(const std::string& kind, const std::string& name) {
  static const std::vector<RegistryEntry> table = build_registry();
  for (const auto& e : table) {
    if (e.kind == kind && e.name == name) return &e;
  }
  return nullptr;
}

std::vector<std::string> registry_names(const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& e : build_registry()) {
    if (e.kind == kind) out.push_back(e.name);
  }
  return out;
}

}  // namespace detail
}  // namespace gpb
