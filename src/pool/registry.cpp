// The pool family's registry entries: its top-level keys and its acquisitions.
#include "experiment/registry_internal.hpp"

namespace gpb::detail {

void add_pool_entries(std::vector<RegistryEntry>& r) {
  const std::string req = kRequired;
  std::vector<ParamDoc> top = common_params("pool");
  const std::vector<ParamDoc> pool = {
      {"domain", "object", req, "fingerprint candidates: molecules | fingerprints"},
      {"objective", "object", req, "the value of each candidate: lookup"},
      {"kernel", "object", "tanimoto (bits) / minmax (counts)",
       "{\"type\": \"tanimoto\" | \"minmax\", \"variance\": 1 (> 0; the fit's value replaces it)}"},
      {"fit", "string", "\"initial\"",
       "initial | every_batch | none: output scale and noise by marginal likelihood on the "
       "initial batch (then fixed), refitted before every batch (V rebuilt: O(t^2 N)), or "
       "kernel.variance and noise_variance as given"},
      {"noise_variance", "number", "0.01", "noise variance lambda when fit is none (> 0)"},
      {"init", "number", "0.01", "random initial evaluations: a fraction (< 1) or a count"},
      {"batch", "number", "0.01", "evaluations per batch: a fraction (< 1) or a count"},
      {"batches", "integer", "5", "acquisition batches after the initial one (>= 1)"},
      {"top_k", "integer", "1% of N", "k of the metrics: the true top-k rewards"},
      {"subset", "integer", "0", "a random subset of this many candidates (0 = all)"},
      {"subset_seed", "integer", "0", "seed of the subset draw"},
      {"policies", "array", req, "non-empty list of acquisitions; labels must be unique"}};
  top.insert(top.end(), pool.begin(), pool.end());
  r.push_back({"experiment", "pool",
               "Top-level keys of a pool config (\"experiment\": \"pool\"; MolPAL's protocol)",
               top});
  const ParamDoc label{"label", "string", "type", "name in outputs (unique)"};
  r.push_back({"acquisition", "greedy", "the q best posterior means", {label}});
  r.push_back({"acquisition",
               "ucb",
               "the q best mu + beta * sigma",
               {label, {"beta", "number", "2", "width (>= 0)"}}});
  r.push_back({"acquisition",
               "thompson",
               "q pathwise posterior draws over every candidate, the best new candidate of each",
               {label,
                {"prior", "string", "\"auto\"",
                 "exact (N x N Cholesky) | features (MinHash: tanimoto or minmax) | auto "
                 "(exact when N <= exact_limit)"},
                {"features", "integer", "1024", "MinHash features of a prior draw"},
                {"exact_limit", "integer", "4096", "auto: largest N drawn exactly"}}});
  r.push_back({"acquisition",
               "gp_bucb",
               "GP-BUCB: q UCB picks, each hallucinating the earlier ones (exact batch "
               "covariance, lazy evaluations)",
               {label, {"beta", "number", "2", "width (>= 0)"}}});
  r.push_back({"acquisition", "random", "q new candidates uniformly at random", {label}});
}

}  // namespace gpb::detail
