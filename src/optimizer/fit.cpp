// Hyperparameter fits of the Optimizer's kernel (maximum a posteriori or marginal likelihood, in
// unit coordinates by default) with the L-BFGS-B fitter of hyperfit.hpp.
#include <algorithm>
#include <cmath>

#include "gpbandit/error.hpp"
#include "optimizer/state.hpp"

namespace gpb {

HyperFit Optimizer::State::fit() {
  const KernelType type = opt.kernel.type();
  GPB_EXPECTS(
      type == KernelType::SE || type == KernelType::Matern32 || type == KernelType::Matern52,
      "fit_hyperparameters: the kernel must be se, matern32 or matern52, got "
          << opt.kernel.describe());
  const int t = num_obs();
  GPB_EXPECTS(t >= 2, "fit_hyperparameters: needs at least 2 observations, got " << t);
  const FitOptions& f = opt.fit;
  Eigen::MatrixXd X = Eigen::Map<const Eigen::MatrixXd>(obs_x.data(), d, t).transpose();  // t×d
  if (f.unit_inputs) {
    X = (X.rowwise() - unit_lower.transpose()) * unit_width.cwiseInverse().asDiagonal();
  }
  double offset = 0.0, scale = 1.0;
  detail::OutputWarp w;
  standardization(offset, scale, w);
  Eigen::VectorXd y(t);
  for (int i = 0; i < t; ++i) y[i] = w.forward(sign() * obs_y[static_cast<std::size_t>(i)]);
  HyperFitOptions ho;
  ho.kernel = type;
  ho.ard = f.ard && d > 1;
  const bool warm = f.warm_start && fits > 0 && opt.kernel.stationary();
  ho.random_starts = warm && fits % f.restarts_every != 0 ? 0 : f.restarts;
  ho.max_rows = f.max_rows;
  ho.seed = opt.seed + static_cast<std::uint64_t>(fits);
  ho.noise_lower = std::min(f.noise_floor, 0.5 * ho.noise_upper);
  // Signal variance at most 10 (standardised y): larger ones let long lengthscales turn the GP
  // into a near-polynomial that extrapolates to the box's corners (Branin: stuck at (10, 3)).
  ho.signal_upper = 10.0;
  if (f.unit_inputs) {
    ho.standardize_inputs = false;
    ho.lengthscale_lower = 1e-3;  // unit coordinates: a thousandth of the box up to 100 boxes
  }
  if (f.prior) {
    ho.lengthscale_prior_loc =
        f.lengthscale_prior_loc + f.lengthscale_prior_log_d * std::log(static_cast<double>(d));
    ho.lengthscale_prior_scale = f.lengthscale_prior_scale;
    // Noise: log-normal around 6e-6 of the standardised variance (BoTorch's −4 left Branin's
    // regret at ~1e-3: the fitted noise smooths over the last digits; measured, bench/RESULTS.md).
    ho.noise_prior_loc = -12.0;
    ho.noise_prior_scale = 1.0;
  }
  if (warm) {
    GpHyperparameters g;
    g.lengthscales = opt.kernel.lengthscales();
    if (g.lengthscales.size() == 1)
      g.lengthscales = Eigen::VectorXd::Constant(d, g.lengthscales[0]);
    if (f.unit_inputs) g.lengthscales = g.lengthscales.cwiseQuotient(unit_width);
    if (!ho.ard) g.lengthscales = Eigen::VectorXd::Constant(1, g.lengthscales.mean());
    g.signal_variance = opt.kernel.variance();
    g.noise_variance = opt.noise_variance;
    ho.starts.push_back(g);
  }
  const HyperFit res = fit_gp_hyperparameters(X, (y.array() - offset) / scale, ho);
  Eigen::VectorXd l = res.theta.lengthscales;
  if (f.unit_inputs) {  // back to the domain's units: one lengthscale per axis
    if (l.size() == 1) l = Eigen::VectorXd::Constant(d, l[0]);
    l = l.cwiseProduct(unit_width);
  }
  opt.kernel = Kernel::ard(type, l, res.theta.signal_variance);
  opt.noise_variance = res.theta.noise_variance;
  y_offset = offset - f.mean_shift * scale;  // the prior mean (FitOptions::mean_shift)
  y_scale = scale;
  warp = w;
  ++fits;
  obs_at_last_fit = t;
  dirty = true;
  thompson.invalidate();
  return res;
}

HyperFit Optimizer::fit_hyperparameters() {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->fit();
}

}  // namespace gpb
