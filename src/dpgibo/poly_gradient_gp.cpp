// PolyWeightGp: the weight-space GP of the degree-2 polynomial kernel (specs/dp-gibo.md §2).
#include "gpbandit/dpgibo/poly_gradient_gp.hpp"

#include <cmath>
#include <memory>

#include "gpbandit/error.hpp"

namespace gpb::dpgibo {

PolyWeightGp::PolyWeightGp(int dim, double variance, double offset, double noise_variance,
                           double jitter)
    : d_(dim),
      p_((dim + 1) * (dim + 2) / 2),
      v_(variance),
      c_(offset),
      noise_(noise_variance),
      jitter_(jitter),
      jitter_used_(jitter) {
  GPB_EXPECTS(dim >= 1, "PolyWeightGp: dimension must be >= 1, got " << dim);
  GPB_EXPECTS(std::isfinite(variance) && variance > 0, "variance: must be > 0, got " << variance);
  GPB_EXPECTS(std::isfinite(offset) && offset >= 0, "offset: must be >= 0, got " << offset);
  GPB_EXPECTS(std::isfinite(noise_variance) && noise_variance >= 0,
              "sigma2: must be >= 0, got " << noise_variance);
  GPB_EXPECTS(std::isfinite(jitter) && jitter > 0, "jitter: must be > 0, got " << jitter);
  D_.resize(d_, 0);
  Psi_.resize(0, p_);
  G_ = Eigen::MatrixXd::Zero(p_, p_);
  refactor();
}

Eigen::VectorXd PolyWeightGp::features(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  GPB_EXPECTS(x.size() == d_, "PolyWeightGp: point of dimension " << x.size());
  Eigen::VectorXd f(p_);
  const double r2 = std::sqrt(2.0);
  f(0) = c_;
  int k = 1 + 2 * d_;
  for (int a = 0; a < d_; ++a) {
    f(1 + a) = std::sqrt(2 * c_) * x(a);
    f(1 + d_ + a) = x(a) * x(a);
    for (int b = a + 1; b < d_; ++b) f(k++) = r2 * x(a) * x(b);
  }
  return std::sqrt(v_) * f;
}

Eigen::MatrixXd PolyWeightGp::feature_jacobian(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  GPB_EXPECTS(x.size() == d_, "PolyWeightGp: point of dimension " << x.size());
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(p_, d_);
  const double r2 = std::sqrt(2.0);
  int k = 1 + 2 * d_;
  for (int a = 0; a < d_; ++a) {
    J(1 + a, a) = std::sqrt(2 * c_);
    J(1 + d_ + a, a) = 2 * x(a);
    for (int b = a + 1; b < d_; ++b) {
      J(k, a) = r2 * x(b);
      J(k, b) = r2 * x(a);
      ++k;
    }
  }
  return std::sqrt(v_) * J;
}

void PolyWeightGp::refactor() {
  for (int tries = 0;; ++tries) {
    llt_.compute(G_ + noise_eff() * Eigen::MatrixXd::Identity(p_, p_));
    if (llt_.info() == Eigen::Success) return;
    if (tries == 3) {
      throw NumericalError(
          "PolyWeightGp: Psi'Psi + sigma_e^2 I is not positive definite with "
          "jitter " +
          std::to_string(jitter_used_));
    }
    jitter_used_ *= 10;
  }
}

void PolyWeightGp::append(const Eigen::Ref<const Eigen::MatrixXd>& Z) {
  GPB_EXPECTS(Z.rows() == d_, "PolyWeightGp: points have dimension " << Z.rows());
  const Eigen::Index n0 = D_.cols();
  D_.conservativeResize(Eigen::NoChange, n0 + Z.cols());
  D_.rightCols(Z.cols()) = Z;
  Psi_.conservativeResize(n0 + Z.cols(), Eigen::NoChange);
  for (Eigen::Index j = 0; j < Z.cols(); ++j) {
    const Eigen::VectorXd f = features(Z.col(j));
    Psi_.row(n0 + j) = f.transpose();
    G_.noalias() += f * f.transpose();
  }
  refactor();
}

Eigen::MatrixXd PolyWeightGp::solve_lower(const Eigen::MatrixXd& B) const {
  return llt_.matrixL().solve(B);
}

double PolyWeightGp::prior_trace_at(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  return feature_jacobian(theta).squaredNorm();
}

double PolyWeightGp::trace(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  return noise_eff() * solve_lower(feature_jacobian(theta)).squaredNorm();
}

GradientSurrogate::Candidates PolyWeightGp::score(
    const Eigen::Ref<const Eigen::VectorXd>& theta,
    const Eigen::Ref<const Eigen::MatrixXd>& C) const {
  GPB_EXPECTS(C.rows() == d_, "score: candidates have dimension " << C.rows());
  Candidates pool;
  pool.C = C;
  pool.theta = theta;
  Eigen::MatrixXd F(p_, C.cols());
  for (Eigen::Index j = 0; j < C.cols(); ++j) F.col(j) = features(C.col(j));
  const Eigen::MatrixXd U = solve_lower(F);                         // p×q
  const Eigen::MatrixXd Vj = solve_lower(feature_jacobian(theta));  // p×d
  const double se2 = noise_eff();
  pool.R = se2 * Vj.transpose() * U;
  pool.s = se2 * (U.colwise().squaredNorm().transpose().array() + 1.0);
  return pool;
}

void PolyWeightGp::append_candidate(Candidates& pool, int j) {
  GPB_EXPECTS(j >= 0 && j < pool.C.cols(), "append_candidate: index " << j << " out of range");
  append(pool.C.col(j));
  pool = score(pool.theta, pool.C);
}

GradientSurrogate::DecrementFn PolyWeightGp::decrement_at(
    const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  const double se2 = noise_eff();
  const Eigen::MatrixXd Q = se2 * llt_.solve(feature_jacobian(theta));  // σ_e² M Jψ(θ), p×d
  return [this, Q, se2](const Eigen::VectorXd& z, Eigen::VectorXd& grad) {
    const Eigen::VectorXd f = features(z);
    const Eigen::MatrixXd Jz = feature_jacobian(z);
    const Eigen::VectorXd m = se2 * llt_.solve(f);
    const Eigen::VectorXd r = Q.transpose() * f;
    const double s = f.dot(m) + se2;
    const double delta = r.squaredNorm() / s;
    const Eigen::MatrixXd dr = Q.transpose() * Jz;
    const Eigen::VectorXd ds = 2.0 * Jz.transpose() * m;
    grad = 2.0 * dr.transpose() * r / s - delta * ds / s;
    return delta;
  };
}

Eigen::MatrixXd PolyWeightGp::mean_gradients(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                             const Eigen::Ref<const Eigen::MatrixXd>& Y) const {
  GPB_EXPECTS(Y.rows() == size(),
              "mean_gradients: Y has " << Y.rows() << " rows, expected N = " << size());
  if (size() == 0) return Eigen::MatrixXd::Zero(d_, Y.cols());
  const Eigen::MatrixXd W = llt_.solve(Psi_.transpose() * Y);  // M Ψᵀ Y, p×n
  return feature_jacobian(theta).transpose() * W;
}

std::unique_ptr<GradientSurrogate> PolyWeightGp::clone() const {
  return std::make_unique<PolyWeightGp>(*this);
}

std::unique_ptr<GradientSurrogate> PolyWeightGp::empty_copy() const {
  return std::make_unique<PolyWeightGp>(d_, v_, c_, noise_, jitter_);
}

}  // namespace gpb::dpgibo
