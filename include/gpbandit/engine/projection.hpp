/// @file projection.hpp
/// Random projections and small spectral decompositions (DESIGN §2, the PO-GP-UCB curator of
/// specs/po-gp-ucb.md §4): counter-based Gaussian matrices, Z = scale·X M, and the singular values
/// and right singular vectors of a tall data matrix. Every op takes the Context first and runs on
/// its backend (CPU: Eigen; CUDA: Philox kernel, cuBLAS DGEMM/DSYRK, cuSOLVER DSYEVD). Inputs and
/// outputs are host memory, column-major.
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpbandit/engine/context.hpp"

namespace gpb {

/// Draws start, start+1, …, start+count−1 of stream (seed, run, stream) as Rng::uniform() returns
/// them (open interval (0, 1)). CPU and CUDA results are bit-identical. O(count).
std::vector<double> random_uniform(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                                   std::uint32_t stream, std::uint64_t start, std::size_t count);

/// `count` standard normals as successive Rng(seed, run, stream, start).normal() calls return them
/// (Box–Muller, two draws each: element i uses draws start+2i and start+2i+1). The uniforms are
/// bit-identical on both backends; on CUDA, log and cos come from the CUDA math library, so a
/// normal may differ from the CPU's in its last bits (relative difference ≲ 1e-15). O(count).
std::vector<double> random_normal(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                                  std::uint32_t stream, std::uint64_t start, std::size_t count);

/// A rows×cols matrix of i.i.d. N(0, 1) entries, column-major: entry (i, k) is normal number
/// k·rows + i of stream (seed, run, stream) (i.e. random_normal(…, 0, rows·cols) reshaped).
/// @throws InvalidArgument if rows < 0 or cols < 0.
Eigen::MatrixXd gaussian_matrix(const Context& ctx, int rows, int cols, std::uint64_t seed,
                                std::uint32_t run, std::uint32_t stream);

/// Z = scale · X M for X n×d (one row per point, as in the curator's X ∈ ℝ^{n×d}) and M d×r.
/// Returns n×r. O(n·d·r) (cuBLAS DGEMM on CUDA).
/// @throws InvalidArgument if X.cols() ≠ M.rows() or scale is not finite.
Eigen::MatrixXd project(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                        const Eigen::Ref<const Eigen::MatrixXd>& M, double scale);

/// Algorithm 1's projection step: M = gaussian_matrix(d, r, seed, run, stream) and
/// Z = r^{-1/2} X M.
struct RandomProjection {
  Eigen::MatrixXd m;  ///< d×r Gaussian matrix
  Eigen::MatrixXd z;  ///< n×r projected rows
};
/// @throws InvalidArgument if r < 1 or X is empty. O(n·d·r + d·r).
RandomProjection random_projection(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                                   int r, std::uint64_t seed, std::uint32_t run,
                                   std::uint32_t stream);

/// Thin singular spectrum of X (n×d): X = U diag(s) Vᵀ with s₁ ≥ … ≥ s_p ≥ 0, p = min(n, d).
/// Computed from the eigen-decomposition of the d×d Gram matrix XᵀX (the curator's small-d
/// route, specs/po-gp-ucb.md §4 line 3): s_k = √max(λ_k, 0). The absolute error of s_k² is about
/// ε·s₁², so singular values far below ε^{1/2}·s₁ are not resolved (the σ_min test compares s_p
/// with ω; a warning threshold of 1e-12·s₁ on s_p is therefore at the limit of this route).
struct SingularSpectrum {
  Eigen::VectorXd values;  ///< s, length p, descending
  Eigen::MatrixXd right;   ///< V, d×p, orthonormal columns (each column's sign is arbitrary)
};
/// @throws InvalidArgument if X is empty or not finite; NumericalError if the eigensolver fails.
/// O(n·d² + d³) (cuBLAS DSYRK + cuSOLVER DSYEVD on CUDA).
SingularSpectrum singular_spectrum(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X);

}  // namespace gpb
