// GP(0, k) sample paths on a finite domain: exact (Cholesky) or random Fourier features.

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <utility>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/ops.hpp"
#include "objective/sampling.hpp"

namespace gpb {
namespace {

/// Largest domain sampled exactly (K is N×N doubles: 3.2 GB at the limit).
constexpr int kMaxExact = 20000;
/// Doubles of the feature block cos(Wᵀx + b) built at a time (64 MiB).
constexpr Eigen::Index kBlockDoubles = Eigen::Index{8} << 20;
constexpr double kTwoPi = 6.283185307179586476925;

/// Degrees of freedom 2ν of the Student-t spectral density of a Matérn kernel (0 for SE).
double spectral_dof(KernelType t) {
  switch (t) {
    case KernelType::Matern12:
      return 1.0;
    case KernelType::Matern32:
      return 3.0;
    case KernelType::Matern52:
      return 5.0;
    default:
      return 0.0;
  }
}

class GpSampleObjective final : public Objective {
 public:
  GpSampleObjective(Kernel kernel, int features, bool fixed, bool kronecker)
      : kernel_(std::move(kernel)), features_(features), fixed_(fixed), kronecker_(kronecker) {}

  std::string name() const override { return "gp_sample"; }

  Eigen::VectorXd values(const Context& ctx, const Domain& domain, std::uint64_t seed,
                         std::uint32_t run) const override {
    Rng rng(seed, fixed_ ? 0u : run, stream_of(StreamId::Objective));
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
    std::vector<Eigen::MatrixXd> factors;
    const Kernel unit = Kernel::se(kernel_.lengthscale(), 1.0);
    for (const Eigen::VectorXd& a : *axes) {
      const Eigen::MatrixXd pts = a.transpose();  // 1×n_i
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
    Cholesky chol;
    {
      const Eigen::MatrixXd k = kernel_matrix(ctx, kernel_, p, p);
      chol.factor(k);
    }
    cached_factor_.reset();
    cached_points_ = p;
    cached_factor_ = std::make_shared<const Eigen::MatrixXd>(chol.matrix());
    return cached_factor_;
  }

  /// f = L z, z ~ N(0, I_N) (N normal() draws).
  Eigen::VectorXd exact_values(const Context& ctx, const Domain& domain, Rng& rng) const {
    GPB_EXPECTS(domain.size() <= kMaxExact,
                "gp_sample: exact sampling needs N <= "
                    << kMaxExact << " candidates, got " << domain.size()
                    << "; set objective.features > 0 to sample with random Fourier features");
    const auto l = factor(ctx, domain);
    Eigen::VectorXd z(domain.size());
    for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = rng.normal();
    return l->triangularView<Eigen::Lower>() * z;
  }

  /// f(x) = √(2v/M) Σ_i z_i cos(w_iᵀx + b_i), which has prior variance v·(2/M)·Σ cos² → v.
  /// Per feature i the draws are: w_i (d normals, then for Matérn one chi-square G with
  /// 2ν dof, w_i scaled by √(2ν/G)), all divided by the lengthscale; b_i ~ U[0, 2π); z_i ~ N(0,1).
  Eigen::VectorXd rff_values(const Context& ctx, const Domain& domain, Rng& rng) const {
    const int d = domain.dim();
    const int m = features_;
    const double dof = spectral_dof(kernel_.type());
    Eigen::MatrixXd w(d, m);
    Eigen::VectorXd b(m), z(m);
    for (int i = 0; i < m; ++i) {
      for (int r = 0; r < d; ++r) w(r, i) = rng.normal();
      double scale = 1.0 / kernel_.lengthscale();
      if (dof > 0.0) scale *= std::sqrt(dof / detail::sample_chi_square(rng, dof));
      w.col(i) *= scale;
      b(i) = kTwoPi * rng.uniform();
      z(i) = rng.normal();
    }
    z *= std::sqrt(2.0 * kernel_.variance() / m);
    const Eigen::Index n = domain.size();
    Eigen::VectorXd f(n);
    const Eigen::Index block = std::max<Eigen::Index>(1, kBlockDoubles / m);
    for (Eigen::Index start = 0; start < n; start += block) {
      const Eigen::Index len = std::min(block, n - start);
      Eigen::MatrixXd phase = w.transpose() * domain.points().middleCols(start, len);
      phase.colwise() += b;
      const Eigen::Index total = phase.size();
      double* data = phase.data();
      const int nt = ctx.threads_for(20.0 * static_cast<double>(total));  // ~20 operations a cos
#pragma omp parallel for schedule(static) num_threads(nt)
      for (Eigen::Index k = 0; k < total; ++k) data[k] = std::cos(data[k]);
      f.segment(start, len).noalias() = phase.transpose() * z;
    }
    return f;
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
  GPB_EXPECTS(features == 0 || kernel.stationary(),
              "objective.features > 0 (random Fourier features) needs a stationary kernel "
              "(se, matern12, matern32, matern52), got "
                  << kernel.describe() << "; set objective.features = 0 for exact sampling");
  return std::make_unique<GpSampleObjective>(kernel, features, fixed, kronecker);
}

}  // namespace gpb
