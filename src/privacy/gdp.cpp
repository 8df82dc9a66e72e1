// Gaussian differential privacy: composition, conversion to (ε, δ), Gaussian sampling, ledger.
#include "gpbandit/privacy/gdp.hpp"

#include <cmath>
#include <limits>

#include "gpbandit/error.hpp"

namespace gpb::privacy {

namespace {
constexpr double kPi = 3.14159265358979323846;

/// log erfc(x) for x ≥ 0: direct while erfc is comfortably normal, else the asymptotic series
/// erfc(x) ≈ e^{−x²}/(x√π)·(1 − 1/(2x²) + 3/(4x⁴) − 15/(8x⁶)), accurate to ~1e-12 for x > 25.
double log_erfc(double x) {
  if (x < 25.0) return std::log(std::erfc(x));
  const double z = 1.0 / (2.0 * x * x);
  const double series = 1.0 - z + 3.0 * z * z - 15.0 * z * z * z;
  return -x * x - std::log(x * std::sqrt(kPi)) + std::log(series);
}
}  // namespace

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

double log_normal_cdf(double x) {
  if (x >= 0) return std::log1p(-0.5 * std::erfc(x / std::sqrt(2.0)));
  return std::log(0.5) + log_erfc(-x / std::sqrt(2.0));
}

double gdp_compose(const std::vector<double>& mus) {
  double s = 0;
  for (double m : mus) {
    GPB_EXPECTS(!std::isnan(m) && m >= 0, "gdp_compose: mu must be >= 0, got " << m);
    if (std::isinf(m)) return std::numeric_limits<double>::infinity();
    s += m * m;
  }
  return std::sqrt(s);
}

double gdp_delta(double mu, double epsilon) {
  GPB_EXPECTS(!std::isnan(mu) && mu > 0, "gdp_delta: mu must be > 0, got " << mu);
  GPB_EXPECTS(!std::isnan(epsilon) && epsilon >= 0,
              "gdp_delta: epsilon must be >= 0, got " << epsilon);
  if (std::isinf(mu)) return 1.0;
  const double a = normal_cdf(-epsilon / mu + mu / 2);
  const double b = std::exp(epsilon + log_normal_cdf(-epsilon / mu - mu / 2));
  return std::max(0.0, a - b);
}

double gdp_epsilon(double mu, double delta) {
  GPB_EXPECTS(std::isfinite(mu) && mu > 0, "gdp_epsilon: mu must be finite and > 0, got " << mu);
  GPB_EXPECTS(delta > 0 && delta < 1, "gdp_epsilon: delta must lie in (0, 1), got " << delta);
  if (gdp_delta(mu, 0.0) <= delta) return 0.0;
  double hi = 1.0;
  while (gdp_delta(mu, hi) > delta) {
    hi *= 2;
    if (hi > 1e6) throw NumericalError("gdp_epsilon: no epsilon below 1e6 reaches the delta");
  }
  double lo = 0.0;
  while (hi - lo > 1e-10) {
    const double mid = 0.5 * (lo + hi);
    (gdp_delta(mu, mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

double gaussian_mechanism_std(double sensitivity, double mu) {
  GPB_EXPECTS(std::isfinite(sensitivity) && sensitivity > 0,
              "gaussian_mechanism_std: sensitivity must be finite and > 0, got " << sensitivity);
  GPB_EXPECTS(std::isfinite(mu) && mu > 0,
              "gaussian_mechanism_std: mu must be finite and > 0, got " << mu);
  return sensitivity / mu;
}

double gaussian_noise(double std, NoiseSource& source) {
  GPB_EXPECTS(std::isfinite(std) && std >= 0,
              "gaussian_noise: std must be finite and >= 0, got " << std);
  if (std == 0) return 0.0;
  const double u1 = source.uniform();
  const double u2 = source.uniform();
  return std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

GdpLedger::GdpLedger(double mu, int T) : mu_(mu), T_(T) {
  GPB_EXPECTS(!std::isnan(mu) && mu > 0, "mu: must be > 0, got " << mu);
  GPB_EXPECTS(T >= 1, "T: must be >= 1, got " << T);
}

double GdpLedger::per_step_mu() const {
  return mu_ / std::sqrt(static_cast<double>(T_));
}

double GdpLedger::spent(int t) const {
  GPB_EXPECTS(t >= 0 && t <= T_, "GdpLedger::spent: t must lie in [0, " << T_ << "], got " << t);
  return gdp_compose(std::vector<double>(static_cast<std::size_t>(t), per_step_mu()));
}

}  // namespace gpb::privacy
