// Posterior sample paths by pathwise conditioning of a prior draw (see thompson.hpp).
#include "optimizer/thompson.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "objective/gp_prior.hpp"

namespace gpb::detail {

namespace {
/// Doubles per block of the kernel rows K(X_t, ·).
constexpr Eigen::Index kChunkDoubles = Eigen::Index{1} << 22;
}  // namespace

Eigen::VectorXd ThompsonSampler::draw(const Context& ctx, const Kernel& kernel,
                                      const FinitePosterior& post, const Eigen::MatrixXd& points,
                                      int count, int exact_max, int features, Rng& rng) {
  const int total = post.size();
  Eigen::VectorXd f0;
  if (total <= exact_max) {
    if (factor_points_ != total) {
      factor_ = prior_factor(ctx, kernel, points);
      factor_points_ = total;
    }
    f0 = exact_prior_sample(factor_, rng);
  } else {
    GPB_EXPECTS(kernel.stationary() || kernel.composite(),
                "ask: Thompson sampling over more than acquisition.exact_max = "
                    << exact_max << " points uses random Fourier features, which need a "
                    << "stationary kernel (se, matern) or a product or sum of them; got "
                    << kernel.describe());
    f0 = rff_prior_sample(ctx, kernel, points, features, rng);
  }
  Eigen::VectorXd f = Eigen::Map<const Eigen::VectorXd>(post.mean(0), count) + f0.head(count);
  const int t = post.rows();
  if (t == 0) return f;
  const PosteriorFactor F = post.factor(0);
  Eigen::VectorXd c(t);
  Eigen::MatrixXd H(points.rows(), t);
  for (int q = 0; q < t; ++q) {  // each row's own noise variance (known or λ)
    const int a = F.history[static_cast<std::size_t>(q)];
    H.col(q) = points.col(a);
    c[q] = f0[a] + std::sqrt(F.noise[q]) * rng.normal();
  }
  const auto L = F.L.triangularView<Eigen::Lower>();
  L.solveInPlace(c);
  L.transpose().solveInPlace(c);
  const Eigen::Index chunk = std::max<Eigen::Index>(1, kChunkDoubles / t);
  for (Eigen::Index j0 = 0; j0 < count; j0 += chunk) {
    const Eigen::Index len = std::min<Eigen::Index>(chunk, count - j0);
    const Eigen::MatrixXd K = kernel_matrix(ctx, kernel, H, points.middleCols(j0, len));
    f.segment(j0, len).noalias() -= K.transpose() * c;
  }
  return f;
}

}  // namespace gpb::detail
