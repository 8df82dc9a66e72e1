// The registry's table of config keys shared by every family, and the keys of the DP-GIBO and
// X-armed families (their tasks, objectives and methods). registry.cpp holds the finite-domain
// family's policies, objectives, kernels, noise models and domains; together they are the one
// table behind the config validator and `gpbandit list`.
#include "experiment/registry_internal.hpp"

namespace gpb::detail {

namespace {

const std::string kReq = kRequired;

std::vector<ParamDoc> with(std::vector<ParamDoc> a, const std::vector<ParamDoc>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

std::vector<ParamDoc> common_params(const std::string& family) {
  const bool finite = family == "finite";
  std::vector<ParamDoc> p = {
      {"experiment", "string", "\"finite\"", "family: finite | dp-gibo | fed-pne"},
      {"name", "string", "file stem", "output folder name, [A-Za-z0-9._-]+"},
      {"description", "string", "\"\"", "free text, ignored"},
      {"seed", "integer", "0", "master seed of every simulation stream, in [0, 2^64 - 1]"},
      {"runs", "integer", finite || family == "fed-pne" ? "10" : "3",
       "independent runs per policy (>= 1)"},
      {"lockstep", "integer", "0",
       "runs advanced together (a checkpoint after each group); 0 = as many as fit the memory "
       "budget and about 2 minutes of work"},
      {"threads", "integer", "0",
       "CPU threads, 0 = the idle cores (minus the load average and the threads of other gpbandit "
       "runs)"}};
  if (family != "fed-pne") {
    p.push_back({"backend", "string", finite ? "\"auto\"" : "\"cpu\"", "auto | cpu | cuda"});
  }
  if (finite) {
    p.push_back({"memory_budget_mb", "number", "auto",
                 "engine budget for the posterior buffers (> 0): V = R·N·T·8 B for R runs in "
                 "lockstep; larger groups are split, and one run over it uses recompute mode; "
                 "auto: 4096 on the CPU, 75% of the free device memory on CUDA"});
  }
  p.push_back({"privacy_noise", "string", "\"secure\"",
               "secure | seeded: source of privacy noise; seeded = reproducible simulation, NOT "
               "private (summary.json says so)"});
  return p;
}

void add_dpgibo_entries(std::vector<RegistryEntry>& r) {
  r.push_back(
      {"experiment", "dp-gibo",
       "Top-level keys of a DP-GIBO config (\"experiment\": \"dp-gibo\"; specs/dp-gibo.md)",
       with(common_params("dp-gibo"),
            {{"privacy_budget_mu", "number", "none",
              "a private method asking for mu above it refuses to start (> 0)"},
             {"report_eps", "number[]", "[1, 2]", "ledger: delta(eps) for these eps"},
             {"report_delta", "number[]", "[1/n]", "ledger: eps(delta) for these delta"},
             {"eval_noise_sd", "number", "0", "sigma: N(0, sigma^2) per (point, user) loss"},
             {"theta0", "string|number[]", "\"zero\"", "zero | uniform | d numbers"},
             {"task", "object", kReq, "the task (see dp-gibo tasks)"},
             {"methods", "array", kReq, "non-empty list of methods; labels unique"}})});
  const std::vector<ParamDoc> box = {{"d", "integer", kReq, "dimension (>= 1)"},
                                     {"n", "integer", kReq, "users (>= 1)"},
                                     {"lower", "number", "-3", "box lower bound"},
                                     {"upper", "number", "3", "box upper bound (> lower)"}};
  r.push_back({"dpgibo_task", "normal_location", "x_i ~ N(centre·1, spread²·I), L = ½|θ − x_i|²",
               with(box, {{"centre", "number", "1", "mean of the records"},
                          {"spread", "number", "1", "sd of the records"}})});
  r.push_back({"dpgibo_task", "huber", "weighted Huber regression (E-DP7)",
               with(box, {{"c", "number", "1", "Huber threshold"}})});
  r.push_back({"dpgibo_task",
               "gp_lengthscale",
               "GP-regression lengthscale tuning (GP-LS-d)",
               {{"d", "integer", kReq, "dimension (>= 1)"},
                {"n", "integer", kReq, "users = validation points (>= 1)"},
                {"n_train", "integer", "1000", "training points (>= 1)"},
                {"input_range", "string|number", "\"scaled\"",
                 "inputs U[0, L]^d: \"scaled\" = sqrt(15/d) (spec §8) or L > 0 (1: unit cube)"}}});
  r.push_back({"dpgibo_task",
               "svr_friedman",
               "SVR tuning on Friedman #1 (E-DP5; libsvm), d = p + 3",
               {{"p", "integer", kReq, "input dimension (>= 5)"},
                {"n", "integer", kReq, "users = validation points (>= 1)"},
                {"n_train", "integer", "1000", "training points (>= 1)"}}});
  const std::vector<ParamDoc> label = {
      {"label", "string", "type", "name in outputs (unique)"},
      {"eval_noise_sd", "number", "config's", "sigma of this method (>= 0)"}};
  const std::vector<ParamDoc> steps = {
      {"mu", "number|\"inf\"", "(required when private)", "GDP level (> 0); not for gibo, gd"},
      {"B", "number", "1", "clipping norm (> 0)"},
      {"T", "integer", "25", "iterations (>= 1)"},
      {"step", "string", "\"adagrad\" (gd: \"gd\")", "adagrad | gd | normalized (not dp_gd, gd)"},
      {"eta", "number", "0.3 (gd: 0.1)", "step size (> 0)"},
      {"clip", "boolean", "true (gd: false)",
       "clip per-user gradients (false only with mu = inf)"}};
  const std::vector<ParamDoc> gibo = with(
      steps, {{"b", "integer", "0", "points per iteration, fixed (<= 2d); 0 = adaptive"},
              {"eps_bias", "number", "0.5", "trace tolerance of the adaptive rule (> 0)"},
              {"b_max", "integer", "2d", "cap of the adaptive rule (<= 2d)"},
              {"acq", "string", "\"greedy\"",
               "greedy | axis | joint (A1, then block-coordinate sweeps of the whole design)"},
              {"sweeps", "integer", "3", "block-coordinate sweeps of acq = joint (>= 1)"},
              {"n_cand", "integer", "256", "random candidates per greedy step (>= 1)"},
              {"pool", "string", "\"per_step\"", "per_step | once: candidate pool redraws"},
              {"n_restart", "integer", "4", "gradient refinements of the best candidates"},
              {"n_steps", "integer", "20", "steps of each refinement"},
              {"theta_in_batch", "boolean", "false", "evaluate theta itself in every batch"},
              {"eta_units", "string", "\"absolute\"", "absolute | lengthscale"},
              {"history", "string", "\"all\"", "all | nearest: observations the GP keeps"},
              {"history_k", "integer", "(with history nearest)", "nearest observations kept"},
              {"kernel", "string", "\"se\"",
               "se | polynomial: v·(x'z + offset)^degree (variance = v; no lengthscale)"},
              {"degree", "integer", "2", "polynomial degree (>= 1; weight_space: 2)"},
              {"offset", "number", "1", "polynomial offset (>= 0)"},
              {"poly_impl", "string", "\"weight_space\"",
               "weight_space (degree 2) | function_space: how the polynomial GP is computed"},
              {"r_box", "number", "lengthscale (polynomial: 1)",
               "half-width of the design box around theta (> 0)"},
              {"lengthscale", "number|number[]", "1", "SE lengthscale, or d of them (ARD)"},
              {"variance", "number", "1", "kernel signal variance (> 0)"},
              {"sigma2", "number", "0.0025", "evaluation-noise variance the GP assumes (>= 0)"},
              {"jitter", "number", "1e-9", "Cholesky jitter (x variance)"}});
  r.push_back({"dpgibo_method", "dp_gibo", "DP-GIBO (Algorithm 1): mu-GDP local search",
               with(label, gibo)});
  r.push_back({"dpgibo_method", "gibo", "GIBO: DP-GIBO without privacy noise (mu = inf)",
               with(label, gibo)});
  r.push_back({"dpgibo_method", "dp_gd",
               "DP-GD on true per-user gradients (huber, normal_location)", with(label, steps)});
  r.push_back({"dpgibo_method", "gd", "GD on true per-user gradients", with(label, steps)});
  const std::vector<ParamDoc> budget = {
      {"evaluations", "integer", "(one of evaluations, match)", "evaluations per run (>= 1)"},
      {"match", "string", "(one of evaluations, match)",
       "label of an earlier method whose evaluations per run are matched"}};
  r.push_back(
      {"dpgibo_method", "random_search", "uniform random points of the box", with(label, budget)});
  r.push_back({"dpgibo_method", "ucb_bo", "global GP-UCB minimising the mean loss (reference)",
               with(with(label, budget),
                    {{"n_cand", "integer", "512", "uniform candidates per step (>= 1)"},
                     {"beta_width", "number", "2", "sqrt(beta), constant (>= 0)"},
                     {"lengthscale", "number", "1", "SE lengthscale (> 0)"},
                     {"variance", "number", "1", "SE signal variance (> 0)"}})});
}

void add_xarmed_entries(std::vector<RegistryEntry>& r) {
  r.push_back(
      {"experiment", "fed-pne",
       "Top-level keys of an X-armed config (\"experiment\": \"fed-pne\"; specs/fed-pne.md)",
       with(common_params("fed-pne"),
            {{"comment", "string", "\"\"", "free text, ignored"},
             {"horizon", "integer", "1000", "rounds T per run, in [1, 1e8]"},
             {"clients", "integer", "10", "clients M (>= 1)"},
             {"noise", "number", "0.1", "observation noise U(-noise, noise) (>= 0)"},
             {"partition_seed", "integer", "0", "seed of the partition's split axes"},
             {"mpi_timeout_s", "number", "120", "seconds the MPI server waits for a rank (> 0)"},
             {"objective", "object", kReq, "the objective (see fed-pne objectives)"},
             {"methods", "array", kReq, "non-empty list of methods; labels unique"}})});
  r.push_back({"xarmed_objective",
               "objective",
               "garland | doublesine | himmelblau | linear | seir | landmine_svm | "
               "digits_classifier",
               {{"type", "string", kReq, "the function"},
                {"perturbed", "boolean", "false", "f_m = g + xi_m per (run, client)"},
                {"slope", "number", "1", "linear: f(x) = 1 - slope·|x - peak|"},
                {"peak", "number", "0.3141592653589793", "linear: location of the maximum"},
                {"shift", "number", "0", "added to g and every f_m"},
                {"fstar", "string", "\"exact\"", "exact | pyxab (Garland f* = 1)"}}});
  const std::vector<ParamDoc> tree = {
      {"label", "string", "type", "name in outputs (unique)"},
      {"k", "integer", "2", "branching factor, in [2, 16]"},
      {"nu", "number", "1", "smoothness nu_1 (> 0)"},
      {"c", "number", "0.1", "confidence constant (> 0)"},
      {"c1", "number", "1", "constant inside ln(c1 T / delta) (> 0)"}};
  const std::vector<ParamDoc> pne = with(
      tree, {{"rho", "number", "0.5", "smoothness rate, in (0, 1)"},
             {"delta_conf", "number", "1/M", "confidence delta, in (0, 1)"},
             {"depth_offset", "integer", "0", "0 | 1 (the literal depth counter of Alg. 2)"},
             {"preset", "string", "\"practical\"", "practical | theory (c = 2, c1 = (2M)^(1/8))"},
             {"order", "string", "\"node_major\"", "node_major | round_robin pulls"},
             {"pull_point", "string", "\"centre\"", "centre | uniform point of a node"}});
  r.push_back({"xarmed_method", "fed-pne", "Fed-PNE (Li et al., AAAI 2024)", pne});
  r.push_back({"xarmed_method", "dp-fed-pne", "DP-Fed-PNE (App. D): Gaussian noise per reward",
               with(pne, {{"dp_epsilon", "number", "1", "epsilon of each reward (> 0)"},
                          {"dp_delta", "number", "0.01", "delta, in (0, 1)"},
                          {"dp_affine", "number[]", "[1, 0]", "[scale, shift] before clamping"}})});
  r.push_back({"xarmed_method", "hct", "HCT (Azar et al. 2014), centralised",
               with(tree, {{"rho", "number", "0.75", "smoothness rate, in (0, 1)"},
                           {"delta", "number", "0.01", "confidence, in (0, 1)"},
                           {"reexpand", "string", "\"keep\"",
                            "keep | rebuild (PyXAB 0.3.0: children replaced at tau_h)"}})});
  r.push_back({"xarmed_method",
               "fed1-ucb",
               "Fed1-UCB on a mesh",
               {{"label", "string", "type", "name in outputs (unique)"},
                {"mesh", "integer", "100", "arms per axis (>= 2)"},
                {"kappa", "number", "1", "pulls per arm per phase floor(kappa ln T) (> 0)"}}});
  r.push_back({"xarmed_method",
               "gp-ucb",
               "GP-UCB on the Fed1-UCB mesh (centralised)",
               {{"label", "string", "type", "name in outputs (unique)"},
                {"mesh", "integer", "100", "arms per axis (>= 2)"},
                {"lengthscale", "number", "1", "lengthscale on [0,1]^D (> 0)"},
                {"noise_variance", "number", "0.001", "noise variance (> 0)"},
                {"delta", "number", "0.1", "delta of the Srinivas beta, in (0, 1)"},
                {"kernel", "string", "\"laplace\"", "laplace | se"}}});
  r.push_back({"xarmed_method",
               "random",
               "uniform random points",
               {{"label", "string", "type", "name in outputs (unique)"}}});
}

}  // namespace gpb::detail
