// The finite-domain family's part of the registry (its top-level keys, policies, objectives,
// kernels, noise models and domains) and its policy factory make_policy.
//
// The registry (experiment/registry.cpp) is the single table behind both the config validator
// (allowed keys, their types and defaults) and `gpbandit list`, so the two can never disagree.
// Default values are JSON text (or detail::kRequired); the validator parses them to fill omitted
// keys.
#include <nlohmann/json.hpp>

#include "experiment/registry_internal.hpp"
#include "finite/po_config.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/policy/po_gp_ucb.hpp"

namespace gpb {
namespace {

using nlohmann::json;

const std::string kReq = detail::kRequired;
using detail::parse_heavy;

/// The six heavy-tailed / LDP policies of specs/ldp-bo.md §3.5–3.7 with their §4/§5 options.
void add_heavy_tailed(std::vector<RegistryEntry>& r) {
  const auto common = [](bool ldp, bool nystrom) {
    std::vector<ParamDoc> p = {
        {"label", "string", "type", "name in outputs (unique)"},
        {"preset", "string", "\"practical\"", "practical | theory: parameter formulas (spec §4)"},
        {"delta", "number", "0.1", "failure probability delta, in (0, 1)"},
        {"alpha", "number", "1", "moment order 1+alpha, alpha in (0, 1]"},
        {"B", "number", "max|f| per run", "bound on |f| (> 0); default max over the domain"},
        {"R", "number", "instance",
         "bound on |noise| (> 0); default U[-R,R]'s R or the data set's max|y - f|"},
        {"v", "number", "instance", "override of the moment bound v (> 0)"},
        {"c", "number", "instance", "override of the noise moment bound c (> 0)"},
        {"width_scale", "number", "1",
         "multiplies the confidence width beta (> 0; 1 = the paper; project knob)"},
        {"level_scale", "number", "1",
         "multiplies the truncation level b (> 0; 1 = the paper; huge = no truncation)"}};
    if (nystrom) p.push_back({"eps_nys", "number", "0.1", "Nystrom accuracy epsilon, in (0, 1)"});
    if (ldp) {
      p.push_back({"epsilon", "number", kReq, "local DP level (> 0)"});
      p.push_back({"ctl_clip", "boolean", "true", "clip y to +-(B+R) before the Laplace noise"});
      p.push_back({"moment_source", "string", "\"auto\"",
                   "auto | empirical | bound: LDP v, c (auto: practical->empirical, "
                   "theory->bound)"});
    }
    return p;
  };
  const auto tgp = [&](bool ldp) {
    auto p = common(ldp, false);
    p.push_back({"gamma", "string", "\"info_gain\"",
                 "info_gain | log_t: gamma_{t-1} in the theory width (spec D3)"});
    return p;
  };
  const auto ata = [&](bool ldp) {
    auto p = common(ldp, true);
    p.push_back({"ata_level", "string", "\"current\"",
                 "current | per_sample: truncate every sample at b_t or at its own b_tau (D5)"});
    return p;
  };
  const auto moma = [&](bool ldp) {
    auto p = common(ldp, true);
    p.push_back({"k_groups", "integer", "0", "MoMA k (0 = preset: ceil((24|1) ln(4eT/delta)))"});
    p.push_back({"median", "string", "\"lower\"", "lower | midpoint (spec D8)"});
    p.push_back({"moma_exponent", "string", "\"arxiv\"", "arxiv | aaai width exponent (D6)"});
    return p;
  };
  r.push_back({"policy", "tgp_ucb",
               "TGP-UCB (Chowdhury & Gopalan 2019): exact GP fed rewards truncated to 0 above "
               "b_t = v^(1/(1+a)) t^(1/(2(1+a)))",
               tgp(false)});
  r.push_back({"policy", "ldp_tgp_ucb",
               "LDP-TGP-UCB (Zhou & Tan 2021): CTL-privatised rewards, b_t = B + R + L ln t",
               tgp(true)});
  r.push_back({"policy", "ata_gp_ucb",
               "ATA-GP-UCB (Chowdhury & Gopalan 2019): Nystrom approximation, history "
               "re-truncated along adaptive directions every round",
               ata(false)});
  r.push_back({"policy", "ldp_ata_gp_ucb",
               "LDP-ATA-GP-UCB (Zhou & Tan 2021): ATA-GP-UCB on CTL-privatised rewards",
               ata(true)});
  r.push_back({"policy", "moma_gp_ucb",
               "MoMA-GP-UCB (Zhou & Tan 2021): epochs of k plays (one batch), median of means "
               "over k least-squares estimates",
               moma(false)});
  r.push_back({"policy", "ldp_moma_gp_ucb",
               "LDP-MoMA-GP-UCB (Zhou & Tan 2021): MoMA-GP-UCB on CTL-privatised rewards",
               moma(true)});
}

}  // namespace

namespace detail {

void add_finite_entries(std::vector<RegistryEntry>& r) {
  const std::string beta_default = R"({"type":"srinivas"})";
  // ---- top-level keys of a config file
  std::vector<ParamDoc> top = detail::common_params("finite");
  const std::vector<ParamDoc> finite = {
      {"T", "integer", "100", "evaluations per run (>= 1)"},
      {"tie_break", "string", "\"random\"", "random | lowest: how exact argmax ties are broken"},
      {"noise_variance", "number", "0.01", "noise variance lambda of the surrogate GP (> 0)"},
      {"domain", "object", "required unless dataset",
       "the finite domain (absent for dataset objectives)"},
      {"kernel", "object", R"({"type":"se"})",
       "surrogate and objective kernel (absent for dataset objectives): a kernel entry, or "
       "parts on feature ranges: combine product | sum, parts [{features [begin, end), type, "
       "lengthscale, ard, variance (sum)}], type (default of the parts), variance (product)"},
      {"objective", "object", kReq, "the unknown function"},
      {"noise", "object", R"({"type":"none"})", "observation noise added to f(x)"},
      {"policies", "array", kReq, "non-empty list of policies; labels must be unique"},
      {"laplace_sampler", "string", "\"snapping\"",
       "snapping | inverse_cdf: Laplace sampler of CTL (inverse_cdf = the paper's, leaks "
       "low-order bits; reproduction runs only)"}};
  top.insert(top.end(), finite.begin(), finite.end());
  r.push_back({"experiment", "finite",
               "Top-level keys of a finite-domain config (\"experiment\" absent or \"finite\")",
               top});
  // ---- policies
  r.push_back({"policy",
               "gp_ucb",
               "GP-UCB over the finite domain (one evaluation per round)",
               {{"label", "string", "type", "name in outputs (unique)"},
                {"beta", "beta", beta_default,
                 "confidence-width schedule (beta.scale = the spec's width_scale)"},
                {"ldp", "object", "none",
                 "local DP: {\"epsilon\": > 0 (required), \"B\": > 0 (default max|f| per run), "
                 "\"R\": > 0 (default: the instance's noise bound), \"clip\": true}; rewards "
                 "pass through CTL before the learner sees them"}}});
  add_heavy_tailed(r);
  r.push_back({"policy",
               "batch_gp_ucb",
               "Batch GP-UCB (GP-BUCB): q points per round by hallucinated variance updates",
               {{"label", "string", "type", "name in outputs (unique)"},
                {"q", "integer", "5", "batch size (>= 1; <= N when distinct)"},
                {"distinct", "boolean", "false", "forbid choosing a candidate twice in one batch"},
                {"beta", "beta", beta_default, "confidence-width schedule"}}});
  r.push_back(
      {"policy",
       "po_gp_ucb",
       "PO-GP-UCB transform (Kharkovskii et al. 2020): GP-UCB over Z = r^-1/2 X~ M, the curator's "
       "random projection of the domain (fresh M per run). NOT differentially private when "
       "N > d: a row is recoverable from Z and d+1 other rows (specs/po-gp-ucb.md s12)",
       {{"label", "string", "type", "name in outputs (unique)"},
        {"epsilon", "number", "(required unless curator is false)",
         "the paper's epsilon that sets omega (> 0)"},
        {"delta", "number", "1e-05", "the paper's delta that sets omega, in (0, 1)"},
        {"r", "integer", "0",
         "projection dimension in [1, N]; 0 = largest r with sigma_min >= omega"},
        {"omega_form", "string", "\"sqrt_r_log\"",
         "sqrt_r_log | literal: 16 sqrt(r ln(2/delta)) ln(16r/delta)/eps or the printed "
         "16 sqrt(r) ln(2/delta) ln(16r/delta)/eps"},
        {"beta", "beta", R"({"type":"srinivas","delta":0.025})",
         "confidence-width schedule (delta' = delta_ucb/2 = 0.025)"},
        {"curator", "boolean", "true",
         "false: the non-private baseline, the same modeler over X (no epsilon, delta, r)"},
        {"n_init", "integer", "1",
         "initial uniform indices per run, shared by every po_gp_ucb policy (spec D6)"},
        {"exclude_queried", "boolean", "false", "never re-select a queried row (spec D8)"},
        {"calibrate_to", "number", "0",
         "> 0: the data set's lowest paper epsilon; epsilons are rescaled to the data's "
         "sigma_min (spec s7 epsilon_mode = calibrated)"}}});
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
                {"fixed", "boolean", "false", "same f (run 0's) for every run"},
                {"kronecker", "boolean", "false",
                 "exact draw on a grid domain by Kronecker factors (se kernel, any N)"}}});
  r.push_back({"objective", "branin", "-Branin on a 2-d domain (max -0.397887)", {}});
  for (auto& e : detail::po_registry_entries()) r.push_back(e);
  r.push_back({"objective", "hartmann6", "Hartmann-6 on a 6-d domain (max 3.32237)", {}});
  r.push_back(
      {"objective",
       "dataset",
       "a data set as a bandit: arms = columns, f = column means, rewards = resampled rows; "
       "prescribes its own domain and kernel (empirical covariance)",
       {{"path", "path", kReq, "numeric CSV, rows = samples, columns = arms"},
        {"correlation", "boolean", "false", "kernel = correlation instead of covariance"},
        {"skip_columns", "integer", "0", "leading columns to ignore (>= 0)"},
        {"kernel_path", "path", "path",
         "separate CSV to estimate the kernel from (same arms, e.g. a training sample)"},
        {"kernel_skip_columns", "integer", "skip_columns",
         "leading columns of kernel_path to "
         "ignore (>= 0)"}}});
  // ---- kernels
  const auto stationary = [](const std::string& name, const std::string& doc) {
    return RegistryEntry{"kernel",
                         name,
                         doc,
                         {{"lengthscale", "number|number[]", "1",
                           "length scale (> 0), or one per axis (ARD: d values > 0)"},
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
               "npy",
               "points from a .npy file (numpy.save), one candidate per row; under gpbandit run "
               "--mpi each rank reads only its rows",
               {{"path", "path", kReq,
                 "N x d array (or 1-d: d = 1) of float64, float32 or integers, C or Fortran "
                 "order"}}});
  r.push_back({"domain",
               "indices",
               "N index points 0..N-1 (for a precomputed kernel)",
               {{"n", "integer", kReq, "N (>= 1)"}}});
}

}  // namespace detail

namespace {

/// A schedule from a "beta" object; keys it does not set keep the policy's own defaults
/// (PO-GP-UCB: δ′ = 0.025, not the generic 0.1).
BetaSchedule parse_beta(const json& b, const BetaSchedule& defaults = BetaSchedule{}) {
  BetaSchedule s = defaults;
  s.kind = BetaSchedule::parse_kind(b.value("type", std::string("srinivas")));
  s.delta = b.value("delta", s.delta);
  s.value = b.value("value", s.value);
  s.rkhs_bound = b.value("B", s.rkhs_bound);
  s.subgaussian = b.value("R", s.subgaussian);
  s.scale = b.value("scale", s.scale);
  return s;
}

}  // namespace

namespace detail {

HeavyTailedOptions parse_heavy(const json& p, const std::string& type) {
  HeavyTailedOptions o;
  o.ldp = type.rfind("ldp_", 0) == 0;
  o.preset = p.value("preset", std::string("practical")) == "theory"
                 ? HeavyTailedOptions::Preset::Theory
                 : HeavyTailedOptions::Preset::Practical;
  o.delta = p.value("delta", o.delta);
  o.alpha = p.value("alpha", o.alpha);
  o.eps_nys = p.value("eps_nys", o.eps_nys);
  const auto opt = [&](const char* key) {
    return p.contains(key) && p[key].is_number() ? std::optional<double>(p[key].get<double>())
                                                 : std::nullopt;
  };
  o.B = opt("B");
  o.R = opt("R");
  o.v = opt("v");
  o.c = opt("c");
  if (o.ldp) {
    o.epsilon = p.value("epsilon", 0.0);
    o.clip = p.value("ctl_clip", true);
    const std::string ms = p.value("moment_source", std::string("auto"));
    o.moment_source = ms == "empirical" ? HeavyTailedOptions::MomentSource::Empirical
                      : ms == "bound"   ? HeavyTailedOptions::MomentSource::Bound
                                        : HeavyTailedOptions::MomentSource::Auto;
  }
  o.gamma_log_t = p.value("gamma", std::string("info_gain")) == "log_t";
  o.ata_per_sample = p.value("ata_level", std::string("current")) == "per_sample";
  o.median_midpoint = p.value("median", std::string("lower")) == "midpoint";
  o.moma_aaai = p.value("moma_exponent", std::string("arxiv")) == "aaai";
  o.k_groups = p.value("k_groups", 0);
  o.width_scale = p.value("width_scale", 1.0);
  o.level_scale = p.value("level_scale", 1.0);
  return o;
}

}  // namespace detail

std::unique_ptr<Policy> make_policy(const PolicySpec& spec, const PolicyEnv& env) {
  json p = spec.params_json.empty() ? json::object() : json::parse(spec.params_json);
  if (!p.is_object())
    throw InvalidArgument("policy " + spec.label + ": parameters must be an object");
  const json beta = p.contains("beta") ? p["beta"] : json::object();
  if (spec.type == "gp_ucb") {
    auto policy = make_gp_ucb(env, parse_beta(beta));
    if (!p.contains("ldp")) return policy;
    const json& l = p["ldp"];
    std::vector<LdpRequest> req;
    for (int r = 0; r < env.runs(); ++r) {
      LdpRequest q;
      q.epsilon = l.value("epsilon", 0.0);
      if (l.contains("B")) {
        q.B = l["B"].get<double>();
      } else if (r < static_cast<int>(env.f_sup.size())) {
        q.B = env.f_sup[static_cast<std::size_t>(r)];
      }
      q.R = l.contains("R") ? l["R"].get<double>() : env.instance.noise_bound;
      q.clip = l.value("clip", true);
      req.push_back(q);
    }
    return make_ldp_wrapped(std::move(policy), std::move(req));
  }
  if (spec.type.find("tgp_ucb") != std::string::npos) {
    return make_tgp_ucb(env, parse_heavy(p, spec.type));
  }
  if (spec.type.find("ata_gp_ucb") != std::string::npos) {
    return make_ata_gp_ucb(env, parse_heavy(p, spec.type));
  }
  if (spec.type.find("moma_gp_ucb") != std::string::npos) {
    return make_moma_gp_ucb(env, parse_heavy(p, spec.type));
  }
  if (spec.type == "batch_gp_ucb") {
    return make_batch_gp_ucb(env, parse_beta(beta), p.value("q", 5), p.value("distinct", false));
  }
  if (spec.type == "po_gp_ucb") {
    PoGpUcbOptions o = detail::parse_po_gp_ucb(p, spec.label);
    if (p.contains("beta")) {
      o.beta = parse_beta(beta, o.beta);
    }
    return make_po_gp_ucb(env, o);
  }
  if (spec.type == "random") return make_random_search(env);
  throw InvalidArgument("unknown policy type '" + spec.type + "'");
}

}  // namespace gpb
