// Threads: the Context's count governs OpenMP loops and Eigen's products, small loops stay on one
// thread, the CLI waits passively unless the user chose a policy, and --threads overrides configs.
#include <gtest/gtest.h>

#include <omp.h>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/error.hpp"
#include "test_support.hpp"

namespace {

using gpb::Context;
using gpb::ContextOptions;
using gpb::test::read_file;
using gpb::test::run_command;
using gpb::test::TempDir;
using gpb::test::write_file;

Context cpu_context(int threads) {
  ContextOptions o;
  o.backend = gpb::Backend::Cpu;
  o.threads = threads;
  return Context(o);
}

TEST(Threads, ContextSetsEigensThreadCount) {
  {
    const Context one = cpu_context(1);
    EXPECT_EQ(Eigen::nbThreads(), 1);
  }
  const Context three = cpu_context(3);
  EXPECT_EQ(Eigen::nbThreads(), 3);
  const Context one = cpu_context(1);
  EXPECT_EQ(Eigen::nbThreads(), 1);
}

TEST(Threads, DefaultIsTheIdleCores) {
  const int idle = gpb::idle_cores();
  EXPECT_GE(idle, 1);
  EXPECT_LE(idle, omp_get_num_procs());
  if (std::getenv("OMP_NUM_THREADS") == nullptr) {
    // An empty claims directory of its own, so that other tests' processes (ctest -j) claim
    // nothing here (tests/test_core_claims.cpp checks the claims).
    const TempDir claims;
    ::setenv("GPBANDIT_CORE_CLAIMS_DIR", claims.path().c_str(), 1);
    // The load may change between the two calls by a core at most in a short test.
    EXPECT_NEAR(Context().threads(), idle, 1);
    ::unsetenv("GPBANDIT_CORE_CLAIMS_DIR");
  }
}

TEST(Threads, SmallWorkStaysOnOneThread) {
  EXPECT_EQ(gpb::threads_for_work(4, 1000, 0), 1);
  EXPECT_EQ(gpb::threads_for_work(4, 1000, 1999), 1);
  EXPECT_EQ(gpb::threads_for_work(4, 1000, 2000), 2);
  EXPECT_EQ(gpb::threads_for_work(4, 1000, 1e12), 4);
  EXPECT_EQ(gpb::threads_for_work(4, 0, 1), 4);  // 0: always every thread
  EXPECT_EQ(gpb::threads_for_work(0, 1000, 1e12), 1);
  ContextOptions o;
  o.threads = 2;
  const Context ctx(o);
  EXPECT_EQ(ctx.threads_for(1.0), 1);
  EXPECT_EQ(ctx.threads_for(2.0 * gpb::kDefaultMinParallelWork), 2);
  o.min_parallel_work = -1;
  EXPECT_THROW(Context{o}, gpb::InvalidArgument);
}

/// The GOMP_SPINCOUNT libgomp reports last (OMP_DISPLAY_ENV=verbose) for `gpbandit run` (of a
/// missing config: the report comes when libgomp loads) under `env`: 0 with passive waiting,
/// 300000 or more when threads spin.
std::string spin_count(const std::string& env) {
  const auto r = run_command("env " + env + " OMP_DISPLAY_ENV=verbose '" +
                             std::string(GPB_CLI_PATH) + "' run /nonexistent.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const std::string key = "GOMP_SPINCOUNT = '";
  const auto at = r.output.rfind(key);
  if (at == std::string::npos) return "(not reported)";
  const auto end = r.output.find('\'', at + key.size());
  return r.output.substr(at + key.size(), end - at - key.size());
}

TEST(Threads, CliWaitsPassivelyUnlessTheUserChose) {
  EXPECT_EQ(spin_count("-u OMP_WAIT_POLICY"), "0");
  EXPECT_EQ(spin_count("OMP_WAIT_POLICY=active"), "30000000000");
  EXPECT_EQ(spin_count("OMP_WAIT_POLICY=passive"), "0");
}

TEST(Threads, FlagOverridesTheConfig) {
  TempDir dir;
  nlohmann::json j = nlohmann::json::parse(R"({
    "name": "threads", "runs": 2, "T": 5, "backend": "cpu", "threads": 2,
    "domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [20]},
    "objective": {"type": "rkhs", "support": 5},
    "policies": [{"type": "gp_ucb"}]
  })");
  write_file(dir.file("cfg.json"), j.dump());
  const std::string run = "'" + std::string(GPB_CLI_PATH) + "' run '" + dir.file("cfg.json") +
                          "' --quiet --no-plot --out '" + dir.file("o") + "'";
  ASSERT_EQ(run_command(run + " --threads 1").exit_code, 0);
  const auto summary = nlohmann::json::parse(read_file(dir.file("o/summary.json")));
  EXPECT_EQ(summary["backend"], "cpu (1 thread)");
  const std::string one = read_file(dir.file("o/runs.csv"));
  ASSERT_EQ(run_command(run + " --threads 2").exit_code, 0);
  EXPECT_EQ(read_file(dir.file("o/runs.csv")), one);  // results never depend on threads
  const auto bad = run_command(run + " --threads -1");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

}  // namespace
