// Objectives: RKHS functions, GP sample paths, Branin, Hartmann-6, data sets.
//
// Statistical checks use fixed seeds and distribution-free bounds: the median of k = 129 block
// means, each block of b runs, is more than 2·sqrt(V/b) from the expectation (V bounding the
// variance of one term) with probability <= exp(-k/8) < 1e-7 (Chebyshev per block, Hoeffding on
// the number of bad blocks). No test makes more than 10 such checks, so each falsely fails with
// probability <= 1e-6.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace {

constexpr int kBlocks = 129;  // ceil(8 ln 1e7)

gpb::Context cpu_context() {
  gpb::ContextOptions opt;
  opt.backend = gpb::Backend::Cpu;
  return gpb::Context(opt);
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const gpb::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Median of the kBlocks block means of terms[b][·].
double median_of_block_means(std::vector<double> block_means) {
  std::nth_element(block_means.begin(), block_means.begin() + kBlocks / 2, block_means.end());
  return block_means[kBlocks / 2];
}

/// Checks E[f_i f_j] = expected(i, j) over kBlocks·block runs of `obj` on `dom`; `var_bound`
/// bounds Var(f_i f_j).
void check_second_moments(const gpb::Objective& obj, const gpb::Domain& dom,
                          const Eigen::MatrixXd& expected, int block, double var_bound) {
  const gpb::Context ctx = cpu_context();
  const int n = dom.size();
  std::vector<Eigen::MatrixXd> means(kBlocks, Eigen::MatrixXd::Zero(n, n));
  std::uint32_t run = 0;
  for (int b = 0; b < kBlocks; ++b) {
    for (int r = 0; r < block; ++r) {
      const Eigen::VectorXd f = obj.values(ctx, dom, 42, run++);
      means[b].noalias() += f * f.transpose();
    }
    means[b] /= block;
  }
  const double tol = 2.0 * std::sqrt(var_bound / block);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      std::vector<double> m(kBlocks);
      for (int b = 0; b < kBlocks; ++b) m[b] = means[b](i, j);
      EXPECT_NEAR(median_of_block_means(m), expected(i, j), tol) << "entry " << i << "," << j;
    }
  }
}

// ------------------------------------------------------------------------------ RKHS

TEST(RkhsObjective, ReproduciblePerSeedAndRun) {
  const gpb::Context ctx = cpu_context();
  const gpb::Domain dom = gpb::Domain::grid({0.01}, {1.0}, {100});
  const auto obj = gpb::make_rkhs_objective(gpb::Kernel::se(0.2), 100, false);
  const Eigen::VectorXd f0 = obj->values(ctx, dom, 7, 0);
  ASSERT_EQ(f0.size(), 100);
  EXPECT_EQ(f0, obj->values(ctx, dom, 7, 0));
  EXPECT_NE(f0, obj->values(ctx, dom, 7, 1));
  EXPECT_NE(f0, obj->values(ctx, dom, 8, 0));
  EXPECT_GT(f0.cwiseAbs().maxCoeff(), 0.0);
}

TEST(RkhsObjective, FixedIsRunZeroForEveryRun) {
  const gpb::Context ctx = cpu_context();
  const gpb::Domain dom = gpb::Domain::grid({0.0}, {1.0}, {50});
  const auto fixed = gpb::make_rkhs_objective(gpb::Kernel::se(0.2), 20, true);
  const auto fresh = gpb::make_rkhs_objective(gpb::Kernel::se(0.2), 20, false);
  const Eigen::VectorXd f0 = fresh->values(ctx, dom, 3, 0);
  for (std::uint32_t run : {0u, 1u, 9u}) EXPECT_EQ(fixed->values(ctx, dom, 3, run), f0);
}

/// Σ a_i k(x, s_i) with the documented draw order (all a_i, then all s_i), pair by pair.
Eigen::VectorXd rkhs_brute_force(const gpb::Kernel& k, const gpb::Domain& dom, int m,
                                 std::uint64_t seed, std::uint32_t run) {
  gpb::Rng rng(seed, run, gpb::stream_of(gpb::StreamId::Objective));
  std::vector<double> a(m);
  std::vector<int> s(m);
  for (auto& v : a) v = rng.uniform(-1.0, 1.0);
  for (auto& v : s) v = static_cast<int>(rng.below(dom.size()));
  Eigen::VectorXd f = Eigen::VectorXd::Zero(dom.size());
  for (int j = 0; j < dom.size(); ++j) {
    for (int i = 0; i < m; ++i) f(j) += a[i] * k(dom.point(j), dom.point(s[i]), dom.dim());
  }
  return f;
}

TEST(RkhsObjective, EqualsBruteForceSum) {
  const gpb::Context ctx = cpu_context();
  // m = 2000 makes the evaluation run in several candidate blocks.
  const gpb::Domain dom = gpb::Domain::grid({0.0, -1.0}, {1.0, 1.0}, {100, 100});
  const gpb::Kernel k = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.3, 2.0);
  const int m = 2000;
  const auto obj = gpb::make_rkhs_objective(k, m, false);
  const Eigen::VectorXd f = obj->values(ctx, dom, 5, 3);
  const Eigen::VectorXd ref = rkhs_brute_force(k, dom, m, 5, 3);
  EXPECT_LT((f - ref).cwiseAbs().maxCoeff(), 1e-11 * (1.0 + ref.cwiseAbs().maxCoeff()));
}

TEST(RkhsObjective, PrecomputedKernelOnIndices) {
  const gpb::Context ctx = cpu_context();
  Eigen::MatrixXd km(3, 3);
  km << 2, 0.5, 0.1, 0.5, 1, 0.3, 0.1, 0.3, 1.5;
  const gpb::Kernel k = gpb::Kernel::precomputed(km);
  const gpb::Domain dom = gpb::Domain::indices(3);
  const auto obj = gpb::make_rkhs_objective(k, 4, false);
  const Eigen::VectorXd f = obj->values(ctx, dom, 1, 2);
  const Eigen::VectorXd ref = rkhs_brute_force(k, dom, 4, 1, 2);
  EXPECT_LT((f - ref).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(RkhsObjective, SupportMustBePositive) {
  EXPECT_TRUE(contains(error_of([] { gpb::make_rkhs_objective(gpb::Kernel::se(0.2), 0, false); }),
                       "objective.support"));
}

// ------------------------------------------------------------------------------ GP sample

TEST(GpSampleObjective, ExactReproducibleAndFixed) {
  const gpb::Context ctx = cpu_context();
  const gpb::Domain dom = gpb::Domain::grid({0.0}, {1.0}, {30});
  const auto obj = gpb::make_gp_sample_objective(gpb::Kernel::se(0.2), 0, false);
  const Eigen::VectorXd f = obj->values(ctx, dom, 9, 4);
  EXPECT_EQ(f, obj->values(ctx, dom, 9, 4));
  EXPECT_NE(f, obj->values(ctx, dom, 9, 5));
  const auto fixed = gpb::make_gp_sample_objective(gpb::Kernel::se(0.2), 0, true);
  EXPECT_EQ(fixed->values(ctx, dom, 9, 4), obj->values(ctx, dom, 9, 0));
  // A second domain invalidates the cached factor.
  const gpb::Domain other = gpb::Domain::grid({0.0}, {2.0}, {30});
  EXPECT_NE(obj->values(ctx, other, 9, 4), f);
  EXPECT_EQ(obj->values(ctx, dom, 9, 4), f);
}

TEST(GpSampleObjective, ExactCovarianceMatchesKernel) {
  // Var(f_i f_j) = K_ii K_jj + K_ij² <= 2v²; 10 entries checked.
  const gpb::Context ctx = cpu_context();
  const gpb::Domain dom = gpb::Domain::grid({0.0}, {1.0}, {4});
  const gpb::Kernel k = gpb::Kernel::se(0.5, 1.5);
  const auto obj = gpb::make_gp_sample_objective(k, 0, false);
  const Eigen::MatrixXd km = gpb::kernel_matrix(ctx, k, dom.points(), dom.points());
  check_second_moments(*obj, dom, km, 8000, 2 * 1.5 * 1.5);
}

TEST(GpSampleObjective, ExactTooLargeAsksForFeatures) {
  const gpb::Context ctx = cpu_context();
  const gpb::Domain dom = gpb::Domain::grid({0.0}, {1.0}, {20001});
  const auto obj = gpb::make_gp_sample_objective(gpb::Kernel::se(0.2), 0, false);
  const std::string msg = error_of([&] { obj->values(ctx, dom, 1, 0); });
  EXPECT_TRUE(contains(msg, "20000")) << msg;
  EXPECT_TRUE(contains(msg, "features > 0")) << msg;
}

TEST(GpSampleObjective, FeatureValidation) {
  EXPECT_TRUE(
      contains(error_of([] { gpb::make_gp_sample_objective(gpb::Kernel::linear(), 100, false); }),
               "stationary"));
  EXPECT_TRUE(
      contains(error_of([] { gpb::make_gp_sample_objective(gpb::Kernel::se(1.0), -1, false); }),
               "objective.features"));
  EXPECT_NO_THROW(gpb::make_gp_sample_objective(gpb::Kernel::linear(), 0, false));
}

TEST(GpSampleObjective, KroneckerCovarianceMatchesKernelOnGrids) {
  // Exact draw by Kronecker factors (specs/po-gp-ucb.md §7). Axes with different spacings, so a
  // transposed or mis-strided factor would give the wrong covariance. Var(f_i f_j) <= 2v².
  // 21 + 2·36 entries checked: falsely fails with probability <= 93·1e-7 (see the file header).
  const gpb::Context ctx = cpu_context();
  const gpb::Kernel k = gpb::Kernel::se(0.7, 1.5);
  const auto obj = gpb::make_gp_sample_objective(k, 0, false, true);
  const gpb::Domain d2 = gpb::Domain::grid({0.0, 0.0}, {1.0, 2.0}, {3, 2});
  check_second_moments(*obj, d2, gpb::kernel_matrix(ctx, k, d2.points(), d2.points()), 1500,
                       2 * 1.5 * 1.5);
  const gpb::Domain d3 = gpb::Domain::grid({0.0, 0.0, 0.0}, {0.3, 1.0, 2.5}, {2, 2, 2});
  check_second_moments(*obj, d3, gpb::kernel_matrix(ctx, k, d3.points(), d3.points()), 1000,
                       2 * 1.5 * 1.5);
  // ARD: axis i's factor uses lengthscale i (a shared lengthscale would miss the covariance).
  const gpb::Kernel ard =
      gpb::Kernel::ard(gpb::KernelType::SE, Eigen::Vector3d(0.2, 1.0, 3.0), 1.5);
  const auto obj_ard = gpb::make_gp_sample_objective(ard, 0, false, true);
  check_second_moments(*obj_ard, d3, gpb::kernel_matrix(ctx, ard, d3.points(), d3.points()), 1000,
                       2 * 1.5 * 1.5);
}

TEST(GpSampleObjective, KroneckerReproducibleAtTheSpecsSize) {
  // The synthetic PO-GP-UCB instance: 100×100 grid, no 10⁴×10⁴ matrix is formed.
  const gpb::Context ctx = cpu_context();
  const gpb::Domain dom = gpb::Domain::grid({-17.7, -17.7}, {17.7, 17.7}, {100, 100});
  const auto fixed = gpb::make_gp_sample_objective(gpb::Kernel::se(5.89), 0, true, true);
  const Eigen::VectorXd f = fixed->values(ctx, dom, 3, 7);
  ASSERT_EQ(f.size(), 10000);
  EXPECT_TRUE(f.allFinite());
  EXPECT_EQ(f, fixed->values(ctx, dom, 3, 0));  // fixed: run 0's draw for every run
  EXPECT_NE(f, fixed->values(ctx, dom, 4, 0));
  const double var = f.squaredNorm() / 10000.0;  // one path: a loose sanity range only
  EXPECT_GT(var, 0.05);
  EXPECT_LT(var, 20.0);
}

TEST(GpSampleObjective, KroneckerValidation) {
  const gpb::Context ctx = cpu_context();
  EXPECT_TRUE(contains(
      error_of([] { gpb::make_gp_sample_objective(gpb::Kernel::se(1.0), 10, false, true); }),
      "objective.kronecker"));
  EXPECT_TRUE(contains(error_of([] {
                         gpb::make_gp_sample_objective(
                             gpb::Kernel::matern(gpb::KernelType::Matern52, 1.0, 1.0), 0, false,
                             true);
                       }),
                       "se kernel"));
  Eigen::MatrixXd rows(3, 2);
  rows << 0, 0, 1, 0, 0, 1;  // not a Cartesian product
  const auto obj = gpb::make_gp_sample_objective(gpb::Kernel::se(1.0), 0, false, true);
  EXPECT_TRUE(contains(error_of([&] { obj->values(ctx, gpb::Domain::from_rows(rows), 1, 0); }),
                       "grid domain"));
}

/// RFF with M features: E f(x)f(y) = k(x, y). Given (w, b), f is Gaussian with variance
/// σ² = (2v/M)Σcos²; E σ⁴ = v²(1 + 1/(2M)), so Var(f(x)f(y)) <= 3v²(1 + 1/(2M)).
void check_rff(const gpb::Kernel& k, int features) {
  const gpb::Context ctx = cpu_context();
  Eigen::MatrixXd rows(2, 2);
  rows << 0.1, 0.2, 0.1 + 0.6 * k.lengthscale(), 0.2 + 0.8 * k.lengthscale();  // distance l
  const gpb::Domain dom = gpb::Domain::from_rows(rows);
  const auto obj = gpb::make_gp_sample_objective(k, features, false);
  const Eigen::MatrixXd km = gpb::kernel_matrix(ctx, k, dom.points(), dom.points());
  const double v = k.variance();
  check_second_moments(*obj, dom, km, 6000, 3 * v * v * (1 + 0.5 / features));
}

TEST(GpSampleObjective, RandomFeaturesMatchKernel) {
  // 3 kernels × 3 entries = 9 checks.
  check_rff(gpb::Kernel::se(0.3, 2.0), 4);
  check_rff(gpb::Kernel::matern(gpb::KernelType::Matern52, 0.5, 1.0), 4);
  check_rff(gpb::Kernel::matern(gpb::KernelType::Matern12, 0.4, 1.0), 4);
}

TEST(GpSampleObjective, RandomFeaturesScaleToLargeDomains) {
  const gpb::Context ctx = cpu_context();
  const gpb::Domain dom = gpb::Domain::grid({0.0, 0.0}, {1.0, 1.0}, {1000, 1000});
  const auto obj = gpb::make_gp_sample_objective(gpb::Kernel::se(0.2), 16, false);
  const Eigen::VectorXd f = obj->values(ctx, dom, 1, 0);
  ASSERT_EQ(f.size(), 1000000);
  EXPECT_TRUE(f.allFinite());
  EXPECT_EQ(f, obj->values(ctx, dom, 1, 0));
}

// ------------------------------------------------------------------------------ synthetic

TEST(Branin, MaximumOnFineGrid) {
  const gpb::Context ctx = cpu_context();
  const auto obj = gpb::make_branin_objective();
  const gpb::Domain grid = gpb::Domain::grid({-5.0, 0.0}, {10.0, 15.0}, {1501, 1501});
  const Eigen::VectorXd f = obj->values(ctx, grid, 0, 0);
  EXPECT_NEAR(f.maxCoeff(), -0.397887, 1e-3);
  EXPECT_LE(f.maxCoeff(), -0.397887 + 1e-6);
  Eigen::MatrixXd opt(3, 2);
  opt << -M_PI, 12.275, M_PI, 2.275, 9.42478, 2.475;
  const Eigen::VectorXd fo = obj->values(ctx, gpb::Domain::from_rows(opt), 0, 0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(fo(i), -0.397887, 1e-6);
  EXPECT_TRUE(contains(error_of([&] {
                         obj->values(ctx, gpb::Domain::grid({0, 0, 0}, {1, 1, 1}, {2, 2, 2}), 0, 0);
                       }),
                       "branin needs a 2-dimensional domain"));
}

TEST(Hartmann6, KnownOptimum) {
  const gpb::Context ctx = cpu_context();
  const auto obj = gpb::make_hartmann6_objective();
  Eigen::MatrixXd opt(1, 6);
  opt << 0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573;
  EXPECT_NEAR(obj->values(ctx, gpb::Domain::from_rows(opt), 0, 0)(0), 3.32237, 1e-5);
  const gpb::Domain grid = gpb::Domain::grid(std::vector<double>(6, 0.0),
                                             std::vector<double>(6, 1.0), std::vector<int>(6, 6));
  const Eigen::VectorXd f = obj->values(ctx, grid, 0, 0);
  EXPECT_LE(f.maxCoeff(), 3.32237 + 1e-5);
  EXPECT_GT(f.maxCoeff(), 2.0);
  EXPECT_TRUE(contains(error_of([&] { obj->values(ctx, gpb::Domain::indices(3), 0, 0); }),
                       "hartmann6 needs a 6-dimensional domain"));
}

// ------------------------------------------------------------------------------ data sets

TEST(DatasetObjective, TinyMatrix) {
  const gpb::Context ctx = cpu_context();
  Eigen::MatrixXd data(3, 2);
  data << 1, 2, 3, 6, 5, 4;
  const auto cov = gpb::make_dataset_objective(data, false, "tiny");
  const auto cor = gpb::make_dataset_objective(data, true, "tiny");
  EXPECT_EQ(cov->name(), "tiny");
  ASSERT_TRUE(cov->domain().has_value());
  const gpb::Domain dom = *cov->domain();
  ASSERT_EQ(dom.size(), 2);
  EXPECT_EQ(dom.dim(), 1);
  const Eigen::VectorXd f = cov->values(ctx, dom, 0, 0);
  EXPECT_DOUBLE_EQ(f(0), 3.0);
  EXPECT_DOUBLE_EQ(f(1), 4.0);
  // Centred columns (−2, 0, 2) and (−2, 2, 0): variances 4, covariance 2, correlation 1/2.
  const Eigen::MatrixXd* kc = cov->kernel()->matrix();
  ASSERT_NE(kc, nullptr);
  EXPECT_NEAR((*kc)(0, 0), 4.0, 1e-14);
  EXPECT_NEAR((*kc)(1, 1), 4.0, 1e-14);
  EXPECT_NEAR((*kc)(0, 1), 2.0, 1e-14);
  EXPECT_EQ((*kc)(0, 1), (*kc)(1, 0));
  const Eigen::MatrixXd* kr = cor->kernel()->matrix();
  EXPECT_EQ((*kr)(0, 0), 1.0);
  EXPECT_NEAR((*kr)(0, 1), 0.5, 1e-14);
  // Rewards: the played column at a row drawn with one below(rows) call.
  gpb::NoiseModel noise;
  noise.kind = gpb::NoiseModel::Kind::Gaussian;
  noise.scale = 100.0;  // ignored
  gpb::Rng rng(5, 1, gpb::stream_of(gpb::StreamId::Bootstrap));
  gpb::Rng mirror = rng;
  for (int t = 0; t < 50; ++t) {
    const int j = t % 2;
    const double y = cov->reward(j, f(j), noise, rng);
    EXPECT_EQ(y, data(static_cast<Eigen::Index>(mirror.below(3)), j));
  }
  EXPECT_EQ(rng.position(), mirror.position());
  EXPECT_THROW(cov->reward(2, 0.0, noise, rng), gpb::InvalidArgument);
  EXPECT_TRUE(contains(error_of([&] { cov->values(ctx, gpb::Domain::indices(3), 0, 0); }),
                       "tiny: the domain has 3 candidates but the data set has 2 columns"));
}

TEST(DatasetObjective, Validation) {
  EXPECT_TRUE(contains(
      error_of([] { gpb::make_dataset_objective(Eigen::MatrixXd::Ones(1, 3), false, "d"); }),
      "d: need at least 2 rows"));
  EXPECT_TRUE(
      contains(error_of([] { gpb::make_dataset_objective(Eigen::MatrixXd(4, 0), false, "d"); }),
               "d: need at least 1 column"));
  Eigen::MatrixXd data(3, 8);
  for (int j = 0; j < 8; ++j) data.col(j) << 1, 2, 3 + j;
  data.col(6).setConstant(0.1);
  EXPECT_EQ(error_of([&] {
              gpb::make_dataset_objective(data, true, "lbl");
            }).rfind("lbl: column 7 has zero variance", 0),
            0u);
  data.col(6) << 1, 2, 3;
  data(1, 2) = std::nan("");
  EXPECT_TRUE(contains(error_of([&] { gpb::make_dataset_objective(data, false, "lbl"); }),
                       "lbl: row 2, column 3 is not finite"));
}

TEST(DatasetObjective, LightSensorFile) {
  const std::string dir = std::string(GPB_SHARED_DATA_DIR) + "/light-sensor";
  if (!std::filesystem::exists(dir + "/test.csv")) {
    GTEST_SKIP() << "shared data folder not found at " << dir;
  }
  bool header = false;
  const Eigen::MatrixXd test = gpb::read_csv_matrix(dir + "/test.csv", &header);
  EXPECT_TRUE(header);
  EXPECT_EQ(test.rows(), 192);
  ASSERT_EQ(test.cols(), 41);
  const gpb::Context ctx = cpu_context();
  const auto obj = gpb::make_dataset_objective(test, true, "light");
  const Eigen::VectorXd f = obj->values(ctx, *obj->domain(), 0, 0);
  // specs/ldp-bo.md §6.4: f range [164.23, 945.54], best arm 3.
  EXPECT_NEAR(f.minCoeff(), 164.23, 0.01);
  EXPECT_NEAR(f.maxCoeff(), 945.54, 0.01);
  Eigen::Index best = 0;
  f.maxCoeff(&best);
  EXPECT_EQ(best, 3);
  // The correlation kernel of the 601 training rows: unit diagonal, entries in [−1, 1].
  const Eigen::MatrixXd train = gpb::read_csv_matrix(dir + "/train.csv");
  EXPECT_EQ(train.rows(), 601);
  const auto tr = gpb::make_dataset_objective(train, true, "light-train");
  const Eigen::MatrixXd& k = *tr->kernel()->matrix();
  EXPECT_EQ(k.diagonal(), Eigen::VectorXd::Ones(41));
  EXPECT_LE(k.cwiseAbs().maxCoeff(), 1.0 + 1e-12);
}

}  // namespace
