// The DP-GIBO family's entries of the registry: its top-level keys, tasks and methods.
#include "experiment/registry_internal.hpp"

namespace gpb::detail {

namespace {

const std::string kReq = kRequired;

}  // namespace

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
             {"eval_noise", "string", "\"per_user\"",
              "per_user | shared_per_point (one draw per point, added to every user's loss)"},
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

}  // namespace gpb::detail
