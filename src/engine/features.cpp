// Public feature-map ops (Nyström embedding, approximate posterior): validate, then dispatch.
#include "gpbandit/engine/features.hpp"

#include <cmath>

#include "engine/cpu/features_cpu.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"
#if GPB_HAS_CUDA
#include "engine/cuda/features_cuda.hpp"
#endif

namespace gpb {

NystromEmbedding nystrom_embedding(const Context& ctx, const Kernel& kernel, const Domain& domain,
                                   const std::vector<int>& candidates, const Eigen::VectorXd& s2,
                                   double q, Rng& rng, double tau) {
  const int n = domain.size();
  GPB_EXPECTS(s2.size() == n, "nystrom_embedding: s2 has length "
                                  << s2.size() << " but the domain has " << n << " candidates");
  GPB_EXPECTS(std::isfinite(q) && q > 0, "nystrom_embedding: q must be positive, got " << q);
  GPB_EXPECTS(std::isfinite(tau) && tau >= 0 && tau < 1,
              "nystrom_embedding: tau must be in [0, 1), got " << tau);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const int a = candidates[i];
    GPB_EXPECTS(a >= 0 && a < n, "nystrom_embedding: candidates["
                                     << i << "] = " << a << " is out of range [0, " << n << ")");
    GPB_EXPECTS(i == 0 || candidates[i - 1] < a,
                "nystrom_embedding: candidates must be ascending and distinct; candidates["
                    << i - 1 << "] = " << candidates[i - 1] << ", candidates[" << i << "] = " << a);
    GPB_EXPECTS(!std::isnan(s2[a]), "nystrom_embedding: s2[" << a << "] is NaN");
  }
#if GPB_HAS_CUDA
  if (ctx.backend() == Backend::Cuda) {
    return cuda::nystrom_embedding(ctx, kernel, domain, candidates, s2, q, rng, tau);
  }
#endif
  return detail::nystrom_embedding_cpu(ctx, kernel, domain, candidates, s2, q, rng, tau);
}

ApproxPosterior approx_posterior(const Context& ctx, const NystromEmbedding& emb,
                                 const Eigen::VectorXd& weights, const Eigen::VectorXd& kdiag,
                                 double lambda) {
  const Eigen::Index m = emb.phi.rows();
  const Eigen::Index n = weights.size();
  GPB_EXPECTS(static_cast<Eigen::Index>(emb.dictionary.size()) == m,
              "approx_posterior: the dictionary has " << emb.dictionary.size()
                                                      << " entries but phi has " << m << " rows");
  GPB_EXPECTS(
      emb.phi.cols() == n || (m == 0 && emb.phi.cols() == 0),
      "approx_posterior: phi has " << emb.phi.cols() << " columns but weights has length " << n);
  GPB_EXPECTS(kdiag.size() == n, "approx_posterior: kdiag has length "
                                     << kdiag.size() << " but weights has length " << n);
  GPB_EXPECTS(std::isfinite(lambda) && lambda > 0,
              "approx_posterior: lambda must be positive, got " << lambda);
  for (Eigen::Index a = 0; a < n; ++a) {
    GPB_EXPECTS(std::isfinite(weights[a]) && weights[a] >= 0, "approx_posterior: weights["
                                                                  << a << "] = " << weights[a]
                                                                  << " must be finite and >= 0");
    GPB_EXPECTS(std::isfinite(kdiag[a]), "approx_posterior: kdiag[" << a << "] is not finite");
  }
  if (m == 0) {  // empty dictionary: the prior (spec §3.3), on every backend
    ApproxPosterior prior;
    prior.v_inv_sqrt.resize(0, 0);
    prior.v_inv.resize(0, 0);
    prior.g.resize(0, n);
    prior.variance = kdiag;
    return prior;
  }
#if GPB_HAS_CUDA
  if (ctx.backend() == Backend::Cuda)
    return cuda::approx_posterior(ctx, emb, weights, kdiag, lambda);
#endif
  (void)ctx;  // only the CUDA dispatch reads it
  return detail::approx_posterior_cpu(emb, weights, kdiag, lambda);
}

}  // namespace gpb
