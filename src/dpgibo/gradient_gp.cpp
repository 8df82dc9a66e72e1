// GradientGp: the SE-kernel GP of DP-GIBO and its gradient posterior (specs/dp-gibo.md §2–3).
#include "gpbandit/dpgibo/gradient_gp.hpp"

#include <cmath>
#include <memory>

#include "gpbandit/engine/kernel_derivative.hpp"
#include "gpbandit/error.hpp"

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
  GPB_EXPECTS(kernel.type() == KernelType::SE || kernel.type() == KernelType::Polynomial,
              "GradientGp: the kernel must be SE or polynomial, got " << kernel.describe());
  GPB_EXPECTS(dim >= 1, "GradientGp: dimension must be >= 1, got " << dim);
  if (kernel.type() == KernelType::Polynomial) {
    kernel_ = kernel;
    poly_ = true;
  }
}

GradientGp::GradientGp(const Context& ctx, const Eigen::VectorXd& lengthscales, double variance,
                       double noise_variance, double jitter)
    : ctx_(&ctx),
      kernel_(Kernel::se(1.0, variance)),
      poly_(false),
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
  if (poly_) {  // ∂/∂θ_a v(θᵀx + c)^p = p·v·(θᵀx + c)^{p−1}·x_a
    const int p = kernel_.degree();
    const Eigen::RowVectorXd dot = (theta.transpose() * Xu).array() + kernel_.offset();
    const Eigen::RowVectorXd f = p * kernel_.variance() * dot.array().pow(p - 1);
    return Xu * f.asDiagonal();
  }
  // J(θ, x) = ∇_θ k = diag(ℓ⁻¹)·∇_u k(u_θ, u_x) (chain rule).
  const Eigen::MatrixXd tu = scaled(theta);
  return ell_.cwiseInverse().asDiagonal() * se_kernel_grad(*ctx_, kernel_, tu, Xu);
}

Eigen::VectorXd GradientGp::diag(const Eigen::Ref<const Eigen::MatrixXd>& Xu) const {
  if (!poly_) return Eigen::VectorXd::Constant(Xu.cols(), kernel_.variance());
  const Eigen::ArrayXd q = Xu.colwise().squaredNorm().transpose().array() + kernel_.offset();
  return kernel_.variance() * q.pow(kernel_.degree()).matrix();
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
  GPB_EXPECTS(!poly_, "GradientGp::prior_trace: a polynomial kernel's depends on θ");
  return kernel_.variance() * ell_.cwiseInverse().squaredNorm();
}

double GradientGp::prior_trace_at(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  if (!poly_) return prior_trace();
  // Σ_a ∂²k(θ, θ')/∂θ_a∂θ'_a at θ' = θ, with q = ‖θ‖² + c.
  const int p = kernel_.degree();
  const double t2 = theta.squaredNorm(), q = t2 + kernel_.offset();
  const double second = p >= 2 ? (p - 1) * t2 * std::pow(q, p - 2) : 0.0;
  return p * kernel_.variance() * (d_ * std::pow(q, p - 1) + second);
}

Eigen::MatrixXd GradientGp::whitened_grad(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  GPB_EXPECTS(theta.size() == d_, "theta has dimension " << theta.size() << ", expected " << d_);
  Eigen::MatrixXd W = grad_block(theta, U_).transpose();  // N×d
  if (W.rows() > 0) chol_.solve_lower(W);
  return W;
}

double GradientGp::trace(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  return prior_trace_at(theta) - whitened_grad(theta).squaredNorm();
}

Eigen::MatrixXd GradientGp::gradient_operator(
    const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  Eigen::MatrixXd A = whitened_grad(theta);  // N×d
  if (A.rows() > 0) chol_.solve_upper(A);
  return A.transpose();
}

GradientGp::PointTerms GradientGp::point_terms(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                               const Eigen::Ref<const Eigen::VectorXd>& z) const {
  PointTerms t;
  const int N = size();
  t.kD.resize(N);
  t.P.resize(N, d_);
  const double v = kernel_.variance();
  if (poly_) {  // k = v(xᵀz + c)^p
    const int p = kernel_.degree();
    const double c = kernel_.offset(), qz = z.squaredNorm() + c, qt = theta.dot(z) + c;
    t.kzz = v * std::pow(qz, p);
    t.dkzz = 2 * p * v * std::pow(qz, p - 1) * z;
    t.Jz = p * v * std::pow(qt, p - 1) * z;
    t.dJ = p * v * std::pow(qt, p - 1) * Eigen::MatrixXd::Identity(d_, d_);
    if (p >= 2) t.dJ += p * (p - 1) * v * std::pow(qt, p - 2) * z * theta.transpose();
    for (int j = 0; j < N; ++j) {
      const double q = D_.col(j).dot(z) + c;
      t.kD(j) = v * std::pow(q, p);
      t.P.row(j) = p * v * std::pow(q, p - 1) * D_.col(j).transpose();
    }
    return t;
  }
  // SE in u = x ⊘ ℓ: k = v·exp(−½‖u − u′‖²); ∂/∂x_a = ℓ_a⁻¹ ∂/∂u_a.
  const Eigen::VectorXd il = ell_.cwiseInverse();
  const Eigen::VectorXd diff = scaled(theta) - scaled(z);  // θ_u − z_u
  const double kz = v * std::exp(-0.5 * diff.squaredNorm());
  t.kzz = v;
  t.dkzz = Eigen::VectorXd::Zero(d_);
  t.Jz = -(il.asDiagonal() * diff) * kz;
  // ∂J_a/∂z_b = ℓ_a⁻¹ℓ_b⁻¹·k·[δ_ab − (θ_u − z_u)_a(θ_u − z_u)_b]
  t.dJ = il.asDiagonal() * (kz * (Eigen::MatrixXd::Identity(d_, d_) - diff * diff.transpose())) *
         il.asDiagonal();
  const Eigen::VectorXd zu = scaled(z);
  for (int j = 0; j < N; ++j) {
    const Eigen::VectorXd dj = U_.col(j) - zu;
    t.kD(j) = v * std::exp(-0.5 * dj.squaredNorm());
    t.P.row(j) = (il.asDiagonal() * dj * t.kD(j)).transpose();
  }
  return t;
}

double GradientGp::decrement_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                          const Eigen::Ref<const Eigen::MatrixXd>& A,
                                          const Eigen::Ref<const Eigen::VectorXd>& z,
                                          Eigen::VectorXd& grad) const {
  GPB_EXPECTS(A.rows() == d_ && A.cols() == size(), "decrement_and_gradient: A must be d×N");
  GPB_EXPECTS(theta.size() == d_ && z.size() == d_, "decrement_and_gradient: dimension");
  const PointTerms t = point_terms(theta, z);
  Eigen::VectorXd w = t.kD;  // K⁻¹k(D, z)
  if (size() > 0) {
    chol_.solve_lower(w);
    chol_.solve_upper(w);
  }
  const double s = t.kzz + noise_ + jitter_ - t.kD.dot(w);
  const Eigen::VectorXd r = t.Jz - A * t.kD;
  if (!(s > 0)) {
    grad = Eigen::VectorXd::Zero(d_);
    return 0.0;
  }
  const double delta = r.squaredNorm() / s;
  const Eigen::MatrixXd dr = t.dJ - A * t.P;                      // d×d, columns: ∂r/∂z_b
  const Eigen::VectorXd ds = t.dkzz - 2.0 * t.P.transpose() * w;  // ∂s/∂z
  grad = 2.0 * dr.transpose() * r / s - delta * ds / s;
  return delta;
}

GradientSurrogate::DecrementFn GradientGp::decrement_at(
    const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  const Eigen::VectorXd th = theta;
  const Eigen::MatrixXd A = gradient_operator(theta);
  return [this, th, A](const Eigen::VectorXd& z, Eigen::VectorXd& grad) {
    return decrement_and_gradient(th, A, z, grad);
  };
}

std::unique_ptr<GradientSurrogate> GradientGp::clone() const {
  return std::make_unique<GradientGp>(*this);
}

std::unique_ptr<GradientSurrogate> GradientGp::empty_copy() const {
  if (poly_) return std::make_unique<GradientGp>(*ctx_, kernel_, d_, noise_, jitter_);
  return std::make_unique<GradientGp>(*ctx_, ell_, kernel_.variance(), noise_, jitter_);
}

GradientGp::Candidates GradientGp::score(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                         const Eigen::Ref<const Eigen::MatrixXd>& C) const {
  GPB_EXPECTS(C.rows() == d_, "score: candidates have dimension " << C.rows());
  Candidates p;
  p.C = C;
  p.theta = theta;
  const Eigen::MatrixXd W = whitened_grad(theta);  // N×d
  const Eigen::MatrixXd Cu = scaled(C);
  p.R = grad_block(theta, Cu);  // d×q
  p.s = diag(Cu).array() + noise_ + jitter_;
  p.V = Eigen::MatrixXd(size(), C.cols());
  if (size() > 0) {
    p.V = kernel_matrix(*ctx_, kernel_, U_, Cu);  // N×q
    chol_.solve_lower(p.V);
    p.R.noalias() -= W.transpose() * p.V;
    p.s -= p.V.colwise().squaredNorm().transpose();
  }
  return p;
}

Eigen::VectorXd GradientSurrogate::Candidates::decrements() const {
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
