// The sharded CUDA FinitePosterior on K in-process ranks (Communicator::in_process, one thread and
// one Context per rank; the ranks share the device when there is only one) against the one-rank
// CUDA posterior bit for bit (the same kernels on the same operands: only the slice differs) and
// against the one-rank CPU posterior to the last ulps of exp() (relative 1e-10, the same choices
// and tie counts). Every session is driven by the one-rank CPU's choices. Incremental (V growing on
// the device), recompute, mixed precision, pending rows, masks, random ties across ranks, slice
// domains and a precomputed kernel. Skips without a CUDA device. No MPI needed (the GPU kit runs
// it); tests/mpi/sharded_posterior_main.cpp --backend cuda is the same under mpirun.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cuda_test_support.hpp"
#include "shard_harness.hpp"

namespace {

using gpb::test::ShardScript;

std::unique_ptr<gpb::Context> on(gpb::Backend backend, const gpb::Communicator& comm,
                                 gpb::Precision precision = gpb::Precision::Double) {
  gpb::ContextOptions o;
  o.backend = backend;
  o.threads = 1;
  o.precision = precision;
  o.memory_budget_bytes = std::size_t{1} << 30;
  o.communicator = comm;
  return std::make_unique<gpb::Context>(o);
}

/// n random points in [0, 1]²: no symmetric pairs, so the only exact score ties (compared between
/// CPU and CUDA, whose exp() may differ in the last ulp) are the prior's and the twins'.
gpb::Domain random_points(int n) {
  gpb::Rng rng(17, 0, 2);
  Eigen::MatrixXd rows(n, 2);
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.data()[i] = rng.uniform();
  return gpb::Domain::from_rows(rows);
}

ShardScript base_script() {
  ShardScript s = gpb::test::grid_script(1, 1, 3);  // kernel, λ; V grows on the device
  s.domain = random_points(2491);                   // not a multiple of 2 or 3
  s.options.chunk = 777;                            // recompute mode: partial chunks
  s.steps = 25;
  s.runs = 3;
  return s;
}

/// `tol`: the CPU comparison's bound (choices compared only when tol ≤ 1e-10).
void expect_sharded_matches(const ShardScript& s, double tol,
                            gpb::Precision precision = gpb::Precision::Double) {
  const gpb::Communicator one;
  const auto cpu = on(gpb::Backend::Cpu, one, precision);
  const gpb::test::ShardTrace cpu_ref = gpb::test::play_script(*cpu, s, {});
  const std::vector<int> drive = gpb::test::chosen(cpu_ref);
  const auto cuda = on(gpb::Backend::Cuda, one, precision);
  const gpb::test::ShardTrace cuda_ref = gpb::test::play_script(*cuda, s, drive);
  gpb::test::expect_close(cuda_ref, cpu_ref, tol, tol <= 1e-10, "one-rank CUDA vs CPU");
  for (const int k : {2, 3}) {
    const auto traces = gpb::test::play_sharded(k, s, drive, [&](const gpb::Communicator& c) {
      return on(gpb::Backend::Cuda, c, precision);
    });
    for (int q = 0; q < k; ++q) {
      const std::string who = std::to_string(k) + " CUDA ranks, rank " + std::to_string(q);
      const auto& t = traces[static_cast<std::size_t>(q)];
      gpb::test::expect_identical(t, cuda_ref, who + " vs one-rank CUDA");
      gpb::test::expect_close(t, cpu_ref, tol, tol <= 1e-10, who + " vs one-rank CPU");
    }
  }
}

TEST(CudaShardedPosterior, IncrementalRandomTiesPendingAndMasks) {
  GPB_REQUIRE_CUDA_DEVICE();
  expect_sharded_matches(base_script(), 1e-10);
}

TEST(CudaShardedPosterior, LowestTiesOnSliceDomains) {
  GPB_REQUIRE_CUDA_DEVICE();
  ShardScript s = base_script();
  s.random_ties = false;
  s.slice_domain = true;
  expect_sharded_matches(s, 1e-10);
}

TEST(CudaShardedPosterior, TwinsTieAcrossRanks) {
  GPB_REQUIRE_CUDA_DEVICE();
  ShardScript s = base_script();
  s.domain = gpb::test::twin_domain(random_points(899));
  s.mask_fraction = 0.0;
  s.slice_domain = true;
  expect_sharded_matches(s, 1e-10);
}

TEST(CudaShardedPosterior, Recompute) {
  GPB_REQUIRE_CUDA_DEVICE();
  ShardScript s = base_script();
  s.options.mode = gpb::PosteriorMode::Recompute;
  expect_sharded_matches(s, 1e-10);
}

TEST(CudaShardedPosterior, MixedPrecision) {
  GPB_REQUIRE_CUDA_DEVICE();
  ShardScript s = base_script();
  s.random_ties = false;
  expect_sharded_matches(s, 1e-5, gpb::Precision::Mixed);
}

TEST(CudaShardedPosterior, PrecomputedKernelOverIndices) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cpu = on(gpb::Backend::Cpu, gpb::Communicator());
  const gpb::Domain pts = random_points(399);
  ShardScript s = base_script();
  s.kernel = gpb::Kernel::precomputed(
      gpb::kernel_matrix(*cpu, gpb::Kernel::se(0.3), pts.points(), pts.points()));
  s.domain = gpb::Domain::indices(pts.size());
  s.slice_domain = true;
  expect_sharded_matches(s, 1e-10);
}

}  // namespace
