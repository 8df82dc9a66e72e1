// The optimizer config's entries in the registry (experiment/registry_internal.hpp): its top-level
// keys, a command-objective run's extra keys, the objective, the acquisition rules, the fit and
// the domain types. `gpbandit list optimizer` / `list command` print them, and the optimizer
// config reader (config.cpp) takes its allowed keys from them, so the two cannot disagree.
#include "experiment/registry_internal.hpp"

namespace gpb::detail {

namespace {

const std::string kReq = kRequired;

std::vector<ParamDoc> top_level() {
  return {
      {"domain", "object", kReq,
       "the candidates (see `gpbandit list optimizer`, optimizer_domain)"},
      {"kernel", "object", R"({"type":"matern52"})",
       "type se | matern12 | matern32 | matern52 (lengthscale: a number or one per axis, "
       "variance) | linear | polynomial (variance, offset, degree); or per-parameter parts: "
       "combine product | sum, parts [{parameters [names] or features [begin, end), type, "
       "lengthscale, ard, variance (sum)}], type (of the parts not named), variance (product)"},
      {"noise_variance", "number", "0.01", "Gaussian noise variance of the surrogate (> 0)"},
      {"acquisition", "object", R"({"type":"ucb"})", "the acquisition rule (acquisition entries)"},
      {"goal", "string", "\"maximize\"", "maximize | minimize"},
      {"initial_points", "integer", "0", "the first asks are an initial design (>= 0)"},
      {"initial_design", "string", "\"sobol\"",
       "sobol (the Sobol prefix of a sobol or box domain) | random: the initial design"},
      {"refine", "object", "{}",
       "continuous refinement on a box domain, and of a parameters domain's continuous "
       "parameters (optimizer_refine)"},
      {"distinct", "boolean", "true", "never ask again a candidate asked and not yet told"},
      {"exclude_observed", "boolean", "false",
       "never ask a candidate already told (observed or failed): every suggestion is new"},
      {"tie_break", "string", "\"random\"", "random | lowest: exact argmax ties"},
      {"seed", "integer", "0", "master seed of tie-breaks, draws and fits"},
      {"capacity", "integer", "256", "posterior rows reserved up front (>= 1; grows as needed)"},
      {"fit", "object", "{}", "hyperparameter fitting, MAP by default (optimizer_fit)"},
      {"allow_outside", "boolean", "false",
       "accept told points outside the candidates' bounding box (else refused, naming the point)"},
      {"match_tolerance", "number", "1e-05",
       "a told point within this relative distance of an outstanding ask answers it, in [0, 1)"},
      {"backend", "string", "\"auto\"", "auto | cpu | cuda"},
      {"threads", "integer", "0", "CPU threads, 0 = the idle cores"},
      {"memory_budget_mb", "number", "auto",
       "budget of the posterior's V (> 0); auto: 75% of the available memory (CPU) or of the "
       "free device memory (CUDA)"}};
}

}  // namespace

void add_optimizer_entries(std::vector<RegistryEntry>& r) {
  r.push_back({"optimizer", "optimizer",
               "Top-level keys of an optimizer config (gpbandit init; Python "
               "Optimizer.from_config)",
               top_level()});
  r.push_back({"optimizer",
               "command",
               "The keys a command-objective config adds to an optimizer config (gpbandit run: "
               "a program evaluates the suggestions)",
               {{"name", "string", "file stem", "output folder name: results/<name>"},
                {"description", "string", "\"\"", "free text, ignored"},
                {"T", "integer", kReq, "evaluations of the program in all (>= 1)"},
                {"q", "integer", "1", "candidates per round (a batch; 1 <= q <= N)"},
                {"objective", "object", kReq, "the program (optimizer_objective command)"}}});
  r.push_back({"optimizer_objective",
               "command",
               "A program run on each round's candidates: their CSV on its stdin, one reward per "
               "candidate on its stdout",
               {{"type", "string", kReq, "\"command\""},
                {"cmd", "string[]", kReq, "the program and its arguments (no shell)"},
                {"timeout_s", "number", "0", "seconds an evaluation may take (0 = no limit)"},
                {"noise", "string", "\"gaussian\"",
                 "\"returned\": the program prints a reward and its noise variance per "
                 "candidate (known noise); \"gaussian\": the noise is fitted"}}});
  r.push_back(
      {"acquisition",
       "ucb",
       "GP-UCB: argmax mu + sqrt(beta_t) sigma",
       {{"beta", "beta", R"({"type":"srinivas"})", "width schedule (see policies: beta)"}}});
  r.push_back({"acquisition",
               "ts",
               "Thompson sampling: argmax of one posterior sample",
               {{"exact_max", "integer", "4096", "largest point set sampled exactly (>= 1)"},
                {"features", "integer", "1024", "random Fourier features beyond it (>= 1)"}}});
  r.push_back({"acquisition",
               "ei",
               "expected improvement over the best posterior mean observed (as log EI)",
               {{"xi", "number", "0", "improvement threshold (>= 0, units of y)"}}});
  r.push_back({"acquisition",
               "pi",
               "probability of improvement over the best posterior mean observed (as log PI)",
               {{"xi", "number", "0", "improvement threshold (>= 0, units of y)"}}});
  r.push_back({"acquisition", "random", "uniform over the candidates (a baseline)", {}});
  r.push_back(
      {"optimizer_fit",
       "fit",
       "Hyperparameter fitting of the kernel (MAP in unit coordinates by default)",
       {{"every", "integer", "1", "refit after every k observations (0: only when asked)"},
        {"min_observations", "integer", "5", "automatic refits start here (>= 2)"},
        {"ard", "boolean", "true", "one lengthscale per axis"},
        {"restarts", "integer", "5", "random L-BFGS-B starts besides the default"},
        {"max_rows", "integer", "2000", "observations a fit uses (a seeded subsample)"},
        {"normalize", "boolean", "true", "standardise y after every tell"},
        {"warp", "boolean", "false",
         "Box-Cox compression of y's bad tail beyond its warp_knee quantile (exponent fitted)"},
        {"warp_knee", "number", "0.6",
         "with warp: the quantile of the distance below the best kept as it is, in (0, 1)"},
        {"warp_select", "boolean", "false",
         "with warp: keep it only where its marginal likelihood (with the Jacobian) is higher"},
        {"unit_inputs", "boolean", "true", "fit in the domain's unit box"},
        {"prior", "boolean", "true",
         "log-normal priors: lengthscales (lengthscale_prior_*), noise (near interpolation)"},
        {"lengthscale_prior_loc", "number", "0",
         "lengthscale prior: location of ln l (unit box) without the ln(d) term"},
        {"lengthscale_prior_log_d", "number", "0.5",
         "lengthscale prior: coefficient of ln(d) in the location"},
        {"lengthscale_prior_scale", "number", "1.1", "lengthscale prior: sd of ln l"},
        {"lengthscale_prior_select", "boolean", "false",
         "also fit without the ln(d) term; keep the fit of higher marginal likelihood"},
        {"kernel_select", "boolean", "false",
         "also fit the additive kernel (1-d parts); keep the structure of higher evidence (BIC)"},
        {"noise_floor", "number", "1e-08", "lowest noise variance (standardised y)"},
        {"mean_shift", "number", "0", "prior mean this many sd of y worse than their mean"},
        {"warm_start", "boolean", "true", "also start from the current hyperparameters"},
        {"restarts_every", "integer", "5", "random restarts only at every k-th fit"}}});
  r.push_back(
      {"optimizer_refine",
       "refine",
       "Continuous refinement of each ask on a box domain and of a parameters domain's "
       "continuous parameters (never on other finite domains)",
       {{"enabled", "boolean", "true", "refine beyond the Sobol candidates"},
        {"local_points", "integer", "1024", "trust-region candidates per ask"},
        {"centres", "integer", "3", "best candidates that get local candidates"},
        {"starts", "integer", "5", "points polished by L-BFGS-B on the acquisition"},
        {"iterations", "integer", "60", "L-BFGS-B iterations per start"},
        {"coordinate_points", "integer", "0",
         "candidates that move 1-3 axes of the incumbent anywhere in the box"},
        {"face_tolerance", "number", "0",
         "acquisition a coordinate on a face may lose when pulled back to the incumbent's"}}});
  r.push_back({"optimizer_domain",
               "grid",
               "a Cartesian grid",
               {{"lower", "number[]", kReq, "lower corner"},
                {"upper", "number[]", kReq, "upper corner"},
                {"counts", "integer[]", kReq, "points per axis"}}});
  r.push_back({"optimizer_domain",
               "sobol",
               "count points of a scrambled Sobol sequence in a box",
               {{"lower", "number[]", kReq, "lower corner"},
                {"upper", "number[]", kReq, "upper corner"},
                {"count", "integer", kReq, "number of candidates"},
                {"seed", "integer", "0", "scrambling seed"}}});
  r.push_back({"optimizer_domain",
               "box",
               "a continuous box: Sobol candidates as each ask's global step, refined beyond them",
               {{"lower", "number[]", kReq, "lower corner"},
                {"upper", "number[]", kReq, "upper corner"},
                {"candidates", "integer", "4096", "Sobol candidates of the global step"},
                {"seed", "integer", "the optimizer's seed", "scrambling seed"},
                {"integer", "integer[]", "[]", "integer axes (suggestions rounded)"},
                {"log_integer", "integer[]", "[]",
                 "axes holding ln v of an integer v (log-uniform integers)"},
                {"onehot", "integer[][]", "[]", "one-hot groups [first axis, k] (categorical)"}}});
  r.push_back({"optimizer_domain",
               "csv",
               "candidates from a CSV file (one per row)",
               {{"path", "path", kReq, "relative to the config's folder"}}});
  r.push_back({"optimizer_domain",
               "npy",
               "candidates from a .npy file (N x d)",
               {{"path", "path", kReq, "relative to the config's folder"}}});
  r.push_back({"optimizer_domain",
               "points",
               "explicit candidates",
               {{"points", "number[][]", kReq, "one array of d numbers per candidate"},
                {"source", "string", "\"\"", "where they came from (informational)"}}});
  r.push_back(
      {"optimizer_domain",
       "fingerprints",
       "packed molecular (or any binary / count) fingerprints: the tanimoto (bits) or "
       "minmax (counts) kernel, candidates by index (docs/pools.md)",
       {{"path", "path", "one of path, words",
         ".npy of packed uint64 words (N x W) or 0/1 / count values (N x bits)"},
        {"words", "integer[][]", "one of path, words",
         "the packed words, W per fingerprint (what a state writes without a file)"},
        {"kind", "string", "\"bits\"", "bits | counts"},
        {"bits", "integer", "0", "positions per fingerprint (0: 64 per word / the columns)"},
        {"digest", "string", "none",
         "FNV-1a of the words, written by states: the file must be unchanged"}}});
  r.push_back({"optimizer_domain",
               "parameters",
               "the feasible combinations of parameters (docs/spaces.md), never enumerated whole "
               "to count or index them; asks and bests report labels",
               {{"parameters", "object[]", kReq,
                 "{name, type: categorical (labels, encoding: \"onehot\" | {descriptors: file.csv "
                 "| {label: [numbers]}}) | numerical (values) | integer (lower, upper, step) | "
                 "continuous (lower, upper, count: the box's grid values in the global step, "
                 "refined beyond)}"},
                {"constraints", "object[]", "[]",
                 "{type: linear (params, coefs, rhs, tol: sum coef*value <= rhs) | mixture "
                 "(params, total, tol) | exclude (when: {name: [labels or values]}) | distinct "
                 "(params: categorical slots, no label twice)}"}}});
}

}  // namespace gpb::detail
