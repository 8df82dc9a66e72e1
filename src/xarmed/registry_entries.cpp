// The X-armed family's entries of the registry: its top-level keys, objectives and methods.
#include "experiment/registry_internal.hpp"

namespace gpb::detail {

namespace {

const std::string kReq = kRequired;

}  // namespace

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
  const std::vector<ParamDoc> gp_mesh = {
      {"label", "string", "type", "name in outputs (unique)"},
      {"mesh", "integer", "100", "arms per axis (>= 2)"},
      {"lengthscale", "number", "1", "lengthscale on [0,1]^D (> 0)"},
      {"noise_variance", "number", "0.001", "noise variance (> 0)"},
      {"kernel", "string", "\"laplace\"", "laplace | se"}};
  r.push_back(
      {"xarmed_method", "gp-ucb", "GP-UCB on the Fed1-UCB mesh (centralised)",
       with(gp_mesh, {{"delta", "number", "0.1", "delta of the Srinivas beta, in (0, 1)"}})});
  r.push_back({"xarmed_method", "gp-ts",
               "GP Thompson sampling on the Fed1-UCB mesh (centralised; per-arm independent draws "
               "N(mu, (nu sigma)^2), as the NeuralTS code's KernelTS the paper ran)",
               with(gp_mesh, {{"nu", "number", "1", "scale of the draws' sd (> 0)"}})});
  r.push_back({"xarmed_method",
               "random",
               "uniform random points",
               {{"label", "string", "type", "name in outputs (unique)"}}});
}

}  // namespace gpb::detail
