// Output warping (warp.hpp).
#include "optimizer/warp.hpp"

#include <algorithm>
#include <cmath>

namespace gpb::detail {

namespace {

/// Box-Cox: (u^λ − 1) / λ, log u at λ = 0.
double box_cox(double u, double lambda) {
  return lambda == 0.0 ? std::log(u) : (std::pow(u, lambda) - 1.0) / lambda;
}

/// The warped distance below the best: r up to the knee, compressed beyond.
double warped_r(double r, double knee, double lambda) {
  return r <= knee ? r : knee * (1.0 + box_cox(r / knee, lambda));
}

}  // namespace

double OutputWarp::forward(double g) const {
  if (identity()) return g;
  return top - warped_r(top - g, knee, lambda);
}

double OutputWarp::slope(double g) const {
  if (identity()) return 1.0;
  const double r = top - g;
  return r <= knee ? 1.0 : std::pow(r / knee, lambda - 1.0);
}

double OutputWarp::inverse(double h) const {
  if (identity()) return h;
  const double w = top - h;
  if (w <= knee) return h;
  const double b = (w - knee) / knee;  // BoxCox(r / knee; λ)
  const double u = lambda == 0.0 ? std::exp(b) : std::pow(1.0 + lambda * b, 1.0 / lambda);
  return top - knee * u;
}

OutputWarp OutputWarp::choose(const std::vector<double>& g, double knee_quantile) {
  OutputWarp w;
  const std::size_t n = g.size();
  if (n < 3) return w;
  const double top = *std::max_element(g.begin(), g.end());
  std::vector<double> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = top - g[i];
  std::vector<double> sorted = r;
  const std::size_t k =
      std::min(n - 1, static_cast<std::size_t>(knee_quantile * static_cast<double>(n)));
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k), sorted.end());
  const double knee = sorted[k];
  if (!(knee > 0) || !std::isfinite(knee)) return w;
  double log_sum = 0.0;  // the Jacobian's log: (λ − 1) Σ log(r / knee) over the tail
  for (double v : r) {
    if (v > knee) log_sum += std::log(v / knee);
  }
  double best_lambda = 1.0, best_ll = -HUGE_VAL;
  for (int k = 20; k >= 0; --k) {  // λ = 1, 0.95, ..., 0: ties keep the larger λ
    const double lambda = 0.05 * k;
    double mean = 0.0, m2 = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double t = warped_r(r[i], knee, lambda);
      const double d = t - mean;
      mean += d / static_cast<double>(i + 1);
      m2 += d * (t - mean);
    }
    const double var = m2 / static_cast<double>(n);
    if (!(var > 0)) continue;
    const double ll = -0.5 * static_cast<double>(n) * std::log(var) + (lambda - 1.0) * log_sum;
    if (ll > best_ll) best_ll = ll, best_lambda = lambda;
  }
  if (best_lambda >= 1.0) return w;
  w.lambda = best_lambda;
  w.top = top;
  w.knee = knee;
  return w;
}

}  // namespace gpb::detail
