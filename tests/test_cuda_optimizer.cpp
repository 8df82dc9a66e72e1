// The Optimizer on the CUDA backend against the CPU: the same UCB and EI choices, predictions and
// Thompson draws that agree to rounding, ARD kernels, a state saved on one backend loaded on
// the other, and fingerprint libraries (Tanimoto, MinMax) with their refits. Skips without a CUDA
// device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "gpbandit/rng.hpp"

namespace {

gpb::OptimizerOptions options(gpb::Backend backend, gpb::AcquisitionKind kind) {
  gpb::OptimizerOptions o;
  o.domain = gpb::DomainSpec::sobol({0, 0, 0}, {1, 1, 1}, 3000, 5);
  o.kernel = gpb::Kernel::ard(gpb::KernelType::Matern52, Eigen::Vector3d(0.2, 0.35, 0.5));
  o.noise_variance = 0.01;
  o.seed = 3;
  o.acquisition.kind = kind;
  o.acquisition.beta.scale = 0.3;
  o.context.backend = backend;
  return o;
}

double f3(const Eigen::Ref<const Eigen::RowVectorXd>& x) {
  return std::sin(4 * x[0]) + std::cos(3 * x[1]) * x[2];
}

TEST(CudaOptimizer, SameChoicesAndPredictionsAsTheCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  for (const auto kind : {gpb::AcquisitionKind::Ucb, gpb::AcquisitionKind::ExpectedImprovement}) {
    gpb::Optimizer cpu(options(gpb::Backend::Cpu, kind));
    gpb::Optimizer gpu(options(gpb::Backend::Cuda, kind));
    for (int t = 0; t < 25; ++t) {
      const int q = t % 5 == 4 ? 3 : 1;
      const gpb::AskResult a = cpu.ask(q), b = gpu.ask(q);
      ASSERT_EQ(a.indices, b.indices) << "round " << t;
      std::vector<double> y;
      for (int i = 0; i < q; ++i) y.push_back(f3(a.points.row(i)));
      cpu.tell(a.indices, y);
      gpu.tell(b.indices, y);
    }
    Eigen::MatrixXd off(2, 3);
    off << 0.11, 0.22, 0.33, 0.9, 0.8, 0.7;  // points off the candidate set
    cpu.tell(off, {0.5, -0.5});
    gpu.tell(off, {0.5, -0.5});
    const gpb::Prediction pc = cpu.predict_candidates(), pg = gpu.predict_candidates();
    EXPECT_LE(gpb::test::rel_err(pg.mean, pc.mean), 1e-10);
    EXPECT_LE(gpb::test::rel_err(pg.variance, pc.variance), 1e-10);
    EXPECT_EQ(cpu.ask(2).indices, gpu.ask(2).indices);
  }
}

TEST(CudaOptimizer, ThompsonDrawsAgree) {
  GPB_REQUIRE_CUDA_DEVICE();
  // Same seeds, same draws: the choices agree unless two candidates' samples tie to ~1e−10.
  gpb::Optimizer cpu(options(gpb::Backend::Cpu, gpb::AcquisitionKind::Thompson));
  gpb::Optimizer gpu(options(gpb::Backend::Cuda, gpb::AcquisitionKind::Thompson));
  int same = 0;
  for (int t = 0; t < 15; ++t) {
    const gpb::AskResult a = cpu.ask(), b = gpu.ask();
    same += a.indices == b.indices ? 1 : 0;
    cpu.tell(a.indices, {f3(a.points.row(0))});
    gpu.tell(a.indices, {f3(a.points.row(0))});  // both follow the CPU's choices
  }
  EXPECT_GE(same, 14);
}

TEST(CudaOptimizer, StatesMoveBetweenBackends) {
  GPB_REQUIRE_CUDA_DEVICE();
  gpb::Optimizer gpu(options(gpb::Backend::Cuda, gpb::AcquisitionKind::Ucb));
  for (int t = 0; t < 10; ++t) {
    const gpb::AskResult a = gpu.ask();
    gpu.tell(a.indices, {f3(a.points.row(0))});
  }
  gpb::ContextOptions cpu;
  cpu.backend = gpb::Backend::Cpu;
  const gpb::Optimizer moved = gpb::Optimizer::loads(gpu.dumps(), cpu);
  EXPECT_EQ(moved.context().backend(), gpb::Backend::Cpu);
  const gpb::Prediction a = gpu.predict_candidates(), b = moved.predict_candidates();
  EXPECT_LE(gpb::test::rel_err(b.mean, a.mean), 1e-10);
  EXPECT_LE(gpb::test::rel_err(b.variance, a.variance), 1e-10);
}

TEST(CudaOptimizer, FingerprintsGiveTheCpusChoicesAndFits) {
  GPB_REQUIRE_CUDA_DEVICE();
  // A pool of bit fingerprints and one of counts; EI with refits of the output scale and noise
  // (their kernel matrices on each backend), by index; y a function of the candidate's words.
  std::vector<std::int64_t> counts(1500 * 64);
  gpb::Rng rng(8, 0, 0);
  for (auto& c : counts) c = static_cast<std::int64_t>(rng.below(4));
  const std::vector<std::shared_ptr<const gpb::Fingerprints>> pools = {
      std::make_shared<const gpb::Fingerprints>(gpb::Fingerprints::random(1500, 256, 0.1, 7)),
      std::make_shared<const gpb::Fingerprints>(
          gpb::Fingerprints::from_dense(counts.data(), 1500, 64, gpb::FingerprintKind::Counts))};
  for (const auto& fp : pools) {
    gpb::OptimizerOptions o;
    o.domain = gpb::DomainSpec::from_fingerprints(fp);
    o.kernel = fp->kind() == gpb::FingerprintKind::Counts ? gpb::Kernel::minmax()
                                                          : gpb::Kernel::tanimoto();
    o.initial_points = 5;
    o.seed = 2;
    o.exclude_observed = true;
    o.context.backend = gpb::Backend::Cpu;
    gpb::Optimizer cpu(o);
    o.context.backend = gpb::Backend::Cuda;
    gpb::Optimizer gpu(o);
    const auto y_of = [&](int c) {
      double s = 0;
      for (int w = 0; w < fp->words(); ++w) s += static_cast<double>(fp->row(c)[w] % 97);
      return std::sin(0.01 * s);
    };
    for (int t = 0; t < 20; ++t) {
      const gpb::AskResult a = cpu.ask(2), b = gpu.ask(2);
      ASSERT_EQ(a.indices, b.indices) << "round " << t;
      const std::vector<double> y = {y_of(a.indices[0]), y_of(a.indices[1])};
      cpu.tell(a.indices, y);
      gpu.tell(b.indices, y);
    }
    EXPECT_NEAR(gpu.kernel().variance(), cpu.kernel().variance(), 1e-9 * cpu.kernel().variance());
    const gpb::Prediction pc = cpu.predict_candidates(), pg = gpu.predict_candidates();
    EXPECT_LE(gpb::test::rel_err(pg.mean, pc.mean), 1e-9);
    EXPECT_LE(gpb::test::rel_err(pg.variance, pc.variance), 1e-9);
  }
}

}  // namespace
