// GP(0, k) sample paths on a finite domain: exact (Cholesky) or random Fourier features.

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <utility>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/ops.hpp"
#include "objective/gp_prior.hpp"

namespace gpb {
namespace {

/// Largest domain sampled exactly (K is N×N doubles: 3.2 GB at the limit).
constexpr int kMaxExact = 20000;

class GpSampleObjective final : public Objective {
 public:
  GpSampleObjective(Kernel kernel, int features, bool fixed)
      : kernel_(std::move(kernel)), features_(features), fixed_(fixed) {}

  std::string name() const override { return "gp_sample"; }

  Eigen::VectorXd values(const Context& ctx, const Domain& domain, std::uint64_t seed,
                         std::uint32_t run) const override {
    Rng rng(seed, fixed_ ? 0u : run, stream_of(StreamId::Objective));
    return features_ > 0 ? rff_values(ctx, domain, rng) : exact_values(ctx, domain, rng);
  }

 private:
  Kernel kernel_;
  int features_;
  bool fixed_;
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

  /// A random-Fourier-feature draw (detail::rff_prior_sample).
  Eigen::VectorXd rff_values(const Context& ctx, const Domain& domain, Rng& rng) const {
    return detail::rff_prior_sample(ctx, kernel_, domain.points(), features_, rng);
  }
};

}  // namespace

std::unique_ptr<Objective> make_gp_sample_objective(const Kernel& kernel, int features,
                                                    bool fixed) {
  GPB_EXPECTS(features >= 0, "objective.features must be >= 0, got " << features);
  GPB_EXPECTS(features == 0 || kernel.stationary(),
              "objective.features > 0 (random Fourier features) needs a stationary kernel "
              "(se, matern12, matern32, matern52), got "
                  << kernel.describe() << "; set objective.features = 0 for exact sampling");
  return std::make_unique<GpSampleObjective>(kernel, features, fixed);
}

}  // namespace gpb
