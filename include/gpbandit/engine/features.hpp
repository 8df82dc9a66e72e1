/// @file features.hpp
/// Feature-map engine ops: Nyström embedding with ridge-leverage dictionary sampling and the
/// approximate (DTC) posterior built on it (specs/ldp-bo.md §3.2–3.3).
#pragma once

#include <Eigen/Core>

#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/rng.hpp"

namespace gpb {

/// Φ (m×N, column a = φ̃(a)) over the dictionary D (m candidate indices, ascending).
struct NystromEmbedding {
  /// The m dictionary candidate indices, ascending.
  std::vector<int> dictionary;
  Eigen::MatrixXd phi;  ///< m×N column-major; empty (0×N) when the dictionary is empty
};

/// NYS(P, s2, q): keeps candidate a ∈ P with probability min(q·s2[a], 1) (one draw u_a from
/// `rng` per member of P in ascending order, drawn even when the probability is 1), then
/// Φ = (K_DD^{1/2})^† K[D,:] via an eigen-decomposition of K_DD with eigenvalues ≤ τ·max
/// dropped. O(|P| + m³ + m²N + m·N·d).
/// @throws InvalidArgument if P is not ascending and distinct, an index is out of range, q ≤ 0.
NystromEmbedding nystrom_embedding(const Context& ctx, const Kernel& kernel, const Domain& domain,
                                   const std::vector<int>& candidates, const Eigen::VectorXd& s2,
                                   double q, Rng& rng, double tau = 1e-10);

/// APX(Φ, w): Ṽ = λI + Σ_a w_a φ̃_a φ̃_aᵀ, its symmetric inverse root and inverse by an
/// eigen-decomposition, G = Ṽ^{−1/2}Φ, σ̃²(a) = max(k(a,a) − ‖φ̃_a‖² + λ‖G[:,a]‖², 0).
struct ApproxPosterior {
  Eigen::MatrixXd v_inv_sqrt;  ///< m×m, Ṽ^{−1/2} (symmetric root, not a Cholesky factor)
  Eigen::MatrixXd v_inv;       ///< m×m, Ṽ^{−1}
  Eigen::MatrixXd g;           ///< m×N, Ṽ^{−1/2}Φ
  Eigen::VectorXd variance;    ///< N, σ̃²
};

/// APX(Φ, w) of the Nyström embedding `emb` (see ApproxPosterior).
/// @param ctx backend of the computation.
/// @param emb the embedding Φ (m×N).
/// @param weights per-candidate weights w_a ≥ 0 (length N).
/// @param kdiag k(a,a) for every candidate (length N).
/// @param lambda the ridge λ > 0.
/// With an empty embedding returns m = 0 matrices and σ̃² = kdiag. O(m²N + m³).
ApproxPosterior approx_posterior(const Context& ctx, const NystromEmbedding& emb,
                                 const Eigen::VectorXd& weights, const Eigen::VectorXd& kdiag,
                                 double lambda);

}  // namespace gpb
