// Where a second thread starts to pay off: the CPU engine's parallel loops timed with 1 thread and
// with 2 threads forced (ContextOptions::min_parallel_work = 0), over a range of work sizes.
//
//   OMP_WAIT_POLICY=passive ./build/bench/bench_parallel [--reps 200] [--threads 2]
//
// Prints one markdown table: per op and size, the estimated work (scalar operations, the unit of
// ContextOptions::min_parallel_work), the median microseconds of one call with 1 and with
// `--threads` threads, and their ratio. The two contexts are used alternately, call by call, so a
// change of the machine's load during the run affects both columns alike. ContextOptions::
// min_parallel_work (kDefaultMinParallelWork) is chosen from this table: the smallest work per
// thread above which every row's ratio stays below 0.9. Not a Google Benchmark: its fixtures run
// one configuration after the other, and on a shared machine that pairs badly.
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Times `a` and `b` alternately `reps` times; returns the two median durations in microseconds.
std::pair<double, double> paired(int reps, const std::function<void()>& a,
                                 const std::function<void()>& b) {
  std::vector<double> ta, tb;
  for (int i = 0; i < reps + 3; ++i) {
    for (int which = 0; which < 2; ++which) {
      const auto t0 = Clock::now();
      (which == 0 ? a : b)();
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      if (i >= 3) (which == 0 ? ta : tb).push_back(us);  // the first calls warm the caches
    }
  }
  return {median(ta), median(tb)};
}

void row(const char* op, long long size, double work, std::pair<double, double> t) {
  std::printf("| %s | %lld | %.3g | %.1f | %.1f | %.2f |\n", op, size, work, t.first, t.second,
              t.second / t.first);
}

gpb::Domain random_domain(int n, int d) {
  gpb::Rng rng(1, 0, 99);
  Eigen::MatrixXd rows(n, d);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) rows(i, k) = rng.uniform();
  return gpb::Domain::from_rows(rows);
}

/// One eager posterior update (a new row of V over N candidates, t rows already there).
void bench_update(const gpb::Context& one, const gpb::Context& many, int n, int t, int reps) {
  const gpb::Domain dom = random_domain(n, 2);
  gpb::PosteriorOptions opt;
  opt.noise_variance = 1e-2;
  opt.capacity = t + reps + 8;
  opt.mode = gpb::PosteriorMode::Incremental;
  opt.lazy = false;
  gpb::FinitePosterior p1(one, gpb::Kernel::se(0.2), dom, 1, opt);
  gpb::FinitePosterior p2(many, gpb::Kernel::se(0.2), dom, 1, opt);
  gpb::Rng rng(2, 0, 7);
  for (int s = 0; s < t; ++s) {
    const int a = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
    const double y = rng.uniform(-1.0, 1.0);
    p1.observe(&a, &y);
    p2.observe(&a, &y);
  }
  int a1 = 0, a2 = 0;
  const double y = 0.5;
  const auto res = paired(
      reps,
      [&] {
        a1 = (a1 + 7919) % n;
        p1.observe(&a1, &y);
      },
      [&] {
        a2 = (a2 + 7919) % n;
        p2.observe(&a2, &y);
      });
  row("posterior update", n, static_cast<double>(n) * (t + reps / 2 + 8), res);
}

/// The fused UCB argmax over N candidates.
void bench_argmax(const gpb::Context& one, const gpb::Context& many, int n, int reps) {
  gpb::Rng rng(3, 0, 1);
  std::vector<double> mu(static_cast<std::size_t>(n)), s2(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    mu[static_cast<std::size_t>(i)] = rng.uniform();
    s2[static_cast<std::size_t>(i)] = rng.uniform();
  }
  volatile int sink = 0;
  const auto res = paired(
      reps,
      [&] { sink = gpb::ucb_argmax(one, mu.data(), s2.data(), n, 2.0, nullptr, nullptr).index; },
      [&] { sink = gpb::ucb_argmax(many, mu.data(), s2.data(), n, 2.0, nullptr, nullptr).index; });
  row("ucb argmax", n, 8.0 * n, res);
}

/// K(A, B) with A 2×16 and B 2×N (the kernel rows of a batch of 16 points).
void bench_kernel(const gpb::Context& one, const gpb::Context& many, int n, int reps) {
  const gpb::Domain dom = random_domain(n, 2);
  const Eigen::MatrixXd a = dom.points().leftCols(16);
  const gpb::Kernel k = gpb::Kernel::se(0.2);
  volatile double sink = 0;
  const auto res = paired(
      reps, [&] { sink = gpb::kernel_matrix(one, k, a, dom.points())(0, 0); },
      [&] { sink = gpb::kernel_matrix(many, k, a, dom.points())(0, 0); });
  row("kernel matrix 16×N", n, 16.0 * n * (2 + 8), res);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 200, threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
  }
  gpb::ContextOptions o1;
  o1.backend = gpb::Backend::Cpu;
  o1.threads = 1;
  gpb::ContextOptions o2 = o1;
  o2.threads = threads;
  o2.min_parallel_work = 0;  // every loop on every thread
  const gpb::Context one(o1), many(o2);
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::printf("OMP_WAIT_POLICY=%s, %d reps, 1 vs %d threads\n\n", policy ? policy : "(unset)", reps,
              threads);
  std::printf("| op | N | work (ops) | 1 thread (µs) | %d threads (µs) | ratio |\n", threads);
  std::printf("|---|---|---|---|---|---|\n");
  for (int n : {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536})
    bench_update(one, many, n, 24, reps);
  for (int n : {4096, 16384, 65536, 262144, 1048576}) bench_argmax(one, many, n, reps);
  for (int n : {256, 1024, 4096, 16384, 65536}) bench_kernel(one, many, n, reps);
  return 0;
}
