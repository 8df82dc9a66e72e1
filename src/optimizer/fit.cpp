// Marginal-likelihood fits of the Optimizer's kernel with the L-BFGS-B fitter of hyperfit.hpp.
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
  const Eigen::MatrixXd X =
      Eigen::Map<const Eigen::MatrixXd>(obs_x.data(), d, t).transpose();  // t×d rows
  Eigen::VectorXd y(t);
  for (int i = 0; i < t; ++i) y[i] = sign() * obs_y[static_cast<std::size_t>(i)];
  double offset = 0.0, scale = 1.0;
  if (f.normalize) {
    offset = y.mean();
    const double sd = std::sqrt((y.array() - offset).square().mean());
    scale = sd > 0 && std::isfinite(sd) ? sd : 1.0;
  }
  HyperFitOptions ho;
  ho.kernel = type;
  ho.ard = f.ard && d > 1;
  ho.random_starts = f.restarts;
  ho.max_rows = f.max_rows;
  ho.seed = opt.seed + static_cast<std::uint64_t>(fits);
  const HyperFit res = fit_gp_hyperparameters(X, (y.array() - offset) / scale, ho);
  opt.kernel = Kernel::ard(type, res.theta.lengthscales, res.theta.signal_variance);
  opt.noise_variance = res.theta.noise_variance;
  y_offset = offset;
  y_scale = scale;
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
