// The Optimizer's posterior at arbitrary points and the acquisition rules with their derivatives
// (see surrogate.hpp).
#include "optimizer/surrogate.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpbandit/engine/kernel_derivative.hpp"
#include "gpbandit/engine/ops.hpp"

namespace gpb::detail {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kLogSqrt2Pi = 0.91893853320467274178;
/// Points per block of predict() (bounds the rows × block kernel matrix).
constexpr Eigen::Index kBlockDoubles = Eigen::Index{1} << 22;

/// The normal tail far left, x = −z > 5: Mills' ratio R = Φ(−x)/φ(x) = 1/(x + D₁) and
/// D₁ = 1/(x + 2/(x + 3/(x + …))) by Laplace's continued fraction (backwards from 60 terms, far
/// more than x > 5 needs for double precision), so that h(z)/φ(z) = 1 − xR = R·D₁ carries no
/// cancellation.
void tail(double x, double* mills, double* d1) {
  double d = 0.0;
  for (int k = 60; k >= 2; --k) d = k / (x + d);
  *d1 = 1.0 / (x + d);
  *mills = 1.0 / (x + *d1);
}

/// log h(z) and the ratios Φ(z)/h(z), φ(z)/h(z) (the derivatives of log h are Φ/h and, with
/// respect to ln σ at fixed u = zσ, φ/h).
void h_parts(double z, double* log_h_out, double* cdf_over_h, double* pdf_over_h) {
  if (z >= -5.0) {
    const double cdf = 0.5 * std::erfc(-z * kInvSqrt2);
    const double pdf = std::exp(-0.5 * z * z - kLogSqrt2Pi);
    const double h = z * cdf + pdf;
    *log_h_out = std::log(h);
    *cdf_over_h = cdf / h;
    *pdf_over_h = pdf / h;
    return;
  }
  double r = 0, d1 = 0;
  tail(-z, &r, &d1);
  *log_h_out = -0.5 * z * z - kLogSqrt2Pi + std::log(r) + std::log(d1);
  *cdf_over_h = 1.0 / d1;
  *pdf_over_h = 1.0 / (r * d1);
}

/// log Φ(z) and φ(z)/Φ(z).
void log_cdf_parts(double z, double* log_cdf, double* pdf_over_cdf) {
  if (z >= -5.0) {
    const double cdf = 0.5 * std::erfc(-z * kInvSqrt2);
    *log_cdf = std::log(cdf);
    *pdf_over_cdf = std::exp(-0.5 * z * z - kLogSqrt2Pi) / cdf;
    return;
  }
  double r = 0, d1 = 0;
  tail(-z, &r, &d1);
  *log_cdf = -0.5 * z * z - kLogSqrt2Pi + std::log(r);
  *pdf_over_cdf = 1.0 / r;
}

}  // namespace

double log_h(double z) {
  double v = 0, a = 0, b = 0;
  h_parts(z, &v, &a, &b);
  return v;
}

double AcquisitionRule::value(double mean, double variance) const {
  return value(mean, variance, nullptr, nullptr);
}

double AcquisitionRule::value(double mean, double variance, double* d_mean,
                              double* d_variance) const {
  const double sd = std::sqrt(std::max(variance, 0.0));
  double dm = 0.0, dv = 0.0, out = 0.0;
  if (kind == AcquisitionKind::Ucb) {
    out = mean + width * sd;
    dm = 1.0;
    dv = sd > 0 ? 0.5 * width / sd : 0.0;
  } else if (!(sd > 0)) {  // no uncertainty left: the improvement itself
    const double u = mean - threshold;
    const bool ei = kind == AcquisitionKind::ExpectedImprovement;
    out = u > 0 ? (ei ? std::log(u) : 0.0) : kNegInf;
    dm = u > 0 && ei ? 1.0 / u : 0.0;
  } else if (kind == AcquisitionKind::ExpectedImprovement) {
    const double z = (mean - threshold) / sd;
    double lh = 0, cdf_h = 0, pdf_h = 0;
    h_parts(z, &lh, &cdf_h, &pdf_h);
    out = std::log(sd) + lh;  // EI = σ·h(z)
    dm = cdf_h / sd;
    dv = pdf_h / sd / (2.0 * sd);  // ∂/∂σ = φ/(hσ), ∂σ/∂σ² = 1/(2σ)
  } else {                         // probability of improvement
    const double z = (mean - threshold) / sd;
    double lc = 0, ratio = 0;
    log_cdf_parts(z, &lc, &ratio);
    out = lc;
    dm = ratio / sd;
    dv = -z * ratio / sd / (2.0 * sd);
  }
  if (d_mean != nullptr) *d_mean = dm;
  if (d_variance != nullptr) *d_variance = dv;
  return out;
}

Surrogate::Surrogate(const Context& ctx, const Kernel& kernel, const PosteriorFactor& factor,
                     int rows, Eigen::MatrixXd points)
    : ctx_(&ctx),
      kernel_(kernel),
      L_(factor.L.topLeftCorner(rows, rows)),
      beta_(factor.alpha.head(rows)),
      h_(std::move(points)) {
  L_.triangularView<Eigen::Lower>().transpose().solveInPlace(beta_);
}

bool Surrogate::differentiable() const {
  const auto smooth = [](KernelType t) {
    return t == KernelType::SE || t == KernelType::Matern32 || t == KernelType::Matern52;
  };
  if (kernel_.composite()) {  // kernel_gradient takes products and sums of smooth parts
    for (const KernelPart& p : kernel_.parts()) {
      if (!smooth(p.type)) return false;
    }
    return true;
  }
  return smooth(kernel_.type());
}

void Surrogate::predict(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::VectorXd& mean,
                        Eigen::VectorXd& variance) const {
  const Eigen::Index m = x.cols(), t = rows();
  variance = kernel_diag(*ctx_, kernel_, x);
  mean = Eigen::VectorXd::Zero(m);
  if (t == 0 || m == 0) return;
  const auto L = L_.triangularView<Eigen::Lower>();
  const Eigen::Index block = std::max<Eigen::Index>(1, kBlockDoubles / t);
  for (Eigen::Index j0 = 0; j0 < m; j0 += block) {
    const Eigen::Index len = std::min(block, m - j0);
    Eigen::MatrixXd W = kernel_matrix(*ctx_, kernel_, h_, x.middleCols(j0, len));
    mean.segment(j0, len).noalias() = W.transpose() * beta_;
    L.solveInPlace(W);  // W = L⁻¹ k(X_t, x): the rows v_q(x) of the posterior
    variance.segment(j0, len) -= W.colwise().squaredNorm().transpose();
  }
  variance = variance.cwiseMax(0.0);
}

void Surrogate::at(const Eigen::Ref<const Eigen::VectorXd>& x, double& mean, double& variance,
                   Eigen::VectorXd& grad_mean, Eigen::VectorXd& grad_variance) const {
  const int d = static_cast<int>(x.size()), t = rows();
  variance = kernel_(x.data(), x.data(), d);
  mean = 0.0;
  grad_mean = Eigen::VectorXd::Zero(d);
  grad_variance = Eigen::VectorXd::Zero(d);
  if (t == 0) return;
  Eigen::VectorXd k(t);
  for (int q = 0; q < t; ++q) k[q] = kernel_(h_.col(q).data(), x.data(), d);
  const Eigen::MatrixXd G = kernel_gradient(kernel_, x, h_);  // d × t: ∇ₓ k(x, x_q)
  mean = k.dot(beta_);
  grad_mean.noalias() = G * beta_;
  const auto L = L_.triangularView<Eigen::Lower>();
  Eigen::VectorXd w = L.solve(k);
  variance -= w.squaredNorm();
  L.transpose().solveInPlace(w);  // K⁻¹k: ∇σ² = −2 Gᵀ-weighted
  grad_variance.noalias() = -2.0 * (G * w);
  if (variance < 0) {
    variance = 0;
    grad_variance.setZero();
  }
}

}  // namespace gpb::detail
