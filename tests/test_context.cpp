// Context: backend parsing, Auto resolution (and GPBANDIT_BACKEND), threads, and honest CUDA
// errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "test_support.hpp"

namespace {

using gpb::Backend;
using gpb::Context;
using gpb::ContextOptions;

TEST(Context, ParseBackend) {
  EXPECT_EQ(gpb::parse_backend("cpu"), Backend::Cpu);
  EXPECT_EQ(gpb::parse_backend("cuda"), Backend::Cuda);
  EXPECT_EQ(gpb::parse_backend("auto"), Backend::Auto);
  for (Backend b : {Backend::Cpu, Backend::Cuda, Backend::Auto}) {
    EXPECT_EQ(gpb::parse_backend(gpb::backend_name(b)), b);
  }
}

TEST(Context, ParseBackendNamesBadValueAndAllowedOnes) {
  for (const char* bad : {"gpu", "CPU", ""}) {
    try {
      gpb::parse_backend(bad);
      FAIL() << "no exception for '" << bad << "'";
    } catch (const gpb::InvalidArgument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(std::string("'") + bad + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("cpu, cuda, auto"), std::string::npos) << msg;
    }
  }
}

// GPBANDIT_BACKEND set (or unset, for nullptr) for one scope.
struct BackendEnv : gpb::test::ScopedEnv {
  explicit BackendEnv(const char* value) : ScopedEnv("GPBANDIT_BACKEND", value) {}
};

bool device_present() {
  return Context::cuda_compiled() && Context::cuda_device_count() > 0;
}

TEST(Context, AutoResolvesToCudaWhenADeviceIsPresent) {
  const BackendEnv env(nullptr);
  const Context ctx;
  const Backend want = device_present() ? Backend::Cuda : Backend::Cpu;
  EXPECT_EQ(ctx.backend(), want);
  EXPECT_EQ(ctx.options().backend, want);
  EXPECT_EQ(ctx.cuda() != nullptr, want == Backend::Cuda);
}

TEST(Context, EnvironmentSettlesAutoButNeverAnExplicitBackend) {
  {
    const BackendEnv env("cpu");
    EXPECT_EQ(Context().backend(), Backend::Cpu);
  }
  {
    const BackendEnv env("auto");
    EXPECT_EQ(Context().backend(), device_present() ? Backend::Cuda : Backend::Cpu);
  }
  {
    const BackendEnv env("");  // empty: as if unset
    EXPECT_EQ(Context().backend(), device_present() ? Backend::Cuda : Backend::Cpu);
  }
  {
    const BackendEnv env("cuda");
    ContextOptions o;
    o.backend = Backend::Cpu;
    EXPECT_EQ(Context(o).backend(), Backend::Cpu);  // explicit wins
    if (device_present()) {
      EXPECT_EQ(Context().backend(), Backend::Cuda);
    } else {
      EXPECT_THROW(Context(), gpb::Error);  // CUDA asked for: no build or no device
    }
  }
  {
    const BackendEnv env("gpu");
    try {
      Context ctx;
      FAIL() << "no exception";
    } catch (const gpb::InvalidArgument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("GPBANDIT_BACKEND='gpu'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("cpu, cuda or auto"), std::string::npos) << msg;
    }
    ContextOptions o;
    o.backend = Backend::Cpu;
    EXPECT_EQ(Context(o).backend(), Backend::Cpu);  // not read for an explicit backend
  }
}

TEST(Context, Threads) {
  ContextOptions o;
  o.threads = 3;
  const Context three(o);
  EXPECT_EQ(three.threads(), 3);
  EXPECT_EQ(three.describe(), "cpu (3 threads)");
  const Context dflt;
  // threads = 0 resolves to the OpenMP default (omp_get_max_threads(), at least 1).
  EXPECT_GE(dflt.threads(), 1);
  o.threads = -1;
  EXPECT_THROW(Context{o}, gpb::InvalidArgument);
}

TEST(Context, MoveKeepsSettings) {
  ContextOptions o;
  o.threads = 2;
  o.memory_budget_bytes = 12345;
  Context a(o);
  Context b(std::move(a));
  EXPECT_EQ(b.threads(), 2);
  EXPECT_EQ(b.memory_budget_bytes(), 12345u);
  Context c;
  c = std::move(b);
  EXPECT_EQ(c.threads(), 2);
}

TEST(Context, MemoryBudgetIsAutomaticUnlessGiven) {
  // memory_budget_bytes = 0: automatic, 75 % of the host memory available when it is built
  // (read before and after: other processes on the machine change it meanwhile).
  const BackendEnv env("cpu");  // the CPU's budget rule, also on a machine with a GPU
  const std::size_t before = gpb::available_host_memory();
  const Context dflt;
  const std::size_t after = gpb::available_host_memory();
  EXPECT_EQ(dflt.backend(), Backend::Cpu);
  if (before == 0 || after == 0) {  // unknown here (no /proc/meminfo)
    EXPECT_EQ(dflt.memory_budget_bytes(), gpb::kCpuDefaultBudgetBytes);
  } else {
    const double got = static_cast<double>(dflt.memory_budget_bytes());
    EXPECT_GE(got, 0.9 * gpb::kCpuBudgetFraction * static_cast<double>(std::min(before, after)));
    EXPECT_LE(got, 1.1 * gpb::kCpuBudgetFraction * static_cast<double>(std::max(before, after)));
  }
  ContextOptions o;
  o.memory_budget_bytes = 777;
  EXPECT_EQ(Context(o).memory_budget_bytes(), 777u);
}

TEST(Context, AutomaticBudgetArithmetic) {
  EXPECT_EQ(Context::automatic_memory_budget(Backend::Cpu, 0), std::size_t{4} << 30);
  EXPECT_EQ(Context::automatic_memory_budget(Backend::Cpu, std::size_t{80} << 30),
            std::size_t{60} << 30);  // kCpuBudgetFraction (3/4) of the available memory
  // CUDA: kCudaBudgetFraction (3/4) of the free memory, so an 80 GB card with 79 GiB free gets far
  // more than the CPU's 4 GiB and keeps V on the device up to about 59 GiB.
  EXPECT_DOUBLE_EQ(gpb::kCudaBudgetFraction, 0.75);
  EXPECT_EQ(Context::automatic_memory_budget(Backend::Cuda, std::size_t{79} << 30),
            (std::size_t{79} << 30) / 4 * 3);
  EXPECT_EQ(Context::automatic_memory_budget(Backend::Cuda, 1000), 750u);
  EXPECT_EQ(Context::automatic_memory_budget(Backend::Cuda, 0), 1u);  // never 0
  EXPECT_THROW(Context::automatic_memory_budget(Backend::Auto, 1), gpb::InvalidArgument);
}

TEST(Context, CudaRequestFailsClearlyWithoutBuildOrDevice) {
  EXPECT_GE(Context::cuda_device_count(), 0);  // never throws
  ContextOptions o;
  o.backend = Backend::Cuda;
  if (!Context::cuda_compiled()) {
    EXPECT_EQ(Context::cuda_device_count(), 0);
    try {
      Context ctx(o);
      FAIL() << "no exception";
    } catch (const gpb::NoCudaBuildError& e) {
      EXPECT_NE(std::string(e.what()).find("this build has no CUDA"), std::string::npos);
    }
  } else if (Context::cuda_device_count() == 0) {
    try {
      Context ctx(o);
      FAIL() << "no exception";
    } catch (const gpb::CudaError& e) {
      // One clear line: what is missing and what to do, never the runtime's misleading
      // "driver version is insufficient" on a machine without a driver.
      const std::string msg = e.what();
      EXPECT_NE(msg.find("no CUDA device is available"), std::string::npos) << msg;
      EXPECT_NE(msg.find("use backend cpu"), std::string::npos) << msg;
      EXPECT_EQ(msg.find("insufficient"), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  } else {
    // A device is present: the context works and the ops run on it.
    Context ctx(o);
    EXPECT_EQ(ctx.backend(), Backend::Cuda);
    EXPECT_NE(ctx.cuda(), nullptr);
    EXPECT_NE(ctx.describe().find("cuda: "), std::string::npos);
    const Eigen::MatrixXd x = Eigen::MatrixXd::Zero(1, 2);
    const Eigen::MatrixXd k = gpb::kernel_matrix(ctx, gpb::Kernel::se(1.0), x, x);
    EXPECT_EQ(k, Eigen::MatrixXd::Ones(2, 2));
  }
}

}  // namespace

TEST(Communicator, DefaultIsOneRankHoldingEverything) {
  const gpb::Context ctx(gpb::ContextOptions{});
  const gpb::Communicator& c = ctx.communicator();
  EXPECT_EQ(c.size(), 1);
  EXPECT_EQ(c.rank(), 0);
  EXPECT_FALSE(c.sharded());
  EXPECT_EQ(c.slice(437), std::make_pair(0LL, 437LL));
  EXPECT_EQ(c.owner(437, 436), 0);
  EXPECT_EQ(c.describe(), "1 rank");
  EXPECT_EQ(c.stats().collectives, 0u);
  if (!gpb::Communicator::mpi_available()) {
    EXPECT_THROW(gpb::Communicator::world(), gpb::InvalidArgument);
  }
}
