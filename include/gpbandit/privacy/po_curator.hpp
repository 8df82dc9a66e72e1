/// @file po_curator.hpp
/// The curator of the PO-GP-UCB transform (Kharkovskii et al. 2020, Algorithm 1;
/// specs/po-gp-ucb.md §4, §6): centre X, lift its singular values when σ_min(X) < ω, and release
/// Z = r^{-1/2} X̃ M for a d×r Gaussian M.
///
/// **What holds and what does not.** Z preserves pairwise distances up to the Johnson–Lindenstrauss
/// distortion (Lemma 1) and, in the ELSE branch, the deterministic inflation
/// √(1 + ω²/σ_min²) (Lemma 7). The paper's privacy theorem (Theorem 1) does NOT hold when n > d,
/// i.e. for every realistic domain: row i of Z depends only on row i of X and on one shared d×r
/// matrix, so an adversary who knows Z, the index i* and d+1 other rows of X recovers row i*
/// exactly (specs/po-gp-ucb.md §12; test `PoReconstruction.*` in tests/test_po_gp_ucb.cpp). The
/// choice of r and of the branch also depends on σ_min(X), which Theorem 1 does not account for.
/// `epsilon` and `delta` below are therefore only "the paper's parameters that set ω"; nothing
/// here protects the rows of X.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <string>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/privacy/noise_source.hpp"

namespace gpb::privacy {

/// How ω (Algorithm 1, line 5) is read (spec D1). Logarithms are natural.
enum class OmegaForm {
  SqrtRLog,  ///< ω = 16·√(r·ln(2/δ))·ln(16r/δ)/ε (default; the proof's per-column budget)
  Literal,   ///< ω = 16·√r·ln(2/δ)·ln(16r/δ)/ε (the paper's printed line 5)
};

/// Which branch of Algorithm 1 produced Z.
enum class CuratorBranch {
  If,    ///< σ_min ≥ ω: Z = X_c M/√r
  Else,  ///< σ_min < ω: Z = X̃ M/√r with X̃'s singular values lifted to √(s_k² + ω²)
};

/// "IF" or "ELSE".
std::string to_string(CuratorBranch branch);

/// ω(r, ε, δ) of Algorithm 1, line 5.
/// @throws InvalidArgument naming `r`, `epsilon` or `delta` (r < 1, ε ≤ 0 or not finite,
/// δ ∉ (0, 1)).
double po_omega(int r, double epsilon, double delta, OmegaForm form = OmegaForm::SqrtRLog);

/// The spec's rule for r (§6, paper §3.4): the largest r ∈ [1, r_limit] with ω(r) ≤ σ_min, found
/// by a linear scan (ω increases with r). Returns 1 when even r = 1 fails (the ELSE branch then
/// applies). Note that this r depends on the data. @throws InvalidArgument as po_omega, or if
/// r_limit < 1 or σ_min < 0.
int po_max_r(double sigma_min, double epsilon, double delta, int r_limit,
             OmegaForm form = OmegaForm::SqrtRLog);

/// Parameters of the curator.
struct PoCuratorOptions {
  double epsilon = 1.0;  ///< the paper's ε (sets ω; > 0)
  double delta = 1e-5;   ///< the paper's δ (sets ω; in (0, 1))
  int r = 0;             ///< projection dimension, 1 ≤ r ≤ n; 0 = auto (po_max_r, capped at n)
  /// How ω is computed from r, ε, δ.
  OmegaForm omega_form = OmegaForm::SqrtRLog;
};

/// The curator's output.
struct PoRelease {
  Eigen::MatrixXd z;     ///< n×r released rows, in X's row order
  Eigen::MatrixXd m;     ///< the d×r Gaussian matrix used (kept for tests and simulation)
  int r = 0;             ///< the projection dimension used
  double omega = 0;      ///< ω
  double sigma_min = 0;  ///< smallest singular value of the centred X
  /// Which branch of Algorithm 1 ran.
  CuratorBranch branch = CuratorBranch::If;
};

/// Centres X (subtracts the column means). Returns n×d.
Eigen::MatrixXd centre_rows(const Eigen::Ref<const Eigen::MatrixXd>& X);

/// Algorithm 1, line 9: X̃ = U diag(√(s_k² + ω²)) Vᵀ for the centred X_c = U diag(s) Vᵀ, computed
/// as X_c · V diag(√(1 + ω²/s_k²)) Vᵀ (all s_k > 0 required). Only the p = min(n, d) singular
/// values are lifted: X̃ᵀX̃ = X_cᵀX_c + ω²I_d, but X̃X̃ᵀ ≠ X_cX_cᵀ + ω²I_n when n > d.
/// @throws InvalidArgument if X_c is rank-deficient (s_p ≤ 1e-7·s_1) or ω is not finite.
Eigen::MatrixXd po_lift(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X_c,
                        double omega);

/// Algorithm 1 with a given d×r Gaussian matrix M (r = M.cols(); options.r is ignored):
/// centre, test σ_min ≥ ω, lift if not, Z = r^{-1/2} X̃ M through gpb::project.
/// @throws InvalidArgument naming the field: `r` (< 1 or > n), `epsilon`, `delta`, `X` (empty,
/// not finite, or rank-deficient after centring: σ_min ≤ 1e-7·σ_1, where the Gram-matrix
/// spectrum stops resolving; the ELSE branch would then depend on an arbitrary null-space basis),
/// `M` (rows ≠ d). O(n·d² + n·d·r).
PoRelease po_curate_with_matrix(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                                const Eigen::Ref<const Eigen::MatrixXd>& M, double epsilon,
                                double delta, OmegaForm form = OmegaForm::SqrtRLog);

/// Algorithm 1 with M drawn from `source` (Box–Muller on its uniforms; use make_secure_source()
/// in a real deployment). r = options.r, or po_max_r(σ_min, …, n) when options.r = 0.
/// @throws InvalidArgument as po_curate_with_matrix.
PoRelease po_curate(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                    const PoCuratorOptions& options, NoiseSource& source);

/// Algorithm 1 for simulation: M = gaussian_matrix(d, r, seed, run, stream) from the counter-based
/// RNG, so a fresh M per run, and M for r is the first r columns of M for any larger r (nested
/// across r, shared across ε within a run: spec §4, common random numbers).
/// @throws InvalidArgument as po_curate_with_matrix.
PoRelease po_curate_seeded(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                           const PoCuratorOptions& options, std::uint64_t seed, std::uint32_t run,
                           std::uint32_t stream);

}  // namespace gpb::privacy
