// Maximum-likelihood output scale and noise for a fixed kernel shape (hyperfit.hpp,
// fit_scale_and_noise): one eigendecomposition, then a one-dimensional profile likelihood.
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpbandit/engine/hyperfit.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

namespace {

constexpr double kLn2Pi = 1.8378770664093454835606594728112;

/// The profile log-likelihood at ratio ρ = λ/v, with v̂(ρ) = (1/m) Σ z_i²/(s_i + ρ) plugged in:
/// −½ (m + Σ ln(v̂ (s_i + ρ)) + m ln 2π). Eigenvalues below zero (rounding) count as zero.
struct Profile {
  const Eigen::VectorXd& s;  // eigenvalues of K
  const Eigen::VectorXd& z;  // Uᵀ(y − m)
  double signal(double rho) const {
    double q = 0;
    for (Eigen::Index i = 0; i < s.size(); ++i) q += z[i] * z[i] / (std::max(s[i], 0.0) + rho);
    return q / static_cast<double>(s.size());
  }
  double operator()(double log_rho) const {
    const double rho = std::exp(log_rho), v = signal(rho);
    const double m = static_cast<double>(s.size());
    double logdet = 0;
    for (Eigen::Index i = 0; i < s.size(); ++i) logdet += std::log(v * (std::max(s[i], 0.0) + rho));
    return -0.5 * (m + logdet + m * kLn2Pi);
  }
};

}  // namespace

ScaleNoiseFit fit_scale_and_noise(const Eigen::Ref<const Eigen::MatrixXd>& K,
                                  const Eigen::Ref<const Eigen::VectorXd>& y, double ratio_lower,
                                  double ratio_upper) {
  const Eigen::Index m = y.size();
  GPB_EXPECTS(m >= 2, "fit_scale_and_noise: needs at least 2 observations, got " << m);
  GPB_EXPECTS(K.rows() == m && K.cols() == m, "fit_scale_and_noise: K is "
                                                  << K.rows() << "x" << K.cols() << " for " << m
                                                  << " observations");
  GPB_EXPECTS(y.allFinite(), "fit_scale_and_noise: y has a value that is not finite");
  GPB_EXPECTS(K.allFinite(), "fit_scale_and_noise: K has a value that is not finite");
  GPB_EXPECTS(ratio_lower > 0 && ratio_lower < ratio_upper && std::isfinite(ratio_upper),
              "fit_scale_and_noise: ratio bounds must satisfy 0 < lower < upper, got ["
                  << ratio_lower << ", " << ratio_upper << "]");
  ScaleNoiseFit fit;
  fit.mean = y.mean();
  const Eigen::VectorXd centred = y.array() - fit.mean;
  GPB_EXPECTS(centred.squaredNorm() > 0, "fit_scale_and_noise: y is constant");
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(K);
  GPB_EXPECTS(eig.info() == Eigen::Success, "fit_scale_and_noise: eigendecomposition failed");
  const Eigen::VectorXd& s = eig.eigenvalues();
  const Eigen::VectorXd z = eig.eigenvectors().transpose() * centred;
  const Profile profile{s, z};
  // A grid over ln ρ, then golden-section search in the bracket around the best grid point.
  const double a = std::log(ratio_lower), b = std::log(ratio_upper);
  constexpr int kGrid = 81;
  double best = -std::numeric_limits<double>::infinity();
  int best_i = 0;
  for (int i = 0; i < kGrid; ++i) {
    const double ll = profile(a + (b - a) * i / (kGrid - 1));
    if (ll > best) {
      best = ll;
      best_i = i;
    }
  }
  double lo = a + (b - a) * std::max(best_i - 1, 0) / (kGrid - 1);
  double hi = a + (b - a) * std::min(best_i + 1, kGrid - 1) / (kGrid - 1);
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = profile(x1), f2 = profile(x2);
  for (int it = 0; it < 60 && hi - lo > 1e-10; ++it) {
    if (f1 >= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = profile(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = profile(x2);
    }
  }
  double log_rho = a + (b - a) * best_i / (kGrid - 1);
  if (std::max(f1, f2) > best) {
    log_rho = f1 >= f2 ? x1 : x2;
    best = std::max(f1, f2);
  }
  const double rho = std::exp(log_rho);
  fit.signal_variance = profile.signal(rho);
  fit.noise_variance = rho * fit.signal_variance;
  fit.log_likelihood = best;
  return fit;
}

}  // namespace gpb
