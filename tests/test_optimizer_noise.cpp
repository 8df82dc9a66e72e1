// gpb::Optimizer with known per-observation noise (tell's `noise`): the posterior is that of
// K + Λ (dense reference), also when the observations answer pending asks, off the candidate set
// and mixed with observations of unknown noise; a fit keeps the known variances fixed (its
// likelihood is the heteroscedastic one); the noise round-trips through a state; bad noise is
// refused with nothing recorded.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpbandit/engine/hyperfit.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/optimizer/optimizer.hpp"

namespace {

using gpb::Optimizer;
using gpb::OptimizerOptions;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

OptimizerOptions options() {
  OptimizerOptions o;
  o.domain = gpb::DomainSpec::grid({0, 0}, {1, 1}, {25, 20});
  o.kernel = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.25);
  o.noise_variance = 0.01;
  o.context.backend = gpb::Backend::Cpu;
  o.fit.every = 0;  // the kernel as given, y as told
  o.fit.normalize = false;
  return o;
}

double f(const Eigen::Vector2d& x) {
  return std::sin(5 * x[0]) * std::cos(3 * x[1]) + 0.5 * x[0];
}

/// μ, σ² at the rows of Q given the rows of X with y and per-row noise.
void dense(const gpb::Kernel& k, const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
           const Eigen::VectorXd& noise, const Eigen::MatrixXd& Q, Eigen::VectorXd& mean,
           Eigen::VectorXd& var) {
  const Eigen::Index t = X.rows(), m = Q.rows();
  Eigen::MatrixXd K(t, t), Kq(m, t);
  for (Eigen::Index a = 0; a < t; ++a) {
    for (Eigen::Index b = 0; b < t; ++b) {
      const Eigen::Vector2d xa = X.row(a).transpose(), xb = X.row(b).transpose();
      K(a, b) = k(xa.data(), xb.data(), 2);
    }
    for (Eigen::Index i = 0; i < m; ++i) {
      const Eigen::Vector2d xa = X.row(a).transpose(), q = Q.row(i).transpose();
      Kq(i, a) = k(q.data(), xa.data(), 2);
    }
  }
  K.diagonal() += noise;
  const Eigen::LLT<Eigen::MatrixXd> llt(K);
  mean = Kq * llt.solve(y);
  var.resize(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    const Eigen::Vector2d q = Q.row(i).transpose();
    var[i] = k(q.data(), q.data(), 2) - Kq.row(i).dot(llt.solve(Kq.row(i).transpose()));
  }
}

Eigen::MatrixXd queries() {
  Eigen::MatrixXd Q(5, 2);
  Q << 0.5, 0.5, 0.3141, 0.2718, 0.0, 1.0, 0.9, 0.1, 0.33, 0.66;
  return Q;
}

// Asks a batch of 4 (pending rows with λ), answers them with known noises spread over four
// orders of magnitude, adds a point off the grid with a known noise and one grid point with none:
// predictions equal the dense K + Λ posterior (Λ: the known variances, λ for the other).
TEST(OptimizerNoise, PosteriorIsTheHeteroscedasticOne) {
  const OptimizerOptions o = options();
  Optimizer opt(o);
  const gpb::AskResult a = opt.ask(4);
  Eigen::MatrixXd X(6, 2);
  X.topRows(4) = a.points;
  X.row(4) << 0.3141, 0.2718;
  X.row(5) = opt.domain().points().col(17).transpose();
  std::vector<double> y, noise = {1e-5, 1e-3, 0.3, 1e-4, 0.05, kNaN};
  for (int i = 0; i < 6; ++i) y.push_back(f(X.row(i).transpose()));
  opt.tell(X.topRows(4), std::vector<double>(y.begin(), y.begin() + 4),
           std::vector<double>(noise.begin(), noise.begin() + 4));
  opt.tell(X.bottomRows(2), std::vector<double>(y.begin() + 4, y.end()),
           std::vector<double>(noise.begin() + 4, noise.end()));
  ASSERT_TRUE(opt.pending().empty());
  Eigen::VectorXd lam(6), mean, var;
  for (int i = 0; i < 6; ++i) lam[i] = std::isnan(noise[i]) ? o.noise_variance : noise[i];
  const Eigen::MatrixXd Q = queries();
  dense(o.kernel, X, Eigen::Map<const Eigen::VectorXd>(y.data(), 6), lam, Q, mean, var);
  const gpb::Prediction p = opt.predict(Q);
  EXPECT_LE((p.mean - mean).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LE((p.variance - var).cwiseAbs().maxCoeff(), 1e-10);
  // The candidates' posterior (the FinitePosterior) agrees with predict().
  const gpb::Prediction all = opt.predict_candidates();
  const gpb::Prediction some = opt.predict(opt.domain().points().leftCols(40).transpose());
  EXPECT_LE((all.mean.head(40) - some.mean).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LE((all.variance.head(40) - some.variance).cwiseAbs().maxCoeff(), 1e-10);
  // λ for every row instead: far from it (the test can fail).
  Eigen::VectorXd m0, v0;
  dense(o.kernel, X, Eigen::Map<const Eigen::VectorXd>(y.data(), 6),
        Eigen::VectorXd::Constant(6, o.noise_variance), Q, m0, v0);
  EXPECT_GT((p.variance - v0).cwiseAbs().maxCoeff(), 1e-3);
  // observed_noise: as told, NaN where none was given.
  const std::vector<double> told = opt.observed_noise();
  ASSERT_EQ(told.size(), 6u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(told[i], noise[i]);
  EXPECT_TRUE(std::isnan(told[5]));
  // Asking on goes on from that posterior, Thompson sampling included (each row's own noise).
  opt.ask(2);
  gpb::AcquisitionOptions ts;
  ts.kind = gpb::AcquisitionKind::Thompson;
  opt.set_acquisition(ts);
  EXPECT_EQ(opt.ask(1).indices.size(), 1u);
}

TEST(OptimizerNoise, StateRoundTripsTheNoise) {
  Optimizer opt(options());
  const gpb::AskResult a = opt.ask(3);
  std::vector<double> y;
  for (int i = 0; i < 3; ++i) y.push_back(f(a.points.row(i).transpose()));
  opt.tell(a.indices, y, {0.2, kNaN, 1e-4});
  opt.tell(std::vector<int>{5}, std::vector<double>{0.7});
  const Optimizer back = Optimizer::loads(opt.dumps());
  const std::vector<double> nz = back.observed_noise();
  ASSERT_EQ(nz.size(), 4u);
  EXPECT_EQ(nz[0], 0.2);
  EXPECT_TRUE(std::isnan(nz[1]));
  EXPECT_EQ(nz[2], 1e-4);
  EXPECT_TRUE(std::isnan(nz[3]));
  const gpb::Prediction p = opt.predict(queries()), q = back.predict(queries());
  EXPECT_EQ(p.mean, q.mean);
  EXPECT_EQ(p.variance, q.variance);
  // A state without known noise writes no "noise" entry (older readers keep reading it).
  Optimizer plain(options());
  plain.tell(std::vector<int>{1}, std::vector<double>{0.5});
  EXPECT_EQ(plain.dumps().find("\"noise\":"), std::string::npos);
}

// fit_hyperparameters keeps the known variances fixed: its log likelihood is that of K + Λ with
// Λ the known variances in the fit's units (y standardised: divided by its variance) and the
// fitted σ_n² on the other rows, at the fitted θ, in unit coordinates.
TEST(OptimizerNoise, FitUsesTheKnownNoise) {
  OptimizerOptions o = options();
  o.fit.normalize = true;
  o.fit.prior = false;
  Optimizer opt(o);
  Eigen::MatrixXd X(24, 2);
  std::vector<double> y, noise;
  for (int i = 0; i < 24; ++i) {
    X.row(i) << (i % 6) / 5.0, (i / 6) / 3.0;
    y.push_back(f(X.row(i).transpose()) + 0.05 * std::sin(13.0 * i));
    noise.push_back(i % 3 == 0 ? kNaN : 1e-3 * (1 + i % 5));
  }
  opt.tell(X, y, noise);
  const gpb::HyperFit fit = opt.fit_hyperparameters();
  const Eigen::Map<const Eigen::VectorXd> yv(y.data(), 24);
  const double mean = yv.mean();
  const double sd = std::sqrt((yv.array() - mean).square().mean());
  const Eigen::VectorXd ys = (yv.array() - mean) / sd;
  Eigen::VectorXd known(24);
  for (int i = 0; i < 24; ++i) known[i] = std::isnan(noise[i]) ? kNaN : noise[i] / (sd * sd);
  const double with = gpb::gp_log_likelihood(X, ys, gpb::KernelType::Matern52, fit.theta, nullptr,
                                             &known);  // X is already in unit coordinates
  EXPECT_NEAR(fit.log_likelihood, with, 1e-8 * std::abs(with));
  const double without = gpb::gp_log_likelihood(X, ys, gpb::KernelType::Matern52, fit.theta);
  EXPECT_GT(std::abs(fit.log_likelihood - without), 1e-3);
  // The model then uses them: the posterior at the observations is that of K + Λ in y's units.
  const Eigen::MatrixXd Q = queries();
  Eigen::VectorXd lam(24), m, v;
  for (int i = 0; i < 24; ++i) {
    lam[i] = std::isnan(noise[i]) ? opt.noise_variance() * sd * sd : noise[i];
  }
  const gpb::Kernel k = opt.kernel();
  Eigen::VectorXd yc = yv.array() - mean;
  dense(gpb::Kernel::ard(gpb::KernelType::Matern52, k.lengthscales(), k.variance() * sd * sd), X,
        yc, lam, Q, m, v);
  const gpb::Prediction p = opt.predict(Q);
  EXPECT_LE((p.mean.array() - mean - m.array()).abs().maxCoeff(), 1e-8);
  EXPECT_LE((p.variance - v).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(OptimizerNoise, RefusesBadNoiseAndRecordsNothing) {
  Optimizer opt(options());
  for (const std::vector<double>& bad :
       {std::vector<double>{-1e-3}, std::vector<double>{std::numeric_limits<double>::infinity()},
        std::vector<double>{0.1, 0.1}}) {
    EXPECT_THROW(opt.tell(std::vector<int>{3}, std::vector<double>{1.0}, bad),
                 gpb::InvalidArgument);
    EXPECT_THROW(opt.tell(Eigen::MatrixXd::Constant(1, 2, 0.5), std::vector<double>{1.0}, bad),
                 gpb::InvalidArgument);
  }
  EXPECT_EQ(opt.num_observations(), 0);
  // Zero is allowed (an exact observation, floored at the fit's noise floor in the model).
  opt.tell(std::vector<int>{3}, std::vector<double>{1.0}, {0.0});
  EXPECT_EQ(opt.num_observations(), 1);
}

}  // namespace
