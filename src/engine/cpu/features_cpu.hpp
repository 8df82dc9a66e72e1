/// @file features_cpu.hpp
/// CPU implementations of the feature-map ops (internal; the public entry points in
/// src/engine/features.cpp validate their inputs and dispatch here on Backend::Cpu).
#pragma once

#include "gpbandit/engine/features.hpp"

namespace gpb::detail {

/// NYS on the host (see gpb::nystrom_embedding). Inputs already validated.
NystromEmbedding nystrom_embedding_cpu(const Context& ctx, const Kernel& kernel,
                                       const Domain& domain, const std::vector<int>& candidates,
                                       const Eigen::VectorXd& s2, double q, Rng& rng, double tau);

/// APX on the host (see gpb::approx_posterior). Inputs already validated; the dictionary is not
/// empty (gpb::approx_posterior handles m = 0 itself).
ApproxPosterior approx_posterior_cpu(const NystromEmbedding& emb, const Eigen::VectorXd& weights,
                                     const Eigen::VectorXd& kdiag, double lambda);

}  // namespace gpb::detail
