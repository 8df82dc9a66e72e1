// CUDA vs CPU parity of the stateless engine ops: kernel matrix (every kernel type, isotropic,
// ARD and composite, tiled and global paths), kernel diagonal, UCB argmax (ties, exclusion,
// errors), Philox draws. Each test skips when no CUDA device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/engine/projection.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#if GPB_HAS_CUDA
#include "engine/cuda/matrix_cache.hpp"
#endif

namespace {

using gpb::Kernel;
using gpb::KernelType;
using gpb::test::rel_err;

Eigen::MatrixXd random_points(int d, int n, std::uint32_t stream) {
  gpb::Rng rng(11, 0, stream);
  Eigen::MatrixXd x(d, n);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform(-1.0, 1.0);
  return x;
}

std::vector<Kernel> all_kernels(int d) {
  const double l = 0.5 * std::sqrt(static_cast<double>(d));
  // ARD lengthscales spread over a factor 10 around l (one per axis; d = 1 is isotropic).
  Eigen::VectorXd ard(d);
  for (int i = 0; i < d; ++i) ard[i] = l * std::pow(10.0, static_cast<double>(i) / d - 0.5);
  std::vector<Kernel> out = {Kernel::se(l, 1.3),
                             Kernel::matern(KernelType::Matern12, l, 0.7),
                             Kernel::matern(KernelType::Matern32, l),
                             Kernel::matern(KernelType::Matern52, l, 2.0),
                             Kernel::linear(0.5, 0.25),
                             Kernel::polynomial(3, 0.2, 1.0),
                             Kernel::ard(KernelType::SE, ard, 1.1),
                             Kernel::ard(KernelType::Matern12, ard),
                             Kernel::ard(KernelType::Matern32, ard, 0.6),
                             Kernel::ard(KernelType::Matern52, ard, 1.9)};
  if (d >= 2) {  // composite: an ARD SE part on the first half × (+) an isotropic Matérn 3/2
    gpb::KernelPart a, b;
    a.type = KernelType::SE;
    a.size = d / 2;
    a.lengthscales = ard.head(d / 2);
    b.type = KernelType::Matern32;
    b.begin = d / 2;
    b.size = d - d / 2;
    b.lengthscales = Eigen::VectorXd::Constant(1, l);
    out.push_back(Kernel::product({a, b}, 1.2));
    a.variance = 0.7;
    b.variance = 0.4;
    out.push_back(Kernel::sum({a, b}));
  }
  return out;
}

TEST(CudaOps, KernelMatrixMatchesCpuForEveryKernelAndDimension) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  // d = 64 is the largest shared-memory tile; d = 70 takes the global-memory kernel. Sizes are not
  // multiples of the 32×32 tile, so partial tiles are exercised.
  for (int d : {1, 2, 7, 64, 70}) {
    const Eigen::MatrixXd A = random_points(d, 77, 1), B = random_points(d, 45, 2);
    for (const Kernel& k : all_kernels(d)) {
      const Eigen::MatrixXd ref = gpb::kernel_matrix(*cpu, k, A, B);
      const Eigen::MatrixXd got = gpb::kernel_matrix(*cuda, k, A, B);
      EXPECT_LE(rel_err(got, ref), 1e-12) << k.describe() << " d=" << d;
    }
  }
}

TEST(CudaOps, KernelMatrixOfBlocksInsideLargerMatrices) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const Eigen::MatrixXd big = random_points(5, 300, 3);
  const Kernel k = Kernel::matern(KernelType::Matern52, 0.8);
  // Column blocks of a bigger matrix (outer stride = 5 still) and a row block (stride 5 > 3 rows).
  const auto a = big.middleCols(10, 33);
  const auto b = big.middleCols(100, 129);
  EXPECT_LE(rel_err(gpb::kernel_matrix(*cuda, k, a, b), gpb::kernel_matrix(*cpu, k, a, b)), 1e-12);
  const auto ra = big.topRows(3);
  EXPECT_LE(rel_err(gpb::kernel_matrix(*cuda, k, ra, ra), gpb::kernel_matrix(*cpu, k, ra, ra)),
            1e-12);
}

TEST(CudaOps, PrecomputedKernelGathers) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const Eigen::MatrixXd x = random_points(3, 50, 4);
  const Eigen::MatrixXd g = gpb::kernel_matrix(*cpu, Kernel::se(0.7), x, x);
  const Kernel k = Kernel::precomputed(g);
  const gpb::Domain dom = gpb::Domain::indices(50);
  Eigen::MatrixXd ia(1, 7), ib(1, 4);
  ia << 0, 3, 49, 7, 7, 12, 30;
  ib << 5, 0, 49, 21;
  EXPECT_EQ(gpb::kernel_matrix(*cuda, k, ia, ib), gpb::kernel_matrix(*cpu, k, ia, ib));
  EXPECT_EQ(gpb::kernel_diag(*cuda, k, dom), gpb::kernel_diag(*cpu, k, dom));
}

#if GPB_HAS_CUDA
// The device copy of a precomputed matrix is made once per host matrix and Context, shared by
// kernel_matrix, kernel_diag and the posterior, and dropped once no Kernel holds the matrix.
TEST(CudaOps, PrecomputedMatrixUploadedOncePerContext) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const Eigen::MatrixXd x = random_points(2, 300, 6);
  const Eigen::MatrixXd g = gpb::kernel_matrix(*cpu, Kernel::se(0.5), x, x);
  const gpb::Domain dom = gpb::Domain::indices(300);
  EXPECT_EQ(gpb::cuda::device_matrix_uploads(*cuda), 0u);
  const Kernel k = Kernel::precomputed(g);
  const Kernel copy = k;  // shares the matrix
  const Eigen::MatrixXd idx = dom.points();
  EXPECT_EQ(gpb::kernel_matrix(*cuda, k, idx, idx), g);
  EXPECT_EQ(gpb::kernel_diag(*cuda, copy, dom), g.diagonal());
  gpb::PosteriorOptions o;
  o.capacity = 4;
  gpb::FinitePosterior post(*cuda, copy, dom, 1, o);
  const int a = 17;
  const double y = 0.5;
  post.observe(&a, &y);
  EXPECT_GT(post.mean(0)[a], 0.0);
  EXPECT_EQ(gpb::cuda::device_matrix_uploads(*cuda), 1u) << "one upload for every op";
  // Equal values in a different host matrix: a different entry (keyed on the matrix, not values).
  const Kernel other = Kernel::precomputed(g * 2.0);
  EXPECT_EQ(gpb::kernel_diag(*cuda, other, dom), 2.0 * g.diagonal());
  EXPECT_EQ(gpb::cuda::device_matrix_uploads(*cuda), 2u);
  // Least recently used entries go beyond kMatrixCacheEntries; a re-used one is not re-uploaded.
  EXPECT_EQ(gpb::kernel_diag(*cuda, k, dom), g.diagonal());
  EXPECT_EQ(gpb::cuda::device_matrix_uploads(*cuda), 2u);
  // A new Context has its own copy.
  const auto cuda2 = gpb::test::cuda_context();
  EXPECT_EQ(gpb::kernel_diag(*cuda2, k, dom), g.diagonal());
  EXPECT_EQ(gpb::cuda::device_matrix_uploads(*cuda2), 1u);
}
#endif

TEST(CudaOps, KernelDiagMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const gpb::Domain dom = gpb::Domain::from_rows(random_points(4, 1000, 5).transpose());
  for (const Kernel& k : all_kernels(4)) {
    EXPECT_LE(rel_err(gpb::kernel_diag(*cuda, k, dom), gpb::kernel_diag(*cpu, k, dom)), 1e-12)
        << k.describe();
  }
}

TEST(CudaOps, UcbArgmaxMatchesCpuWithTiesAndExclusion) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  for (int n : {1, 100, 5000, 70001}) {
    gpb::Rng rng(3, 0, static_cast<std::uint32_t>(n));
    std::vector<double> mu(n), var(n);
    std::vector<std::uint8_t> ex(n, 0);
    for (int j = 0; j < n; ++j) {
      // Coarse values: many exact ties; some negative variances (clamped at 0).
      mu[j] = std::floor(rng.uniform() * 8.0) / 8.0;
      var[j] = std::floor(rng.uniform() * 5.0) / 4.0 - 0.25;
      ex[j] = (n > 1 && rng.uniform() < 0.3) ? 1 : 0;
    }
    for (const std::uint8_t* e :
         {static_cast<const std::uint8_t*>(nullptr), static_cast<const std::uint8_t*>(ex.data())}) {
      for (int rep = 0; rep < 5; ++rep) {
        gpb::Rng a(9, rep, 4), b(9, rep, 4);
        const auto ref = gpb::ucb_argmax(*cpu, mu.data(), var.data(), n, 1.5, e, &a);
        const auto got = gpb::ucb_argmax(*cuda, mu.data(), var.data(), n, 1.5, e, &b);
        EXPECT_EQ(got.index, ref.index) << "n=" << n << " rep=" << rep;
        EXPECT_EQ(got.ties, ref.ties);
        EXPECT_EQ(got.score, ref.score);
        EXPECT_EQ(a.position(), b.position());  // the same number of tie-break draws
      }
      const auto lo_ref = gpb::ucb_argmax(*cpu, mu.data(), var.data(), n, 1.5, e, nullptr);
      const auto lo_got = gpb::ucb_argmax(*cuda, mu.data(), var.data(), n, 1.5, e, nullptr);
      EXPECT_EQ(lo_got.index, lo_ref.index);
    }
  }
}

TEST(CudaOps, UcbArgmaxErrorsLikeCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  std::vector<double> mu(3000, 0.0), var(3000, 1.0);
  std::vector<std::uint8_t> all(3000, 1);
  EXPECT_THROW(gpb::ucb_argmax(*cuda, mu.data(), var.data(), 3000, 1.0, all.data(), nullptr),
               gpb::InvalidArgument);
  mu[2500] = NAN;
  mu[2900] = NAN;
  try {
    gpb::ucb_argmax(*cuda, mu.data(), var.data(), 3000, 1.0, nullptr, nullptr);
    FAIL() << "no exception";
  } catch (const gpb::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("candidate 2500 is NaN"), std::string::npos) << e.what();
  }
}

TEST(CudaOps, PhiloxDrawsMatchRng) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const std::size_t count = 100003;
  for (std::uint64_t start : {std::uint64_t{0}, std::uint64_t{5}, (std::uint64_t{1} << 33) + 1}) {
    const auto u_gpu = gpb::random_uniform(*cuda, 42, 3, 6, start, count);
    const auto u_cpu = gpb::random_uniform(*cpu, 42, 3, 6, start, count);
    ASSERT_EQ(u_gpu.size(), count);
    EXPECT_EQ(u_gpu, u_cpu) << "start " << start;  // bit-identical
    gpb::Rng rng(42, 3, 6, start);
    for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(u_cpu[i], rng.uniform());
    const auto z_gpu = gpb::random_normal(*cuda, 42, 3, 6, start, count);
    const auto z_cpu = gpb::random_normal(*cpu, 42, 3, 6, start, count);
    ASSERT_EQ(z_gpu.size(), count);
    double worst = 0;
    for (std::size_t i = 0; i < count; ++i) {
      worst = std::max(worst, std::abs(z_gpu[i] - z_cpu[i]) / std::max(1.0, std::abs(z_cpu[i])));
    }
    EXPECT_LE(worst, 1e-13);  // log/cos of two math libraries: last-ulp differences only
  }
}

}  // namespace
