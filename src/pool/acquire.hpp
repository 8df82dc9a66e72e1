/// @file acquire.hpp
/// Batch acquisitions over the exact posterior of a pool (internal): greedy, UCB, pathwise
/// Thompson sampling and GP-BUCB, each choosing q candidates not yet evaluated.
#pragma once

#include <Eigen/Core>

#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"
#include "pool/config.hpp"

namespace gpb::pool::detail {

/// What an acquisition sees of one run: the posterior of the centred rewards (one run), its
/// kernel and noise, the rows' candidates and centred rewards (in row order), and which
/// candidates are already evaluated.
struct RunModel {
  const Context* ctx = nullptr;
  const Library* lib = nullptr;
  const FinitePosterior* post = nullptr;
  Kernel kernel = Kernel::tanimoto();  ///< with the fitted variance
  double lambda = 0;                   ///< the fitted noise variance
  const std::vector<int>* history = nullptr;
  const std::vector<double>* centred = nullptr;
  const std::vector<unsigned char>* evaluated = nullptr;
  /// Thompson sampling with an exact prior: the Cholesky factor of K_DD, computed on first use
  /// and kept for the run's later batches (the kernel is fixed within a run).
  Eigen::MatrixXd* prior_factor = nullptr;
};

/// The q candidates of largest score among those not evaluated, best first (ties: lower index).
std::vector<int> top_q(const double* score, const std::vector<unsigned char>& evaluated, int q);

/// q joint posterior draws over every candidate (N × q), pathwise: f₀ + Vᵀ L⁻¹(y − f₀(X) − ε)
/// with f₀ from prior_draws (exact or MinHash features, by `spec`). Thompson sampling's draws.
Eigen::MatrixXd posterior_draws(const AcquisitionSpec& spec, const RunModel& m, int q, Rng& rng);

/// q new candidates chosen by `spec` (not random: the random policy needs no model).
/// - greedy: top_q of μ; ucb: top_q of μ + β σ.
/// - thompson: q draws f = f₀ + K(D, X)(K + λI)⁻¹(y − f₀(X) − ε) over every candidate (f₀ a prior
///   draw: exact by Cholesky, or √v·Φw with MinHash features Φ), one GEMM for all q (apply_rows);
///   draw j takes its best candidate not evaluated nor taken by an earlier draw.
/// - gp_bucb: q picks of μ + β σ_P, σ_P the variance given the earlier picks as pending points
///   (exact: σ²_P(a) = σ²(a) − ‖L_P⁻¹ Σ(P, a)‖² with the posterior covariance Σ from the stored
///   rows), evaluated lazily: scores only fall as P grows, so a candidate whose stale score is
///   below the best fresh one is not recomputed (the same picks as recomputing every score).
///   A recomputed candidate keeps its stored rows and its entries of L_P⁻¹ Σ(P, a), so that
///   recomputing it again after more picks only adds the entries of those picks: O(t + |P|)
///   per new pick, instead of O(|P|·t + |P|²) for all of them each time.
std::vector<int> acquire(const AcquisitionSpec& spec, const RunModel& m, int q, Rng& rng);

}  // namespace gpb::pool::detail
