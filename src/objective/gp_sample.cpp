// GP(0, k) sample paths on a finite domain: exact (Cholesky) or random Fourier features.

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <utility>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"
#include "objective/blocks.hpp"
#include "objective/gp_prior.hpp"
#include "objective/sampling.hpp"

namespace gpb {
namespace {

/// Largest domain sampled exactly (K is N×N doubles: 3.2 GB at the limit).
constexpr int kMaxExact = 20000;

class GpSampleObjective final : public Objective {
 public:
  GpSampleObjective(Kernel kernel, int features, bool fixed, bool kronecker)
      : kernel_(std::move(kernel)), features_(features), fixed_(fixed), kronecker_(kronecker) {}

  std::string name() const override { return "gp_sample"; }

  Eigen::VectorXd values(const Context& ctx, const Domain& domain, std::uint64_t seed,
                         std::uint32_t run) const override {
    Rng rng(seed, fixed_ ? 0u : run, stream_of(StreamId::Objective));
    GPB_EXPECTS(features_ > 0 || !domain.is_slice(),
                "gp_sample: an exact draw (features = 0) needs the whole domain, not a slice");
    if (kronecker_) return kronecker_values(ctx, domain, rng);
    return features_ > 0 ? rff_values(ctx, domain, rng) : exact_values(ctx, domain, rng);
  }

 private:
  Kernel kernel_;
  int features_;
  bool fixed_;
  bool kronecker_;

  /// Exact draw on a grid: the SE kernel is the product of 1-d SE kernels over the axes, so
  /// K = K_{d−1} ⊗ … ⊗ K_0 (spec po-gp-ucb §7). O(Σ n_i³ + N·Σ n_i), no N×N matrix.
  Eigen::VectorXd kronecker_values(const Context& ctx, const Domain& domain, Rng& rng) const {
    const auto axes = detail::grid_axes(domain);
    GPB_EXPECTS(axes.has_value(),
                "gp_sample: kronecker needs a grid domain (the Cartesian product of its axes)");
    GPB_EXPECTS(!kernel_.is_ard() || kernel_.ard_dim() == domain.dim(),
                "gp_sample: the kernel has " << kernel_.ard_dim() << " lengthscales (ARD), the "
                                             << "domain " << domain.dim() << " dimensions");
    std::vector<Eigen::MatrixXd> factors;
    for (std::size_t i = 0; i < axes->size(); ++i) {  // ARD: axis i's own lengthscale
      const Eigen::VectorXd& ls = kernel_.lengthscales();
      const Kernel unit = Kernel::se(ls[kernel_.is_ard() ? static_cast<Eigen::Index>(i) : 0], 1.0);
      const Eigen::MatrixXd pts = (*axes)[i].transpose();  // 1×n_i
      factors.push_back(kernel_matrix(ctx, unit, pts, pts));
    }
    return std::sqrt(kernel_.variance()) * detail::kronecker_draw(factors, rng);
  }
  // Cache of the last Cholesky factor: values() is called once per run on the same domain.
  mutable std::mutex mutex_;
  mutable Eigen::MatrixXd cached_points_;
  mutable std::shared_ptr<const Eigen::MatrixXd> cached_factor_;

  /// The lower Cholesky factor of K(D, D) (jitter per the default JitterPolicy). O(N³) once.
  std::shared_ptr<const Eigen::MatrixXd> factor(const Context& ctx, const Domain& domain) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const Eigen::MatrixXd& p = domain.points();
    if (cached_factor_ && cached_points_.rows() == p.rows() && cached_points_.cols() == p.cols() &&
        cached_points_ == p) {
      return cached_factor_;
    }
    Eigen::MatrixXd l = detail::prior_factor(ctx, kernel_, p);
    cached_factor_.reset();
    cached_points_ = p;
    cached_factor_ = std::make_shared<const Eigen::MatrixXd>(std::move(l));
    return cached_factor_;
  }

  /// f = L z, z ~ N(0, I_N) (N normal() draws).
  Eigen::VectorXd exact_values(const Context& ctx, const Domain& domain, Rng& rng) const {
    GPB_EXPECTS(domain.size() <= kMaxExact,
                "gp_sample: exact sampling needs N <= "
                    << kMaxExact << " candidates, got " << domain.size()
                    << "; set objective.features > 0 to sample with random Fourier features");
    return detail::exact_prior_sample(*factor(ctx, domain), rng);
  }

  /// A random-Fourier-feature draw (as detail::rff_prior_sample), in the blocks of the whole
  /// domain, so a slice gets the same bits (values_in_blocks).
  Eigen::VectorXd rff_values(const Context& ctx, const Domain& domain, Rng& rng) const {
    const detail::RffDraw r = detail::draw_rff(kernel_, domain.dim(), features_, rng);
    return detail::values_in_blocks(
        ctx, domain, detail::rff_block(features_),
        [&](const Eigen::Ref<const Eigen::MatrixXd>& points, Eigen::Ref<Eigen::VectorXd> out) {
          detail::rff_values(ctx, r, points, out);
        });
  }
};

}  // namespace

std::unique_ptr<Objective> make_gp_sample_objective(const Kernel& kernel, int features, bool fixed,
                                                    bool kronecker) {
  GPB_EXPECTS(features >= 0, "objective.features must be >= 0, got " << features);
  GPB_EXPECTS(!kronecker || features == 0,
              "objective.kronecker: an exact draw, cannot be combined with features > 0");
  GPB_EXPECTS(!kronecker || kernel.type() == KernelType::SE,
              "objective.kronecker: needs the se kernel (a product over the axes), got "
                  << kernel.describe());
  GPB_EXPECTS(features == 0 || kernel.stationary() || kernel.composite(),
              "objective.features > 0 (random Fourier features) needs a stationary kernel "
              "(se, matern12, matern32, matern52) or a product or sum of them, got "
                  << kernel.describe() << "; set objective.features = 0 for exact sampling");
  return std::make_unique<GpSampleObjective>(kernel, features, fixed, kronecker);
}

}  // namespace gpb
