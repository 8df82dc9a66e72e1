// DP-GIBO tasks: normal location, weighted Huber regression, GP-regression lengthscale tuning.
#include <Eigen/Cholesky>

#include <cmath>
#include <sstream>

#include "gpbandit/dpgibo/task.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::dpgibo {

Eigen::MatrixXd Task::per_user_gradients(const Eigen::Ref<const Eigen::VectorXd>&) const {
  throw InvalidArgument("task " + describe() + " has no per-user gradients (DP-GD needs them)");
}

namespace {

/// Simulation stream for task data (distinct from the runner's objective/noise streams).
constexpr std::uint32_t kTaskStream = 101;

void check_box(int d, int n, double lo, double hi) {
  GPB_EXPECTS(d >= 1, "task.d: must be >= 1, got " << d);
  GPB_EXPECTS(n >= 1, "task.n: must be >= 1, got " << n);
  GPB_EXPECTS(std::isfinite(lo) && std::isfinite(hi) && lo < hi,
              "task.lower/upper: need lower < upper, got " << lo << ", " << hi);
}

class BoxTask : public Task {
 public:
  BoxTask(int d, double lo, double hi)
      : lo_(Eigen::VectorXd::Constant(d, lo)), hi_(Eigen::VectorXd::Constant(d, hi)) {}
  int dim() const override { return static_cast<int>(lo_.size()); }
  const Eigen::VectorXd& lower() const override { return lo_; }
  const Eigen::VectorXd& upper() const override { return hi_; }

 private:
  Eigen::VectorXd lo_, hi_;
};

class NormalLocation final : public BoxTask {
 public:
  NormalLocation(int d, int n, double centre, double spread, double lo, double hi,
                 std::uint64_t seed)
      : BoxTask(d, lo, hi), X_(d, n) {
    GPB_EXPECTS(std::isfinite(spread) && spread >= 0, "task.spread: must be >= 0, got " << spread);
    Rng rng(seed, 0, kTaskStream);
    for (int i = 0; i < n; ++i) {
      for (int a = 0; a < d; ++a) X_(a, i) = centre + spread * rng.normal();
    }
  }
  std::string describe() const override {
    std::ostringstream os;
    os << "normal_location(d=" << dim() << ", n=" << users() << ")";
    return os.str();
  }
  int users() const override { return static_cast<int>(X_.cols()); }
  Eigen::VectorXd losses(const Eigen::Ref<const Eigen::VectorXd>& theta) const override {
    return 0.5 * (X_.colwise() - theta).colwise().squaredNorm().transpose();
  }
  bool has_gradients() const override { return true; }
  Eigen::MatrixXd per_user_gradients(
      const Eigen::Ref<const Eigen::VectorXd>& theta) const override {
    return -(X_.colwise() - theta);
  }
  std::optional<Eigen::VectorXd> optimum() const override {
    Eigen::VectorXd m = X_.rowwise().mean();
    return m.cwiseMax(lower()).cwiseMin(upper());
  }

 private:
  Eigen::MatrixXd X_;
};

class Huber final : public BoxTask {
 public:
  Huber(int d, int n, double c, double lo, double hi, std::uint64_t seed)
      : BoxTask(d, lo, hi), X_(d, n), y_(n), w_(n), c_(c) {
    GPB_EXPECTS(std::isfinite(c) && c > 0, "task.c: must be > 0, got " << c);
    Rng rng(seed, 0, kTaskStream);
    for (int i = 0; i < n; ++i) {
      for (int a = 0; a < d; ++a) X_(a, i) = rng.normal();
      y_(i) = X_.col(i).sum() + rng.normal();  // θ* = 1
      w_(i) = std::min(1.0, 2.0 / X_.col(i).squaredNorm());
    }
  }
  std::string describe() const override {
    std::ostringstream os;
    os << "huber(d=" << dim() << ", n=" << users() << ", c=" << c_ << ")";
    return os.str();
  }
  int users() const override { return static_cast<int>(X_.cols()); }
  Eigen::VectorXd losses(const Eigen::Ref<const Eigen::VectorXd>& theta) const override {
    Eigen::VectorXd out(users());
    for (int i = 0; i < users(); ++i) {
      const double r = y_(i) - X_.col(i).dot(theta);
      const double rho = std::abs(r) <= c_ ? 0.5 * r * r : c_ * std::abs(r) - 0.5 * c_ * c_;
      out(i) = rho * w_(i);
    }
    return out;
  }
  bool has_gradients() const override { return true; }
  Eigen::MatrixXd per_user_gradients(
      const Eigen::Ref<const Eigen::VectorXd>& theta) const override {
    Eigen::MatrixXd G(dim(), users());
    for (int i = 0; i < users(); ++i) {
      const double r = y_(i) - X_.col(i).dot(theta);
      const double psi = std::max(-c_, std::min(c_, r));
      G.col(i) = -psi * w_(i) * X_.col(i);
    }
    return G;
  }

 private:
  Eigen::MatrixXd X_;
  Eigen::VectorXd y_, w_;
  double c_;
};

class GpLengthscale final : public BoxTask {
 public:
  GpLengthscale(int d, int n_train, int n_val, std::uint64_t seed, double input_range)
      : BoxTask(d, -2.0, 2.0),
        Xt_(d, n_train),
        Xv_(d, n_val),
        yt_(n_train),
        yv_(n_val),
        range_(input_range) {
    GPB_EXPECTS(n_train >= 1, "task.n_train: must be >= 1, got " << n_train);
    const int n = n_train + n_val;
    Rng rng(seed, 0, kTaskStream);
    Eigen::MatrixXd X(d, n);
    // U[0, L]: the unit-cube draws scaled (L = 1 leaves them, and so the task, bit-identical).
    for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = range_ * rng.uniform();
    // f ~ GP(0, SE ℓ=1, s²=1) at the n inputs: f = L z with L = chol(K + 1e-8 I).
    Eigen::MatrixXd K(n, n);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) K(i, j) = std::exp(-0.5 * (X.col(i) - X.col(j)).squaredNorm());
    }
    K.diagonal().array() += 1e-8;
    Eigen::LLT<Eigen::MatrixXd> llt(K);
    if (llt.info() != Eigen::Success) throw NumericalError("GP-LS task: cannot sample the GP");
    Eigen::VectorXd z(n);
    for (int i = 0; i < n; ++i) z(i) = rng.normal();
    Eigen::VectorXd y = llt.matrixL() * z;
    for (int i = 0; i < n; ++i) y(i) += 0.1 * rng.normal();
    Xt_ = X.leftCols(n_train);
    Xv_ = X.rightCols(n_val);
    yt_ = y.head(n_train);
    yv_ = y.tail(n_val);
  }
  std::string describe() const override {
    std::ostringstream os;
    os << "gp_lengthscale(d=" << dim() << ", n_train=" << Xt_.cols() << ", n=" << users();
    if (range_ != 1.0) os << ", inputs U[0, " << range_ << "]^d";
    os << ")";
    return os.str();
  }
  int users() const override { return static_cast<int>(Xv_.cols()); }
  Eigen::VectorXd losses(const Eigen::Ref<const Eigen::VectorXd>& theta) const override {
    const Eigen::ArrayXd inv = (-theta.array()).exp();  // 1/ℓ_a
    const Eigen::MatrixXd St = (Xt_.array().colwise() * inv).matrix();
    const Eigen::MatrixXd Sv = (Xv_.array().colwise() * inv).matrix();
    const Eigen::Index m = St.cols();
    const Eigen::VectorXd nt = St.colwise().squaredNorm().transpose();
    const Eigen::VectorXd nv = Sv.colwise().squaredNorm().transpose();
    Eigen::MatrixXd K = St.transpose() * St;  // m×m
    for (Eigen::Index j = 0; j < m; ++j) {
      for (Eigen::Index i = 0; i < m; ++i) {
        K(i, j) = std::exp(-0.5 * std::max(0.0, nt(i) + nt(j) - 2 * K(i, j)));
      }
    }
    K.diagonal().array() += 0.01;
    Eigen::MatrixXd Kc = Sv.transpose() * St;  // n×m
    for (Eigen::Index j = 0; j < m; ++j) {
      for (Eigen::Index i = 0; i < Kc.rows(); ++i) {
        Kc(i, j) = std::exp(-0.5 * std::max(0.0, nv(i) + nt(j) - 2 * Kc(i, j)));
      }
    }
    Eigen::LLT<Eigen::MatrixXd> llt(K);
    if (llt.info() != Eigen::Success) throw NumericalError("GP-LS task: training matrix not PD");
    const Eigen::VectorXd alpha = llt.solve(yt_);
    return (yv_ - Kc * alpha).array().square().matrix();
  }

 private:
  Eigen::MatrixXd Xt_, Xv_;
  Eigen::VectorXd yt_, yv_;
  double range_;
};

}  // namespace

std::unique_ptr<Task> make_normal_location(int d, int n, double centre, double spread, double lo,
                                           double hi, std::uint64_t seed) {
  check_box(d, n, lo, hi);
  return std::make_unique<NormalLocation>(d, n, centre, spread, lo, hi, seed);
}

std::unique_ptr<Task> make_huber(int d, int n, double c, double lo, double hi, std::uint64_t seed) {
  check_box(d, n, lo, hi);
  return std::make_unique<Huber>(d, n, c, lo, hi, seed);
}

std::unique_ptr<Task> make_gp_lengthscale(int d, int n_train, int n_val, std::uint64_t seed,
                                          double input_range) {
  check_box(d, n_val, -2.0, 2.0);
  GPB_EXPECTS(input_range > 0 && std::isfinite(input_range),
              "task.input_range: must be a finite number > 0, got " << input_range);
  return std::make_unique<GpLengthscale>(d, n_train, n_val, seed, input_range);
}

double gp_lengthscale_scaled_range(int d) {
  GPB_EXPECTS(d >= 1, "task.d: must be >= 1, got " << d);
  return std::sqrt(15.0 / d);
}

}  // namespace gpb::dpgibo
