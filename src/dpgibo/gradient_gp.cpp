// GradientGp: the SE-kernel GP of DP-GIBO and its gradient posterior (specs/dp-gibo.md §2–3).
#include "gpbandit/dpgibo/gradient_gp.hpp"

#include <cmath>

#include "gpbandit/error.hpp"
#include "gpbandit/kernel_derivative.hpp"

namespace gpb::dpgibo {

namespace {
JitterPolicy escalating(double tau) {
  JitterPolicy p;
  p.initial = tau;
  p.first = 9 * tau;  // attempts: τ, 10τ, 100τ, 1000τ
  p.factor = 10;
  p.max_tries = 3;
  p.relative = false;
  return p;
}
}  // namespace

GradientGp::GradientGp(const Context& ctx, const Kernel& kernel, int dim, double noise_variance,
                       double jitter)
    : GradientGp(
          ctx,
          Eigen::VectorXd::Constant(std::max(dim, 1),
                                    kernel.type() == KernelType::SE ? kernel.lengthscale() : 1.0),
          kernel.variance(), noise_variance, jitter) {
  GPB_EXPECTS(kernel.type() == KernelType::SE, "GradientGp: the kernel must be SE");
  GPB_EXPECTS(dim >= 1, "GradientGp: dimension must be >= 1, got " << dim);
}

GradientGp::GradientGp(const Context& ctx, const Eigen::VectorXd& lengthscales, double variance,
                       double noise_variance, double jitter)
    : ctx_(&ctx),
      kernel_(Kernel::se(1.0, variance)),
      ell_(lengthscales),
      d_(static_cast<int>(lengthscales.size())),
      noise_(noise_variance),
      jitter_(jitter),
      D_(lengthscales.size(), 0),
      U_(lengthscales.size(), 0),
      chol_(ctx, escalating(jitter > 0 ? jitter : 1.0)) {
  GPB_EXPECTS(d_ >= 1, "GradientGp: dimension must be >= 1, got " << d_);
  for (int a = 0; a < d_; ++a) {
    GPB_EXPECTS(std::isfinite(ell_(a)) && ell_(a) > 0,
                "lengthscale[" << a << "]: must be > 0, got " << ell_(a));
  }
  GPB_EXPECTS(std::isfinite(noise_variance) && noise_variance >= 0,
              "sigma2: must be >= 0, got " << noise_variance);
  GPB_EXPECTS(std::isfinite(jitter) && jitter > 0, "jitter: must be > 0, got " << jitter);
}

double GradientGp::jitter_used() const {
  return std::max(jitter_, chol_.jitter_used());
}

Eigen::MatrixXd GradientGp::scaled(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  GPB_EXPECTS(X.rows() == d_,
              "GradientGp: points have dimension " << X.rows() << ", expected " << d_);
  return ell_.cwiseInverse().asDiagonal() * X;
}

Eigen::MatrixXd GradientGp::grad_block(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                       const Eigen::Ref<const Eigen::MatrixXd>& Xu) const {
  // J(θ, x) = ∇_θ k = diag(ℓ⁻¹)·∇_u k(u_θ, u_x) (chain rule).
  const Eigen::MatrixXd tu = scaled(theta);
  return ell_.cwiseInverse().asDiagonal() * se_kernel_grad(*ctx_, kernel_, tu, Xu);
}

void GradientGp::append(const Eigen::Ref<const Eigen::MatrixXd>& Z) {
  const Eigen::MatrixXd Zu = scaled(Z);
  const Eigen::Index n0 = D_.cols();
  D_.conservativeResize(Eigen::NoChange, n0 + Z.cols());
  D_.rightCols(Z.cols()) = Z;
  U_.conservativeResize(Eigen::NoChange, n0 + Z.cols());
  U_.rightCols(Z.cols()) = Zu;
  const Eigen::MatrixXd K = kernel_matrix(*ctx_, kernel_, U_, Zu);  // (n0+b)×b
  for (Eigen::Index j = 0; j < Z.cols(); ++j) {
    const Eigen::Index t = n0 + j;
    chol_.append(K.col(j).head(t), K(t, j) + noise_);
  }
}

double GradientGp::prior_trace() const {
  return kernel_.variance() * ell_.cwiseInverse().squaredNorm();
}

Eigen::MatrixXd GradientGp::whitened_grad(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  GPB_EXPECTS(theta.size() == d_, "theta has dimension " << theta.size() << ", expected " << d_);
  Eigen::MatrixXd W = grad_block(theta, U_).transpose();  // N×d
  if (W.rows() > 0) chol_.solve_lower(W);
  return W;
}

double GradientGp::trace(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  return prior_trace() - whitened_grad(theta).squaredNorm();
}

Eigen::MatrixXd GradientGp::gradient_operator(
    const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  Eigen::MatrixXd A = whitened_grad(theta);  // N×d
  if (A.rows() > 0) chol_.solve_upper(A);
  return A.transpose();
}

double GradientGp::decrement_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                          const Eigen::Ref<const Eigen::MatrixXd>& A,
                                          const Eigen::Ref<const Eigen::VectorXd>& z,
                                          Eigen::VectorXd& grad) const {
  GPB_EXPECTS(A.rows() == d_ && A.cols() == size(), "decrement_and_gradient: A must be d×N");
  const Eigen::VectorXd tu = scaled(theta), zu = scaled(z);
  const Eigen::VectorXd il = ell_.cwiseInverse();
  const double s2 = kernel_.variance();
  // In u coordinates the kernel is s²·exp(−½‖u − u′‖²); derivatives in u, then ⊘ ℓ at the end.
  const Eigen::VectorXd diff = tu - zu;                        // θ_u − z_u
  const double kz = s2 * std::exp(-0.5 * diff.squaredNorm());  // k(θ, z)
  const Eigen::VectorXd Jz = -(il.asDiagonal() * diff) * kz;   // J(θ, z) in θ units
  Eigen::VectorXd kD(size());
  Eigen::MatrixXd P(size(), d_);  // P_{j,b} = ∂k(x_j, z)/∂u_{z,b}
  for (int j = 0; j < size(); ++j) {
    const Eigen::VectorXd dj = U_.col(j) - zu;
    kD(j) = s2 * std::exp(-0.5 * dj.squaredNorm());
    P.row(j) = (dj * kD(j)).transpose();
  }
  Eigen::VectorXd w = kD;  // K⁻¹k(D, z)
  if (size() > 0) {
    chol_.solve_lower(w);
    chol_.solve_upper(w);
  }
  const double s = s2 + noise_ + jitter_ - kD.dot(w);
  const Eigen::VectorXd r = Jz - A * kD;
  if (!(s > 0)) {
    grad = Eigen::VectorXd::Zero(d_);
    return 0.0;
  }
  const double delta = r.squaredNorm() / s;
  // ∂J_a/∂u_{z,b} = ℓ_a⁻¹·k·[δ_ab − (θ_u − z_u)_a(θ_u − z_u)_b]
  const Eigen::MatrixXd dJ =
      il.asDiagonal() * (kz * (Eigen::MatrixXd::Identity(d_, d_) - diff * diff.transpose()));
  const Eigen::MatrixXd dr = dJ - A * P;                // d×d, columns: ∂r/∂u_{z,b}
  const Eigen::VectorXd ds = -2.0 * P.transpose() * w;  // ∂s/∂u_z
  const Eigen::VectorXd gu = 2.0 * dr.transpose() * r / s - delta * ds / s;
  grad = il.asDiagonal() * gu;  // ∂/∂z_b = ℓ_b⁻¹ ∂/∂u_{z,b}
  return delta;
}

GradientGp::Candidates GradientGp::score(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                         const Eigen::Ref<const Eigen::MatrixXd>& C) const {
  GPB_EXPECTS(C.rows() == d_, "score: candidates have dimension " << C.rows());
  Candidates p;
  p.C = C;
  const Eigen::MatrixXd W = whitened_grad(theta);  // N×d
  const Eigen::MatrixXd Cu = scaled(C);
  p.R = grad_block(theta, Cu);  // d×q
  p.s = Eigen::VectorXd::Constant(C.cols(), kernel_.variance() + noise_ + jitter_);
  p.V = Eigen::MatrixXd(size(), C.cols());
  if (size() > 0) {
    p.V = kernel_matrix(*ctx_, kernel_, U_, Cu);  // N×q
    chol_.solve_lower(p.V);
    p.R.noalias() -= W.transpose() * p.V;
    p.s -= p.V.colwise().squaredNorm().transpose();
  }
  return p;
}

Eigen::VectorXd GradientGp::Candidates::decrements() const {
  Eigen::VectorXd delta(C.cols());
  for (Eigen::Index j = 0; j < C.cols(); ++j) {
    delta(j) = s(j) > 0 ? R.col(j).squaredNorm() / s(j) : 0.0;
  }
  return delta;
}

void GradientGp::append_candidate(Candidates& p, int j) {
  GPB_EXPECTS(j >= 0 && j < p.C.cols(), "append_candidate: index " << j << " out of range");
  GPB_EXPECTS(p.V.rows() == size(), "append_candidate: the pool is stale");
  const double piv = std::sqrt(std::max(p.s(j), 1e-300));
  const Eigen::MatrixXd Cu = scaled(p.C);
  const Eigen::RowVectorXd kz = kernel_matrix(*ctx_, kernel_, Cu.col(j), Cu);  // 1×q
  const Eigen::RowVectorXd vnew = (kz - p.V.col(j).transpose() * p.V) / piv;
  const Eigen::VectorXd wnew = p.R.col(j) / piv;
  p.R.noalias() -= wnew * vnew;
  p.s -= vnew.transpose().cwiseAbs2();
  p.V.conservativeResize(p.V.rows() + 1, Eigen::NoChange);
  p.V.row(p.V.rows() - 1) = vnew;
  append(p.C.col(j));
}

Eigen::VectorXd GradientGp::trace_decrement(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                            const Eigen::Ref<const Eigen::MatrixXd>& C) const {
  return score(theta, C).decrements();
}

Eigen::MatrixXd GradientGp::mean_gradients(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                           const Eigen::Ref<const Eigen::MatrixXd>& Y) const {
  GPB_EXPECTS(Y.rows() == size(),
              "mean_gradients: Y has " << Y.rows() << " rows, expected N = " << size());
  if (size() == 0) return Eigen::MatrixXd::Zero(d_, Y.cols());
  const Eigen::MatrixXd J = grad_block(theta, U_);  // d×N
  if (Y.cols() >= d_) {
    Eigen::MatrixXd A = J.transpose();  // N×d → K⁻¹Jᵀ
    chol_.solve_lower(A);
    chol_.solve_upper(A);
    return A.transpose() * Y;
  }
  Eigen::MatrixXd S = Y;  // N×n → K⁻¹Y
  chol_.solve_lower(S);
  chol_.solve_upper(S);
  return J * S;
}

double axis_design_trace(int d, double s2, double lengthscale, double sigma2, int m, double h) {
  GPB_EXPECTS(h > 0 && m >= 1 && sigma2 >= 0 && s2 > 0 && lengthscale > 0,
              "axis_design_trace: bad arguments");
  const double u = (h / lengthscale) * (h / lengthscale);
  const double denom = (1 - std::exp(-2 * u)) + sigma2 / (m * s2);
  return d * (s2 / (lengthscale * lengthscale)) * (1 - 2 * u * std::exp(-u) / denom);
}

double axis_design_step(int d, double s2, double lengthscale, double sigma2, int m) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = 0.1 * lengthscale, b = lengthscale;
  auto f = [&](double h) { return axis_design_trace(d, s2, lengthscale, sigma2, m, h); };
  double c = b - g * (b - a), e = a + g * (b - a);
  double fc = f(c), fe = f(e);
  while (b - a > 1e-8 * lengthscale) {
    if (fc < fe) {
      b = e;
      e = c;
      fe = fc;
      c = b - g * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = e;
      fc = fe;
      e = a + g * (b - a);
      fe = f(e);
    }
  }
  return 0.5 * (a + b);
}

}  // namespace gpb::dpgibo
