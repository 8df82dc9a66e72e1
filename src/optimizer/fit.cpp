// Hyperparameter fits of the Optimizer's kernel (maximum a posteriori or marginal likelihood, in
// unit coordinates by default) with the L-BFGS-B fitter of hyperfit.hpp.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "optimizer/state.hpp"

namespace gpb {

namespace {

/// Whether the hyperparameter fit handles kernels (or parts) of this type.
bool fittable(KernelType type) {
  return type == KernelType::SE || type == KernelType::Matern32 || type == KernelType::Matern52;
}

/// The fit's view of a composite kernel's parts.
std::vector<HyperFitPart> fit_parts(const Kernel& k) {
  std::vector<HyperFitPart> out;
  for (const KernelPart& p : k.parts()) {
    GPB_EXPECTS(fittable(p.type),
                "fit_hyperparameters: every part of a composite kernel must be se, matern32 or "
                "matern52, got "
                    << k.describe());
    out.push_back({p.type, p.begin, p.size, p.ard});
  }
  return out;
}

/// Warm start of a composite fit in the fit's units (unit coordinates: lengthscale / width).
void composite_start(const Kernel& k, const HyperFitOptions& ho, const Eigen::VectorXd& width,
                     GpHyperparameters& g) {
  std::vector<double> l;
  for (const KernelPart& p : k.parts()) {
    const bool ard = p.ard && ho.ard && p.size > 1;
    double mean = 0;
    for (int j = 0; j < p.size; ++j) {
      const double u = k.lengthscales()[p.begin + j] / width[p.begin + j];
      if (ard) l.push_back(u);
      mean += u / p.size;
    }
    if (!ard) l.push_back(mean);
  }
  g.lengthscales = Eigen::Map<const Eigen::VectorXd>(l.data(), static_cast<Eigen::Index>(l.size()));
  g.signal_variance = k.variance();
  if (ho.sum) {
    g.part_variances.resize(static_cast<Eigen::Index>(k.parts().size()));
    for (std::size_t p = 0; p < k.parts().size(); ++p) {
      g.part_variances[static_cast<Eigen::Index>(p)] = k.parts()[p].variance;
    }
  }
}

/// The fitted composite kernel in the domain's units: a part fitted with one lengthscale in unit
/// coordinates keeps one per feature (l·width_j) when its features' widths differ.
Kernel composite_fitted(const Kernel& k, const HyperFitOptions& ho, const HyperFit& res,
                        const Eigen::VectorXd& width) {
  std::vector<KernelPart> parts = k.parts();
  Eigen::Index at = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    KernelPart& p = parts[i];
    const bool ard = p.ard && ho.ard && p.size > 1;
    const Eigen::VectorXd w = width.segment(p.begin, p.size);
    if (ard) {
      p.lengthscales = res.theta.lengthscales.segment(at, p.size).cwiseProduct(w);
      at += p.size;
    } else {
      const double l = res.theta.lengthscales[at++];
      const bool same = (w.array() == w[0]).all();
      p.lengthscales = same ? Eigen::VectorXd::Constant(1, l * w[0]) : Eigen::VectorXd(l * w);
    }
    if (ho.sum) p.variance = res.theta.part_variances[static_cast<Eigen::Index>(i)];
  }
  return ho.sum ? Kernel::sum(std::move(parts))
                : Kernel::product(std::move(parts), res.theta.signal_variance);
}

/// ln of the density of the observed y under a fit to the standardised warped values
/// h = (w(g) − offset) / scale, g = ±y: the fit's log likelihood plus the Jacobian
/// Σ ln(w'(g_i) / scale) (in proportion to the rows the fit used when it subsampled).
double log_density_of_y(const HyperFit& r, const std::vector<double>& g,
                        const detail::OutputWarp& w, double scale) {
  double jacobian = 0.0;
  for (double v : g) jacobian += std::log(w.slope(v) / scale);
  return r.log_likelihood + jacobian * r.rows_used / static_cast<double>(g.size());
}

}  // namespace

HyperFit Optimizer::State::fit_structure() {
  const KernelType type = opt.kernel.type();
  const bool composite = opt.kernel.composite();
  GPB_EXPECTS(composite || fittable(type),
              "fit_hyperparameters: the kernel must be se, matern32, matern52 or a product or "
              "sum of them, got "
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
  std::vector<double> signed_y(static_cast<std::size_t>(t));  // g = sign·y, larger is better
  for (std::size_t i = 0; i < signed_y.size(); ++i) signed_y[i] = sign() * obs_y[i];
  const Eigen::Map<const Eigen::VectorXd> plain_y(signed_y.data(), t);
  Eigen::VectorXd y = plain_y.unaryExpr([&w](double v) { return w.forward(v); });
  HyperFitOptions ho;
  if (composite) {
    ho.parts = fit_parts(opt.kernel);
    ho.sum = type == KernelType::Sum;
    ho.ard = f.ard;
  } else {
    ho.kernel = type;
    ho.ard = f.ard && d > 1;
  }
  const bool warm = f.warm_start && fits > 0 && (opt.kernel.stationary() || composite);
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
  const Eigen::VectorXd width = f.unit_inputs ? unit_width : Eigen::VectorXd::Ones(d);
  if (warm && composite) {
    GpHyperparameters g;
    composite_start(opt.kernel, ho, width, g);
    g.noise_variance = opt.noise_variance;
    ho.starts.push_back(g);
  } else if (warm) {
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
  const Eigen::VectorXd y_std = (y.array() - offset) / scale;
  ho.known_noise = known_noise(w, scale);  // tell's known variances, fixed in the fit
  HyperFit res = fit_gp_hyperparameters(X, y_std, ho);
  if (f.prior && f.lengthscale_prior_select &&
      ho.lengthscale_prior_loc != f.lengthscale_prior_loc) {
    // FitOptions::lengthscale_prior_select: the prior without its ln(d) term as well; the fit
    // whose MAP explains y better (the higher log marginal likelihood, the priors' densities left
    // out) is kept, and the warp's choice below uses the location chosen here.
    HyperFitOptions alt = ho;
    alt.lengthscale_prior_loc = f.lengthscale_prior_loc;
    HyperFit other = fit_gp_hyperparameters(X, y_std, alt);
    if (other.log_likelihood > res.log_likelihood) {
      res = std::move(other);
      ho = std::move(alt);
    }
  }
  if (f.warp_select && !w.identity()) {  // FitOptions::warp_select: the plain model as well
    double plain_offset = 0.0, plain_scale = 1.0;
    detail::OutputWarp identity;
    standardization(plain_offset, plain_scale, identity, true);
    HyperFitOptions plain_ho = ho;
    plain_ho.known_noise = known_noise(identity, plain_scale);
    HyperFit plain =
        fit_gp_hyperparameters(X, (plain_y.array() - plain_offset) / plain_scale, plain_ho);
    if (log_density_of_y(plain, signed_y, identity, plain_scale) >=
        log_density_of_y(res, signed_y, w, scale)) {
      res = plain;
      offset = plain_offset;
      scale = plain_scale;
      w = identity;
    }
  }
  if (composite) {
    opt.kernel = composite_fitted(opt.kernel, ho, res, width);
  } else {
    Eigen::VectorXd l = res.theta.lengthscales;
    if (f.unit_inputs) {  // back to the domain's units: one lengthscale per axis
      if (l.size() == 1) l = Eigen::VectorXd::Constant(d, l[0]);
      l = l.cwiseProduct(unit_width);
    }
    opt.kernel = Kernel::ard(type, l, res.theta.signal_variance);
  }
  opt.noise_variance = res.theta.noise_variance;
  fitted(offset, scale, w);
  return res;
}

void Optimizer::State::fitted(double offset, double scale, const detail::OutputWarp& w) {
  y_offset = offset - opt.fit.mean_shift * scale;  // the prior mean (FitOptions::mean_shift)
  y_scale = scale;
  warp = w;
  ++fits;
  obs_at_last_fit = num_obs();
  dirty = true;  // the posterior is rebuilt with the new hyperparameters
  thompson.invalidate();
}

namespace {

/// Whether k is the additive kernel FitOptions::kernel_select builds over d inputs: a sum of d
/// parts of one stationary type, part j on input j alone.
bool is_additive_form(const Kernel& k, int d) {
  if (!k.composite() || k.type() != KernelType::Sum || static_cast<int>(k.parts().size()) != d) {
    return false;
  }
  for (int j = 0; j < d; ++j) {
    const KernelPart& p = k.parts()[static_cast<std::size_t>(j)];
    if (p.begin != j || p.size != 1 || p.type != k.parts()[0].type) return false;
  }
  return true;
}

/// The two structures of FitOptions::kernel_select from the current kernel (either of them):
/// the product (one ARD kernel) and the additive kernel, each started from the other's
/// lengthscales (the variance split evenly over the parts, or their sum).
std::pair<Kernel, Kernel> structures(const Kernel& k, int d) {
  if (is_additive_form(k, d)) {
    double v = 0;
    for (const KernelPart& p : k.parts()) v += p.variance;
    return {Kernel::ard(k.parts()[0].type, k.lengthscales(), v), k};
  }
  Eigen::VectorXd l = k.lengthscales();
  if (l.size() == 1) l = Eigen::VectorXd::Constant(d, l[0]);
  std::vector<KernelPart> parts;
  for (int j = 0; j < d; ++j) {
    KernelPart p;
    p.type = k.type();
    p.begin = j;
    p.size = 1;
    p.lengthscales = Eigen::VectorXd::Constant(1, l[j]);
    p.variance = k.variance() / d;
    parts.push_back(std::move(p));
  }
  return {k, Kernel::sum(std::move(parts))};
}

}  // namespace

HyperFit Optimizer::State::fit_fingerprint() {
  const int t = num_obs();
  GPB_EXPECTS(t >= 2, "fit_hyperparameters: needs at least 2 observations, got " << t);
  double offset = 0.0, scale = 1.0;
  detail::OutputWarp w;
  standardization(offset, scale, w);
  Eigen::VectorXd y(t);
  for (int i = 0; i < t; ++i) {
    y[i] = (w.forward(sign() * obs_y[static_cast<std::size_t>(i)]) - offset) / scale;
  }
  GPB_EXPECTS((y.array() != y[0]).any(),
              "fit_hyperparameters: the observations are all equal; nothing to fit");
  // The kernel's shape at variance 1 between the observed fingerprints (their packed words).
  const Eigen::Map<const Eigen::MatrixXd> X(obs_x.data(), d, t);
  const Eigen::MatrixXd K = kernel_matrix(*ctx, opt.kernel.with_variance(1.0), X, X);
  const ScaleNoiseFit sf = fit_scale_and_noise(K, y);
  // The same caps as fit_structure's in standardised units: v ≤ 10, λ ≥ the noise floor.
  const double v = std::min(sf.signal_variance, 10.0);
  const double lambda = std::max(sf.noise_variance, opt.fit.noise_floor);
  opt.kernel = opt.kernel.with_variance(v);
  opt.noise_variance = lambda;
  fitted(offset, scale, w);
  HyperFit res;
  res.theta.signal_variance = v;
  res.theta.noise_variance = lambda;
  res.log_likelihood = sf.log_likelihood;
  res.log_posterior = sf.log_likelihood;
  res.rows_used = t;
  res.starts_converged = 1;
  return res;
}

HyperFit Optimizer::State::fit() {
  if (opt.kernel.fingerprint()) return fit_fingerprint();
  if (!opt.fit.kernel_select || d < 2 ||
      !(fittable(opt.kernel.type()) || is_additive_form(opt.kernel, d))) {
    return fit_structure();
  }
  // FitOptions::kernel_select: both structures from the same state, the better one kept.
  struct Fitted {
    Kernel kernel;
    double noise = 0, offset = 0, scale = 1;
    detail::OutputWarp warp;
    HyperFit res;
  };
  const int fits_before = fits;
  const auto [product, additive] = structures(opt.kernel, d);
  const auto fit_as = [&](const Kernel& k) {
    fits = fits_before;
    opt.kernel = k;
    Fitted f;
    f.res = fit_structure();
    f.kernel = opt.kernel;
    f.noise = opt.noise_variance;
    f.offset = y_offset;
    f.scale = y_scale;
    f.warp = warp;
    return f;
  };
  const double noise_before = opt.noise_variance;
  Fitted a = fit_as(product);
  opt.noise_variance = noise_before;
  Fitted b = fit_as(additive);
  // BIC: the additive kernel has d − 1 more variances than the product.
  const double penalty = 0.5 * (d - 1) * std::log(static_cast<double>(b.res.rows_used));
  Fitted& keep = b.res.log_likelihood - penalty > a.res.log_likelihood ? b : a;
  opt.kernel = keep.kernel;
  opt.noise_variance = keep.noise;
  y_offset = keep.offset;
  y_scale = keep.scale;
  warp = keep.warp;
  return keep.res;
}

HyperFit Optimizer::fit_hyperparameters() {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->fit();
}

}  // namespace gpb
