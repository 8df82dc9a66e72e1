// Public feature-map ops (Nyström embedding, approximate posterior): validate, then dispatch.
#include "gpbandit/features.hpp"

#include "gpbandit/error.hpp"

namespace gpb {

NystromEmbedding nystrom_embedding(const Context&, const Kernel&, const Domain&,
                                   const std::vector<int>&, const Eigen::VectorXd&, double, Rng&,
                                   double) {
  throw Error("nystrom_embedding: not implemented yet");
}

ApproxPosterior approx_posterior(const Context&, const NystromEmbedding&, const Eigen::VectorXd&,
                                 const Eigen::VectorXd&, double) {
  throw Error("approx_posterior: not implemented yet");
}

}  // namespace gpb
