// Cholesky factor with an explicit jitter policy, O(t²) append and triangular solves.
//
// Jitter schedule (ops.hpp, JitterPolicy): attempt 0 adds `initial` to the diagonal; attempt
// k = 1..max_tries adds initial + first·s·factor^(k−1), where s is the mean diagonal of the matrix
// when `relative` (1 otherwise). When every attempt fails, NumericalError names the largest jitter
// tried and the matrix size.
#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "gpbandit/build_config.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#if GPB_HAS_CUDA
#include "engine/detail/cholesky_backend.hpp"
#endif

namespace gpb {

namespace {
double jitter_at(const JitterPolicy& p, int attempt, double scale) {
  if (attempt == 0) return p.initial;
  return p.initial + p.first * scale * std::pow(p.factor, attempt - 1);
}

double relative_scale(const JitterPolicy& p, double mean_diag) {
  if (!p.relative) return 1.0;
  return (std::isfinite(mean_diag) && mean_diag > 0) ? mean_diag : 1.0;
}

[[noreturn]] void throw_not_pd(const char* what, int n, const JitterPolicy& p, double largest) {
  std::ostringstream os;
  os << what << ": the " << n << "x" << n
     << " matrix is not positive definite; largest jitter tried " << largest << " ("
     << p.max_tries + 1 << " attempts)";
  throw NumericalError(os.str());
}
}  // namespace

Cholesky::Cholesky(JitterPolicy policy) : policy_(policy) {
  GPB_EXPECTS(std::isfinite(policy.initial) && policy.initial >= 0,
              "jitter.initial must be >= 0, got " << policy.initial);
  GPB_EXPECTS(std::isfinite(policy.first) && policy.first > 0,
              "jitter.first must be > 0, got " << policy.first);
  GPB_EXPECTS(std::isfinite(policy.factor) && policy.factor >= 1,
              "jitter.factor must be >= 1, got " << policy.factor);
  GPB_EXPECTS(policy.max_tries >= 0, "jitter.max_tries must be >= 0, got " << policy.max_tries);
}

Cholesky::Cholesky(const Context& ctx, JitterPolicy policy) : Cholesky(policy) {
  if (ctx.backend() == Backend::Cuda) ctx_ = &ctx;
}

bool Cholesky::on_cuda() const {
  return GPB_HAS_CUDA != 0 && ctx_ != nullptr;
}

void Cholesky::reserve(int cap) {
  if (cap <= cap_) return;
  Eigen::MatrixXd grown = Eigen::MatrixXd::Zero(cap, cap);
  grown.topLeftCorner(n_, n_) = L_.topLeftCorner(n_, n_);
  L_.swap(grown);
  cap_ = cap;
}

void Cholesky::factor(const Eigen::Ref<const Eigen::MatrixXd>& A) {
  GPB_EXPECTS(A.rows() == A.cols(),
              "Cholesky::factor: matrix must be square, got " << A.rows() << "x" << A.cols());
  const int n = static_cast<int>(A.rows());
  for (int j = 0; j < n; ++j) {
    for (int i = j; i < n; ++i) {
      GPB_EXPECTS(std::isfinite(A(i, j)),
                  "Cholesky::factor: entry (" << i << ", " << j << ") is not finite");
    }
  }
  const double scale = relative_scale(policy_, n > 0 ? A.diagonal().mean() : 1.0);
  Eigen::MatrixXd work(n, n);
  double jitter = 0;
  for (int attempt = 0; attempt <= policy_.max_tries; ++attempt) {
    jitter = jitter_at(policy_, attempt, scale);
    work.triangularView<Eigen::Lower>() = A;
    work.diagonal().array() += jitter;
    bool ok = false;
#if GPB_HAS_CUDA
    if (on_cuda()) ok = detail::cholesky_potrf_cuda(*ctx_, device_, work);
#endif
    if (!on_cuda()) {
      Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(work);
      ok = llt.info() == Eigen::Success;
    }
    if (ok && (n == 0 || work.diagonal().minCoeff() > 0)) {
      n_ = 0;
      reserve(std::max(n, 1));
      n_ = n;
      L_.topLeftCorner(n, n) = work.triangularView<Eigen::Lower>();
      jitter_used_ = jitter;
      return;
    }
  }
  throw_not_pd("Cholesky::factor", n, policy_, jitter);
}

void Cholesky::append(const Eigen::Ref<const Eigen::VectorXd>& b, double c) {
  GPB_EXPECTS(b.size() == n_,
              "Cholesky::append: b must have " << n_ << " entries, got " << b.size());
  GPB_EXPECTS(std::isfinite(c) && b.allFinite(), "Cholesky::append: b and c must be finite");
  Eigen::VectorXd w = b;
#if GPB_HAS_CUDA
  if (on_cuda()) detail::cholesky_trsv_cuda(*ctx_, device_, L_, n_, w.data());
#endif
  if (!on_cuda() && n_ > 0) L_.topLeftCorner(n_, n_).triangularView<Eigen::Lower>().solveInPlace(w);
  const double base = c - w.squaredNorm();
  double scale = 1.0, jitter = 0;
  for (int attempt = 0; attempt <= policy_.max_tries; ++attempt) {
    if (attempt == 1 && policy_.relative) {
      // Mean diagonal of the (jittered) matrix so far and c: A_ii = ‖L row i‖².
      const double sum = n_ > 0 ? L_.topLeftCorner(n_, n_).rowwise().squaredNorm().sum() : 0.0;
      scale = relative_scale(policy_, (sum + c) / (n_ + 1));
    }
    jitter = jitter_at(policy_, attempt, scale);
    const double pivot2 = base + jitter;
    if (std::isfinite(pivot2) && pivot2 > 0) {
      if (n_ + 1 > cap_) reserve(std::max(2 * cap_, std::max(n_ + 1, 16)));
      L_.row(n_).head(n_) = w.transpose();
      L_(n_, n_) = std::sqrt(pivot2);
#if GPB_HAS_CUDA
      if (on_cuda()) detail::cholesky_set_row_cuda(*ctx_, device_, L_, n_);
#endif
      ++n_;
      jitter_used_ = std::max(jitter_used_, jitter);
      return;
    }
  }
  throw_not_pd("Cholesky::append", n_ + 1, policy_, jitter);
}

Eigen::MatrixXd Cholesky::matrix() const {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(n_, n_);
  out.triangularView<Eigen::Lower>() = L_.topLeftCorner(n_, n_);
  return out;
}

void Cholesky::solve_lower(Eigen::Ref<Eigen::MatrixXd> b) const {
  GPB_EXPECTS(b.rows() == n_,
              "Cholesky::solve_lower: b must have " << n_ << " rows, got " << b.rows());
  if (n_ == 0) return;
#if GPB_HAS_CUDA
  if (on_cuda()) {
    detail::cholesky_solve_cuda(*ctx_, device_, L_, n_, b.data(), b.outerStride(),
                                static_cast<int>(b.cols()), false);
    return;
  }
#endif
  L_.topLeftCorner(n_, n_).triangularView<Eigen::Lower>().solveInPlace(b);
}

void Cholesky::solve_upper(Eigen::Ref<Eigen::MatrixXd> b) const {
  GPB_EXPECTS(b.rows() == n_,
              "Cholesky::solve_upper: b must have " << n_ << " rows, got " << b.rows());
  if (n_ == 0) return;
#if GPB_HAS_CUDA
  if (on_cuda()) {
    detail::cholesky_solve_cuda(*ctx_, device_, L_, n_, b.data(), b.outerStride(),
                                static_cast<int>(b.cols()), true);
    return;
  }
#endif
  L_.topLeftCorner(n_, n_).transpose().triangularView<Eigen::Upper>().solveInPlace(b);
}

}  // namespace gpb
