// Draws of GP(0, k): exact (Cholesky factor) or random Fourier features.
#include "objective/gp_prior.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "objective/sampling.hpp"

namespace gpb::detail {
namespace {

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

/// Part `kp`'s frequencies of feature i: its normals, then (Matérn) its chi-square stretch, each
/// axis scaled by its inverse lengthscale.
void draw_part_frequencies(const KernelPart& kp, const Eigen::VectorXd& inv, Eigen::Index i,
                           Eigen::MatrixXd& w, Rng& rng) {
  for (int q = kp.begin; q < kp.begin + kp.size; ++q) w(q, i) = rng.normal();
  const double dof = spectral_dof(kp.type);
  const double stretch = dof > 0.0 ? std::sqrt(dof / sample_chi_square(rng, dof)) : 1.0;
  for (int q = kp.begin; q < kp.begin + kp.size; ++q) w(q, i) *= inv[q] * stretch;
}

/// draw_rff of a product or sum kernel (gp_prior.hpp documents the draws).
RffDraw draw_composite_rff(const Kernel& k, int d, int features, Rng& rng) {
  const std::vector<KernelPart>& parts = k.parts();
  for (std::size_t p = 0; p < parts.size(); ++p) {
    GPB_EXPECTS(spectral_dof(parts[p].type) > 0.0 || parts[p].type == KernelType::SE,
                "random Fourier features need stationary parts (se, matern12, matern32, "
                "matern52), but part "
                    << p << " of " << k.describe() << " is " << kernel_type_name(parts[p].type));
  }
  GPB_EXPECTS(d == k.input_dim(), "random Fourier features: points have dimension "
                                      << d << " but " << k.describe() << " has " << k.input_dim()
                                      << " features");
  const bool sum = k.type() == KernelType::Sum;
  const auto P = static_cast<int>(parts.size());
  GPB_EXPECTS(!sum || features >= P, "random Fourier features: a sum of "
                                         << P << " parts needs features >= " << P
                                         << " (a block per part), got " << features);
  const int m = features;
  const Eigen::VectorXd& inv = k.inverse_lengthscales();
  RffDraw r;
  r.w = Eigen::MatrixXd::Zero(d, m);
  r.b.resize(m);
  r.z.resize(m);
  r.amplitude.resize(m);
  // A sum's block of features per part: M_p = ⌊M/P⌋, the first M mod P parts one more.
  const auto block = [m, P](int p) { return m / P + (p < m % P ? 1 : 0); };
  int part = 0, block_end = sum ? block(0) : m;
  for (int i = 0; i < m; ++i) {
    if (sum && i == block_end) block_end += block(++part);
    if (sum) {
      const KernelPart& kp = parts[static_cast<std::size_t>(part)];
      draw_part_frequencies(kp, inv, i, r.w, rng);
      r.amplitude(i) = std::sqrt(2.0 * kp.variance / block(part));
    } else {
      for (const KernelPart& kp : parts) draw_part_frequencies(kp, inv, i, r.w, rng);
      r.amplitude(i) = std::sqrt(2.0 * k.variance() / m);
    }
    r.b(i) = kTwoPi * rng.uniform();
    r.z(i) = rng.normal();
  }
  r.z.array() *= r.amplitude.array();
  return r;
}

}  // namespace

Eigen::MatrixXd prior_factor(const Context& ctx, const Kernel& k,
                             const Eigen::Ref<const Eigen::MatrixXd>& points) {
  Cholesky chol;
  {
    const Eigen::MatrixXd K = kernel_matrix(ctx, k, points, points);
    chol.factor(K);
  }
  return chol.matrix();
}

Eigen::VectorXd exact_prior_sample(const Eigen::MatrixXd& factor, Rng& rng) {
  Eigen::VectorXd z(factor.rows());
  for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = rng.normal();
  return factor.triangularView<Eigen::Lower>() * z;
}

RffDraw draw_rff(const Kernel& k, int d, int features, Rng& rng) {
  GPB_EXPECTS(k.stationary() || k.composite(),
              "random Fourier features need a stationary kernel (se, matern12, "
              "matern32, matern52) or a product or sum of them, got "
                  << k.describe());
  GPB_EXPECTS(features >= 1, "random Fourier features: features must be >= 1, got " << features);
  if (k.composite()) return draw_composite_rff(k, d, features, rng);
  GPB_EXPECTS(!k.is_ard() || d == k.ard_dim(), "random Fourier features: points have dimension "
                                                   << d << " but " << k.describe() << " has "
                                                   << k.ard_dim() << " lengthscales");
  const int m = features;
  const double dof = spectral_dof(k.type());
  const Eigen::VectorXd& inv = k.inverse_lengthscales();
  RffDraw r;
  r.w.resize(d, m);
  r.b.resize(m);
  r.z.resize(m);
  for (int i = 0; i < m; ++i) {
    for (int q = 0; q < d; ++q) r.w(q, i) = rng.normal();
    const double stretch = dof > 0.0 ? std::sqrt(dof / sample_chi_square(rng, dof)) : 1.0;
    if (k.is_ard()) {
      for (int q = 0; q < d; ++q) r.w(q, i) *= inv[q] * stretch;
    } else {
      r.w.col(i) *= inv[0] * stretch;
    }
    r.b(i) = kTwoPi * rng.uniform();
    r.z(i) = rng.normal();
  }
  const double amplitude = std::sqrt(2.0 * k.variance() / m);
  r.z *= amplitude;
  r.amplitude = Eigen::VectorXd::Constant(m, amplitude);
  return r;
}

Eigen::Index rff_block(int features) {
  return std::max<Eigen::Index>(1, kBlockDoubles / features);
}

void rff_values(const Context& ctx, const RffDraw& r,
                const Eigen::Ref<const Eigen::MatrixXd>& points, Eigen::Ref<Eigen::VectorXd> out) {
  Eigen::MatrixXd phase = r.w.transpose() * points;
  phase.colwise() += r.b;
  const Eigen::Index total = phase.size();
  double* data = phase.data();
  const int nt = ctx.threads_for(20.0 * static_cast<double>(total));  // ~20 operations a cos
#pragma omp parallel for schedule(static) num_threads(nt)
  for (Eigen::Index e = 0; e < total; ++e) data[e] = std::cos(data[e]);
  out.noalias() = phase.transpose() * r.z;
}

Eigen::VectorXd rff_prior_sample(const Context& ctx, const Kernel& k,
                                 const Eigen::Ref<const Eigen::MatrixXd>& points, int features,
                                 Rng& rng) {
  const RffDraw r = draw_rff(k, static_cast<int>(points.rows()), features, rng);
  const Eigen::Index n = points.cols(), block = rff_block(features);
  Eigen::VectorXd f(n);
  for (Eigen::Index start = 0; start < n; start += block) {
    const Eigen::Index len = std::min(block, n - start);
    rff_values(ctx, r, points.middleCols(start, len), f.segment(start, len));
  }
  return f;
}

}  // namespace gpb::detail
