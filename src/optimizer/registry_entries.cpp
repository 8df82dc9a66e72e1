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
       "variance) | linear | polynomial (variance, offset, degree)"},
      {"noise_variance", "number", "0.01", "Gaussian noise variance of the surrogate (> 0)"},
      {"acquisition", "object", R"({"type":"ucb"})", "the acquisition rule (acquisition entries)"},
      {"goal", "string", "\"maximize\"", "maximize | minimize"},
      {"initial_points", "integer", "0", "the first asks are uniform random (>= 0)"},
      {"distinct", "boolean", "true", "never ask again a candidate asked and not yet told"},
      {"tie_break", "string", "\"random\"", "random | lowest: exact argmax ties"},
      {"seed", "integer", "0", "master seed of tie-breaks, draws and fits"},
      {"capacity", "integer", "256", "posterior rows reserved up front (>= 1; grows as needed)"},
      {"fit", "object", "{}", "marginal-likelihood hyperparameter fitting (optimizer_fit)"},
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
                {"timeout_s", "number", "0", "seconds an evaluation may take (0 = no limit)"}}});
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
               "expected improvement over the best posterior mean observed",
               {{"xi", "number", "0", "improvement threshold (>= 0, units of y)"}}});
  r.push_back({"acquisition", "random", "uniform over the candidates (a baseline)", {}});
  r.push_back({"optimizer_fit",
               "fit",
               "Marginal-likelihood fitting of the kernel",
               {{"every", "integer", "0", "refit after every k observations (0: only when asked)"},
                {"min_observations", "integer", "5", "automatic refits start here (>= 2)"},
                {"ard", "boolean", "true", "one lengthscale per axis"},
                {"restarts", "integer", "5", "random L-BFGS-B starts besides the default"},
                {"max_rows", "integer", "2000", "observations a fit uses (a seeded subsample)"},
                {"normalize", "boolean", "true", "standardise y at each fit"}}});
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
}

}  // namespace gpb::detail
