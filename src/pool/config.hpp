/// @file config.hpp
/// The pool family's config (internal): pool-based batch Bayesian optimisation over a finite
/// library as MolPAL runs it (Graff, Shakhnovich & Coley, Chem. Sci. 2021): a random initial
/// batch, then batches chosen by an acquisition on the exact GP posterior over every candidate,
/// scored by the fraction of the library's top-k found (docs/pools.md).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "experiment/config_checker.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/experiment/experiment.hpp"

namespace gpb::pool::detail {

/// One acquisition of the config's "policies".
struct AcquisitionSpec {
  std::string type;            ///< greedy | ucb | thompson | gp_bucb | random
  std::string label;           ///< unique name in the outputs
  double beta = 2.0;           ///< ucb, gp_bucb: μ + β·σ
  int features = 1024;         ///< thompson: MinHash features of a prior draw (prior "features")
  std::string prior = "auto";  ///< thompson: exact | features | auto (exact when N ≤ exact_limit)
  long long exact_limit = 4096;  ///< thompson auto: largest N drawn exactly (N×N Cholesky)
};

/// The library: candidates, their rewards (larger is better) and the metric's top k.
struct Library {
  Domain domain = Domain::indices(1);
  std::vector<double> reward;      ///< one per candidate (the looked-up value, negated to minimise)
  std::vector<long long> rows;     ///< the library's data row of each candidate (subsets)
  std::vector<unsigned char> top;  ///< 1 for the true top k (by reward, ties by row order)
  std::vector<double> top_values;  ///< the k best rewards, descending (the "scores" metric)
  int k = 0;
};

/// A validated pool config.
struct Config {
  ExperimentSettings settings;
  std::shared_ptr<const Library> library;
  Kernel kernel = Kernel::tanimoto();  ///< shape (its variance is the fit's start or fixed value)
  std::string fit = "initial";         ///< initial | every_batch | none
  double noise_variance = 0.01;        ///< λ when fit is none
  int n_init = 1;                      ///< random initial evaluations
  int batch = 1;                       ///< q, evaluations per batch
  int batches = 5;                     ///< acquisition batches after the initial one
  std::vector<AcquisitionSpec> policies;
  /// Evaluations per run: n_init + batches·q.
  int evaluations() const { return n_init + batches * batch; }
};

/// Reads and validates a pool config (top-level keys already checked by read_settings).
/// @throws InvalidArgument "<source>: <field>: <what>".
Config parse_config(const gpb::detail::Checker& c, const nlohmann::json& root,
                    ExperimentSettings settings);

/// The MolPAL metrics of an acquired set: the "scores" fraction (the multiset of the k best
/// acquired rewards met with the true top-k rewards, as MolPAL's analysis counts ties) and the
/// "molecules" fraction (acquired true top-k candidates / k).
struct FoundFractions {
  double scores = 0;
  double molecules = 0;
  double best = 0;  ///< best reward acquired
};
/// @param acquired candidate indices (distinct).
FoundFractions found_fractions(const Library& lib, const std::vector<int>& acquired);

}  // namespace gpb::pool::detail
