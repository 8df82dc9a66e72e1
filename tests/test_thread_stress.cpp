// Thread safety of the classes that say they may be shared (their headers' thread-safety notes):
// 8 threads × 1000 mixed calls on one Optimizer, on one Kernel + Domain + Context used by engine
// ops at once, on the warning hook, and on one Experiment run into different folders. Each test
// checks what the calls must leave (every tell counted once, a state that round-trips), and
// `make check-tsan` runs this file under ThreadSanitizer, which fails on any data race.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <atomic>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/io/log.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::TempDir;

constexpr int kThreads = 8;
constexpr int kCalls = 1000;

/// Runs body(thread, rng) on kThreads threads at once and joins them.
template <typename F>
void on_threads(F body) {
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(1234 + static_cast<std::uint64_t>(t));
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();  // start together
      body(t, rng);
    });
  }
  for (auto& th : threads) th.join();
}

gpb::OptimizerOptions small_options() {
  gpb::OptimizerOptions o;
  o.domain = gpb::DomainSpec::grid({0.0, 0.0}, {1.0, 1.0}, {20, 10});  // N = 200
  o.kernel = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.3);
  o.fit.restarts = 0;
  o.fit.max_rows = 40;
  o.context.backend = gpb::Backend::Cpu;
  return o;
}

// Mixed calls on one Optimizer: ask (then tell by index or by point, or forget), tell off the
// candidates, predict, best, the accessors, dumps/loads, save/load, forget_all and a rare fit.
// Expected failures (every candidate outstanding, forgetting an ask another thread told, best
// before any tell) are InvalidArgument and leave the object consistent.
TEST(ThreadStress, OneOptimizerSharedByEightThreads) {
  gpb::Optimizer opt(small_options());
  TempDir dir;
  std::atomic<long long> told{0}, calls{0}, refused{0};
  constexpr int kMaxObservations = 250;  // keeps every call O(N·t²) small
  on_threads([&](int t, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const std::string file = dir.file("state-" + std::to_string(t) + ".json");
    for (int i = 0; i < kCalls; ++i, ++calls) {
      const double pick = u(rng);
      try {
        if (pick < 0.30) {
          const gpb::AskResult a = opt.ask(1 + static_cast<int>(rng() % 2));
          const bool room = opt.num_observations() < kMaxObservations;
          std::vector<double> y;
          for (Eigen::Index r = 0; r < a.points.rows(); ++r) {
            y.push_back(std::sin(3 * a.points(r, 0)) + a.points(r, 1));
          }
          if (room && u(rng) < 0.5) {
            opt.tell(a.indices, y);
            told += static_cast<long long>(y.size());
          } else if (room) {
            opt.tell(a.points, y);
            told += static_cast<long long>(y.size());
          } else {
            opt.forget(a.indices);
          }
        } else if (pick < 0.35) {
          if (opt.num_observations() < kMaxObservations) {
            Eigen::MatrixXd x(1, 2);
            x << u(rng), u(rng);  // off the grid, inside the box: a rebuild of the posterior
            opt.tell(x, {x(0, 0) - x(0, 1)});
            ++told;
          }
        } else if (pick < 0.50) {
          const Eigen::MatrixXd x = Eigen::MatrixXd::Random(3, 2).cwiseAbs();
          const gpb::Prediction p = opt.predict(x);
          EXPECT_EQ(p.mean.size(), 3);
          EXPECT_TRUE((p.variance.array() >= 0).all());
        } else if (pick < 0.58) {
          EXPECT_EQ(opt.predict_candidates().mean.size(), 200);
        } else if (pick < 0.66) {
          const gpb::BestObservation b = opt.best();
          EXPECT_GE(b.observation, 0);
        } else if (pick < 0.80) {
          (void)opt.pending();
          (void)opt.observed_points();
          (void)opt.observed_values();
          (void)opt.observed_indices();
          EXPECT_GT(opt.kernel().variance(), 0);
          EXPECT_GT(opt.noise_variance(), 0);
          (void)opt.fits();
          (void)opt.last_fit_error();
          (void)opt.y_scale();
        } else if (pick < 0.86) {
          const std::string text = opt.dumps();
          EXPECT_EQ(gpb::Optimizer::loads(text).dumps(), text);
        } else if (pick < 0.90) {
          opt.save(file);
          EXPECT_GE(gpb::Optimizer::load(file).num_observations(), 0);
        } else if (pick < 0.97) {
          (void)opt.forget_all();
        } else if (pick < 0.975) {
          if (opt.num_observations() >= 5) (void)opt.fit_hyperparameters();
        } else {
          (void)opt.num_observations();
        }
      } catch (const gpb::InvalidArgument&) {
        ++refused;
      }
    }
  });
  EXPECT_EQ(calls.load(), kThreads * kCalls);
  EXPECT_EQ(opt.num_observations(), told.load());  // every tell recorded exactly once
  EXPECT_GT(told.load(), 50);
  EXPECT_LT(refused.load(), calls.load() / 2) << "most calls must succeed";
  const std::string text = opt.dumps();
  EXPECT_EQ(gpb::Optimizer::loads(text).dumps(), text);  // a consistent state
}

// The values the headers call immutable (Kernel, Domain) and a Context used only through const
// engine ops are shared by every thread at once; each thread's kernel matrix must equal the one
// computed alone.
TEST(ThreadStress, KernelDomainAndContextSharedByEngineOps) {
  gpb::ContextOptions co;
  co.backend = gpb::Backend::Cpu;
  const gpb::Context ctx(co);
  const gpb::Kernel k = gpb::Kernel::se(0.4);
  const gpb::Domain d = gpb::Domain::grid({0.0, 0.0}, {1.0, 1.0}, {8, 8});
  const Eigen::MatrixXd alone = gpb::kernel_matrix(ctx, k, d.points(), d.points());
  std::atomic<int> mismatches{0};
  on_threads([&](int, std::mt19937_64& rng) {
    for (int i = 0; i < kCalls; ++i) {
      const int j = static_cast<int>(rng() % static_cast<unsigned>(d.size()));
      if (i % 50 == 0) {
        if (gpb::kernel_matrix(ctx, k, d.points(), d.points()) != alone) ++mismatches;
      } else {
        const double v = k(d.point(j), d.point(0), d.dim());
        if (v != alone(j, 0)) ++mismatches;
      }
    }
  });
  EXPECT_EQ(mismatches.load(), 0);
}

// The warning hook: handlers installed and warnings emitted from every thread at once; each
// warning is counted once.
TEST(ThreadStress, WarningHookFromEightThreads) {
  std::atomic<long long> seen{0};
  const long long before = gpb::warning_count();
  const gpb::WarningHandler previous = gpb::set_warning_handler(
      [&](gpb::WarningKind, const std::string& text) { seen += text.empty() ? 0 : 1; });
  on_threads([&](int t, std::mt19937_64&) {
    for (int i = 0; i < kCalls; ++i) {
      if (i % 100 == 0) {
        gpb::set_warning_handler(
            [&](gpb::WarningKind, const std::string& text) { seen += text.empty() ? 0 : 1; });
      }
      gpb::warn(t % 2 ? gpb::WarningKind::Model : gpb::WarningKind::Performance, "stress");
    }
  });
  gpb::set_warning_handler(previous);
  EXPECT_EQ(seen.load(), kThreads * kCalls);
  EXPECT_EQ(gpb::warning_count() - before, kThreads * kCalls);
}

// One Experiment (its cached instance data behind mutexes) run by every thread into its own
// folder: every runs.csv identical. Fewer calls: each is a whole run.
TEST(ThreadStress, OneExperimentRunFromEightThreads) {
  const gpb::Experiment e = gpb::parse_experiment(
      R"({"domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [40]},
          "objective": {"type": "gp_sample"}, "noise": {"type": "gaussian", "sd": 0.1},
          "policies": [{"type": "gp_ucb"}, {"type": "random"}], "runs": 2, "T": 6,
          "kernel": {"type": "se", "lengthscale": 0.2}, "backend": "cpu"})",
      "stress", ".");
  TempDir dir;
  std::vector<std::string> csv(kThreads);
  on_threads([&](int t, std::mt19937_64&) {
    for (int i = 0; i < 5; ++i) {
      gpb::RunOptions o;
      o.out_dir = dir.file("run-" + std::to_string(t) + "-" + std::to_string(i));
      o.plot = false;
      o.progress = false;
      const gpb::ExperimentResult r = gpb::run_experiment(e, o);
      const std::string text = gpb::test::read_file(r.runs_csv);
      if (i == 0) csv[static_cast<std::size_t>(t)] = text;
      EXPECT_EQ(text, csv[static_cast<std::size_t>(t)]);
    }
  });
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(csv[static_cast<std::size_t>(t)], csv[0]);
}

}  // namespace
