// The sharded CPU FinitePosterior on K in-process ranks (Communicator::in_process, one thread per
// rank) against the one-rank posterior, bit for bit: choices, scores and tie counts (random ties,
// exact ties across ranks), μ and σ² after every step, history and information gain, in eager,
// lazy, recompute and mixed-precision modes, with pending rows and masks. Also the in-process
// communicator itself: a rank that stops calling collectives is named, K > N is refused; the
// adaptive timeout's rule and the launcher variables read before MPI starts.
// (The same under mpirun: tests/mpi/sharded_posterior_main.cpp.)
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "comm/communicator_impl.hpp"
#include "gpbandit/comm/mpi_runtime.hpp"
#include "gpbandit/error.hpp"
#include "shard_harness.hpp"

namespace {

using gpb::test::ShardScript;

std::unique_ptr<gpb::Context> cpu_on(const gpb::Communicator& comm,
                                     gpb::Precision precision = gpb::Precision::Double) {
  gpb::ContextOptions o;
  o.backend = gpb::Backend::Cpu;
  o.threads = 1;
  o.precision = precision;
  o.communicator = comm;
  return std::make_unique<gpb::Context>(o);
}

ShardScript base_script() {
  ShardScript s = gpb::test::grid_script(23, 19, 4);  // N = 437; V grows during the session
  s.options.lazy = false;
  return s;
}

/// Plays `s` on one rank (masks always dense) and on 2 and 3 in-process ranks; every rank must
/// see the one-rank trace. Returns the number of choices that were exact ties on one rank.
int expect_sharded_identical(const ShardScript& s,
                             gpb::Precision precision = gpb::Precision::Double) {
  const auto one = cpu_on(gpb::Communicator(), precision);
  ShardScript dense = s;
  dense.sparse_masks = false;
  const gpb::test::ShardTrace ref = gpb::test::play_script(*one, dense, {});
  for (const int k : {2, 3}) {
    const auto traces = gpb::test::play_sharded(
        k, s, {}, [&](const gpb::Communicator& c) { return cpu_on(c, precision); });
    for (int q = 0; q < k; ++q) {
      gpb::test::expect_identical(traces[static_cast<std::size_t>(q)], ref,
                                  std::to_string(k) + " ranks, rank " + std::to_string(q));
    }
  }
  int tied = 0;
  for (const gpb::UcbChoice& c : ref.choices) tied += c.ties > 1 ? 1 : 0;
  return tied;
}

TEST(ShardedPosterior, EagerRandomTiesPendingAndMasks) {
  expect_sharded_identical(base_script());
}

TEST(ShardedPosterior, ExclusionListsGiveTheMaskChoices) {
  ShardScript s = base_script();
  s.sparse_masks = true;
  s.mask_fraction = 0.6;
  expect_sharded_identical(s);
  s.options.lazy = true;
  expect_sharded_identical(s);
  // One rank, lists against the mask: the same trace.
  const auto one = cpu_on(gpb::Communicator());
  ShardScript dense = s;
  dense.sparse_masks = false;
  gpb::test::expect_identical(gpb::test::play_script(*one, s, {}),
                              gpb::test::play_script(*one, dense, {}), "one rank, lists");
}

TEST(ShardedPosterior, ExclusionListsChecked) {
  const auto one = cpu_on(gpb::Communicator());
  gpb::FinitePosterior p(*one, gpb::Kernel::se(0.3), gpb::Domain::grid({0.0}, {1.0}, {9}), 2,
                         gpb::PosteriorOptions{});
  const double w[2] = {1.0, 1.0};
  const auto message = [&](const std::vector<std::vector<int>>& lists) {
    try {
      (void)p.ucb_argmax(w, lists, nullptr);
    } catch (const gpb::InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{1}}).find("2 exclusion lists expected, got 1"), std::string::npos);
  EXPECT_NE(message({{1}, {3, 9}}).find("excluded[1][1] = 9 is out of range [0, 9)"),
            std::string::npos);
  EXPECT_NE(message({{0, 1, 2, 3, 4, 5, 6, 7, 8}, {}}).find("every candidate is excluded"),
            std::string::npos);
  // The failed calls left nothing behind: run 0 may choose anything again.
  const auto c = p.ucb_argmax(w, std::vector<std::vector<int>>{{}, {4}}, nullptr);
  EXPECT_EQ(c[0].index, 0);  // the prior: every score equal, the lowest index wins
  EXPECT_NE(c[1].index, 4);
}

TEST(ShardedPosterior, LowestTiesOnSliceDomains) {
  ShardScript s = base_script();
  s.random_ties = false;
  s.slice_domain = true;
  expect_sharded_identical(s);
}

TEST(ShardedPosterior, LazyTwinsTieAcrossRanks) {
  ShardScript s = base_script();
  s.domain = gpb::test::twin_domain(gpb::Domain::grid({0.0, 0.0}, {1.0, 1.0}, {13, 11}));
  s.options.lazy = true;
  s.slice_domain = true;
  s.mask_fraction = 0.0;  // every step ties (each point twice): the tie rank is drawn every time
  EXPECT_EQ(expect_sharded_identical(s), s.steps * s.runs);
}

TEST(ShardedPosterior, Recompute) {
  ShardScript s = base_script();
  s.options.mode = gpb::PosteriorMode::Recompute;
  s.options.chunk = 50;
  expect_sharded_identical(s);
}

TEST(ShardedPosterior, MixedPrecision) {
  expect_sharded_identical(base_script(), gpb::Precision::Mixed);
}

TEST(ShardedPosterior, MeanStaysValidAfterVariance) {
  // Sharded, μ and σ² are gathered over the ranks; the pointer mean() returns must not be
  // overwritten by a later variance() (the Python module's mean(copy=False) view relies on it).
  const gpb::Domain domain = gpb::Domain::grid({0.0}, {1.0}, {40});
  const std::vector<gpb::Communicator> comms = gpb::Communicator::in_process(2, 60.0);
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int q = 0; q < 2; ++q) {
    threads.emplace_back([&, q] {
      try {
        const auto ctx = cpu_on(comms[static_cast<std::size_t>(q)]);
        gpb::FinitePosterior post(*ctx, gpb::Kernel::se(0.2), domain, 1);
        const int idx[] = {3, 31};
        const double y[] = {1.0, -2.0};
        post.observe_batch(2, idx, y);
        const double* mu = post.mean(0);
        const std::vector<double> copy(mu, mu + 40);
        const double* s2 = post.variance(0);
        if (!std::equal(copy.begin(), copy.end(), mu))
          errors[static_cast<std::size_t>(q)] = "variance() overwrote mean()";
        if (std::equal(copy.begin(), copy.end(), s2))
          errors[static_cast<std::size_t>(q)] = "μ equals σ²";
      } catch (const std::exception& ex) {
        errors[static_cast<std::size_t>(q)] = ex.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
}

TEST(ShardedPosterior, PrecomputedKernelOverIndices) {
  const auto one = cpu_on(gpb::Communicator());
  const gpb::Domain pts = gpb::Domain::grid({0.0, 0.0}, {1.0, 1.0}, {15, 14});
  ShardScript s = base_script();
  s.kernel = gpb::Kernel::precomputed(
      gpb::kernel_matrix(*one, gpb::Kernel::se(0.3), pts.points(), pts.points()));
  s.domain = gpb::Domain::indices(pts.size());
  s.slice_domain = true;
  expect_sharded_identical(s);
}

TEST(ShardedPosterior, MoreRanksThanCandidatesRefusedOnEveryRank) {
  ShardScript s = base_script();
  s.domain = gpb::Domain::grid({0.0}, {1.0}, {3});
  const auto traces =
      gpb::test::play_sharded(4, s, {}, [](const gpb::Communicator& c) { return cpu_on(c); });
  for (const auto& t : traces)
    EXPECT_NE(t.error.find("4 ranks for a domain of 3 candidates"), std::string::npos) << t.error;
}

TEST(InProcessCommunicator, DescribesAndCounts) {
  const auto comms = gpb::Communicator::in_process(3);
  ASSERT_EQ(comms.size(), 3u);
  EXPECT_EQ(comms[1].rank(), 1);
  EXPECT_EQ(comms[1].size(), 3);
  EXPECT_EQ(comms[2].node_rank(), 2);
  EXPECT_EQ(comms[0].describe(), "3 ranks (threads)");
  std::vector<std::thread> threads;
  std::vector<std::vector<int>> gathered(3, std::vector<int>(6));
  std::vector<int> maxima(3);
  for (int q = 0; q < 3; ++q) {
    threads.emplace_back([&, q] {
      const int mine[2] = {q, 10 * q};
      comms[static_cast<std::size_t>(q)].impl().allgather(mine, 2, gathered[q].data(), "test");
      maxima[q] = 5 - q;
      comms[static_cast<std::size_t>(q)].impl().allreduce_max(&maxima[q], 1, "test");
    });
  }
  for (auto& t : threads) t.join();
  for (int q = 0; q < 3; ++q) {
    EXPECT_EQ(gathered[q], (std::vector<int>{0, 0, 1, 10, 2, 20}));
    EXPECT_EQ(maxima[q], 5);
    EXPECT_EQ(comms[static_cast<std::size_t>(q)].stats().collectives, 2u);
    EXPECT_EQ(comms[static_cast<std::size_t>(q)].stats().bytes, 4u * 2 * 3 + 4u);
  }
  EXPECT_THROW(gpb::Communicator::in_process(0), gpb::InvalidArgument);
}

TEST(InProcessCommunicator, SilentRankNamedByEveryLiveRankReportedOnce) {
  const auto comms = gpb::Communicator::in_process(3, 0.3);
  std::vector<std::string> what(3);
  std::atomic<int> reporters{0};
  std::vector<std::thread> threads;
  for (const int q : {0, 1}) {  // rank 2 never calls the collective
    threads.emplace_back([&, q] {
      int v = q;
      try {
        comms[static_cast<std::size_t>(q)].impl().allreduce_max(&v, 1, "argmax");
      } catch (const gpb::RankFailure& e) {
        what[q] = e.what();
        EXPECT_EQ(e.failed_rank(), 2);
        if (e.reporter()) ++reporters;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const int q : {0, 1})
    EXPECT_NE(what[q].find("rank 2 stopped responding (argmax"), std::string::npos) << what[q];
  EXPECT_EQ(reporters.load(), 1);
}

TEST(Communicator, TheAdaptiveTimeoutFitsTheRounds) {
  using C = gpb::Communicator;
  EXPECT_EQ(C::adaptive_timeout(0, 0), 600.0);       // set-up: nothing completed yet
  EXPECT_EQ(C::adaptive_timeout(0, 1000), 600.0);    // (no interval is known before the first)
  EXPECT_EQ(C::adaptive_timeout(1, 0), 60.0);        // the floor
  EXPECT_EQ(C::adaptive_timeout(500, 0.05), 60.0);   // 50 ms rounds: a hang is named after 60 s
  EXPECT_EQ(C::adaptive_timeout(500, 12.5), 250.0);  // 12.5 s rounds: 20 of them
  EXPECT_EQ(C::kAdaptiveTimeout, 0.0);
}

/// Sets the environment variables of `vars` ("NAME=value"), unsetting every launcher variable
/// first, and returns launcher_world().
gpb::mpi::LauncherWorld launcher_with(const std::vector<std::string>& vars) {
  for (const char* name :
       {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE",
        "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS"}) {
    ::unsetenv(name);
  }
  for (const std::string& v : vars) {
    const std::size_t eq = v.find('=');
    ::setenv(v.substr(0, eq).c_str(), v.substr(eq + 1).c_str(), 1);
  }
  return gpb::mpi::launcher_world();
}

TEST(Communicator, LauncherVariablesOfEveryKnownLauncher) {
  // Saved and restored: a test run under mpirun has Open MPI's own.
  const char* const saved_rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* const saved_size = std::getenv("OMPI_COMM_WORLD_SIZE");
  const std::string rank_text = saved_rank ? saved_rank : "",
                    size_text = saved_size ? saved_size : "";
  auto w = launcher_with({"OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=4"});
  EXPECT_EQ(w.rank, 2);
  EXPECT_EQ(w.size, 4);
  EXPECT_EQ(w.source, "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE");
  w = launcher_with({"PMI_RANK=1", "PMI_SIZE=3"});  // MPICH Hydra, Intel MPI, Cray
  EXPECT_EQ(w.size, 3);
  EXPECT_EQ(w.source, "PMI_RANK/PMI_SIZE");
  w = launcher_with({"MV2_COMM_WORLD_RANK=0", "MV2_COMM_WORLD_SIZE=2"});
  EXPECT_EQ(w.size, 2);
  w = launcher_with({"SLURM_PROCID=5", "SLURM_STEP_NUM_TASKS=8"});  // srun
  EXPECT_EQ(w.rank, 5);
  EXPECT_EQ(w.size, 8);
  // A batch script has SLURM_PROCID = 0 and the job's task count but is one process: no step.
  EXPECT_EQ(launcher_with({"SLURM_PROCID=0", "SLURM_NTASKS=8"}).size, 0);
  // Garbage and inconsistent values are ignored.
  EXPECT_EQ(launcher_with({"PMI_RANK=x", "PMI_SIZE=3"}).size, 0);
  EXPECT_EQ(launcher_with({"PMI_RANK=3", "PMI_SIZE=3"}).size, 0);
  EXPECT_EQ(launcher_with({"PMI_RANK=-1", "PMI_SIZE=3"}).size, 0);
  EXPECT_EQ(launcher_with({}).size, 0);
  ::unsetenv("SLURM_NTASKS");
  launcher_with({});
  if (saved_rank != nullptr) ::setenv("OMPI_COMM_WORLD_RANK", rank_text.c_str(), 1);
  if (saved_size != nullptr) ::setenv("OMPI_COMM_WORLD_SIZE", size_text.c_str(), 1);
}

}  // namespace
