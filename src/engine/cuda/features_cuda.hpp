/// @file features_cuda.hpp
/// CUDA implementations of the feature-map ops (internal; src/engine/features.cpp dispatches here
/// on Backend::Cuda in CUDA builds). Same contracts as the CPU versions in cpu/features_cpu.hpp.
#pragma once

#include "gpbandit/engine/features.hpp"

namespace gpb::cuda {

/// NYS: the dictionary is drawn on the host from `rng` exactly as on the CPU; K[D,D] and K[D,:]
/// come from the kernel-matrix kernel, the eigen-decomposition of K[D,D] from cuSOLVER DSYEVD,
/// W = Q diag(w) Qᵀ and Φ = W·K[D,:] from cuBLAS (chunked over candidates). Inputs validated.
NystromEmbedding nystrom_embedding(const Context& ctx, const Kernel& kernel, const Domain& domain,
                                   const std::vector<int>& candidates, const Eigen::VectorXd& s2,
                                   double q, Rng& rng, double tau);

/// APX: Ṽ = λI + Φ diag(w) Φᵀ by cuBLAS DSYRK accumulated over column chunks of Φ, DSYEVD, the
/// spectral inverse root and inverse, and G = Ṽ^{−1/2}Φ by cuBLAS chunk by chunk; σ̃² on the host
/// from Φ and G. Device memory: two m×chunk blocks (detail::column_chunk with the Context's
/// budget) and a few m×m ones, whatever N. Inputs validated, dictionary not empty.
ApproxPosterior approx_posterior(const Context& ctx, const NystromEmbedding& emb,
                                 const Eigen::VectorXd& weights, const Eigen::VectorXd& kdiag,
                                 double lambda);

}  // namespace gpb::cuda
