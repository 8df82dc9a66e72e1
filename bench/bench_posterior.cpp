// Micro benchmarks of the GP-UCB round: FinitePosterior::ucb_argmax + observe at N candidates
// with t rows already in V, against the machine's memory bandwidth measured in the same run.
//
//   ./build/bench/bench_posterior [--benchmark_filter=...]
//
// Counters: ns_per_cand_row = time / (N·t); GB/s = N·t·8 bytes / time (V read once per round);
// floor_ratio = time / (N·t·8 bytes / measured read bandwidth): 1.0 is the memory-bandwidth floor.
// BM_GpUcbRound and BM_GpUcbRoundMixed use the eager update (PosteriorOptions::lazy = false: V is
// read once per round, which is what the floor measures); BM_GpUcbRoundLazy is the default lazy
// posterior on the same problem (its floor_ratio < 1 says how much of V it did not need to read
// in these 10 rounds; bench/peers/compare.py measures it amortised over 50 rounds).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace {

double g_read_gbps = 0.0;  // measured once in main()

// Read bandwidth: best of 7 passes over a 1 GiB buffer, each thread summing into 8 independent
// accumulators so the pass is limited by memory, not by the latency of one floating-point add
// chain.
double measure_read_bandwidth() {
  const std::size_t n = (std::size_t{1} << 30) / sizeof(double);
  std::vector<double> buf(n, 1.0);
  double best = 1e300, sink = 0;
  for (int rep = 0; rep < 7; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    double s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (std::size_t i = 0; i < n; ++i) s += buf[i];
    const double sec =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, sec);
    sink += s;
  }
  if (sink < 0) std::printf("%f\n", sink);
  return static_cast<double>(n * sizeof(double)) / best / 1e9;
}

struct Problem {
  gpb::Context ctx{gpb::ContextOptions{gpb::Backend::Cpu}};
  gpb::Domain domain = gpb::Domain::indices(1);
  std::unique_ptr<gpb::FinitePosterior> post;
};

// N random points in [0,1]^d, t observations at random candidates (rewards in [-1, 1]).
std::unique_ptr<Problem> make_problem(int n, int t, int d, int extra_rows,
                                      gpb::Precision precision = gpb::Precision::Double,
                                      bool lazy = false) {
  auto p = std::make_unique<Problem>();
  if (precision == gpb::Precision::Mixed) {
    gpb::ContextOptions co{gpb::Backend::Cpu};
    co.precision = precision;
    p->ctx = gpb::Context(co);
  }
  gpb::Rng rng(1, 0, 99);
  Eigen::MatrixXd rows(n, d);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) rows(i, k) = rng.uniform();
  p->domain = gpb::Domain::from_rows(rows);
  gpb::PosteriorOptions opt;
  opt.noise_variance = 1e-2;
  opt.capacity = t + extra_rows;
  opt.mode = gpb::PosteriorMode::Incremental;
  opt.lazy = lazy;
  p->post = std::make_unique<gpb::FinitePosterior>(p->ctx, gpb::Kernel::se(0.2), p->domain, 1, opt);
  for (int s = 0; s < t; ++s) {
    const int a = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
    const double y = rng.uniform(-1.0, 1.0);
    p->post->observe(&a, &y);
  }
  (void)p->post->mean(0);  // lazy: every block up to date before the timed rounds
  return p;
}

constexpr int kRounds = 10;

void gp_ucb_round(benchmark::State& state, gpb::Precision precision, bool lazy = false) {
  const int n = static_cast<int>(state.range(0));
  const int t = static_cast<int>(state.range(1));
  const int d = static_cast<int>(state.range(2));
  auto p = make_problem(n, t, d, kRounds + 1, precision, lazy);
  const double bytes_per_value = precision == gpb::Precision::Mixed ? 4.0 : 8.0;
  const double width = 2.0;
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const auto pick = p->post->ucb_argmax(&width, nullptr, nullptr);
    const int a = pick[0].index;
    const double y = 0.5;
    p->post->observe(&a, &y);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double rows = t + kRounds / 2.0;  // mean rows read per timed round
  const double bytes = static_cast<double>(n) * rows * bytes_per_value;
  state.counters["ns_per_cand_row"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 1e-9 * n * rows,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * bytes / 1e9,
                                              benchmark::Counter::kIsRate);
  const double floor_s = bytes / (g_read_gbps * 1e9);
  state.counters["floor_ms"] = floor_s * 1e3;
  state.counters["floor_ratio"] = seconds / static_cast<double>(state.iterations()) / floor_s;
  state.counters["read_GB/s"] = g_read_gbps;
}

void BM_GpUcbRound(benchmark::State& state) {
  gp_ucb_round(state, gpb::Precision::Double);
}

// V stored in float (Precision::Mixed): half the bytes per round; the floor is computed from the
// float bytes, so floor_ratio compares it with its own floor.
void BM_GpUcbRoundMixed(benchmark::State& state) {
  gp_ucb_round(state, gpb::Precision::Mixed);
}

// The default lazy posterior (double); bytes and floor as for the eager round.
void BM_GpUcbRoundLazy(benchmark::State& state) {
  gp_ucb_round(state, gpb::Precision::Double, true);
}

// N ∈ {10^4, 10^5, 10^6}, t ∈ {100, 1000}, d ∈ {2, 8}. N = 10^6 with t = 1000 needs 8 GB for V and
// ~7 minutes of set-up (t observations at O(N·t) each); it runs only with --benchmark_filter naming
// it.
void Args(benchmark::internal::Benchmark* b) {
  for (int n : {10000, 100000, 1000000})
    for (int t : {100, 1000})
      for (int d : {2, 8})
        if (!(n == 1000000 && t == 1000)) b->Args({n, t, d});
}
BENCHMARK(BM_GpUcbRound)
    ->Apply(Args)
    ->Iterations(kRounds)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_GpUcbRoundMixed)
    ->Apply(Args)
    ->Iterations(kRounds)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_GpUcbRoundLazy)
    ->Apply(Args)
    ->Iterations(kRounds)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_GpUcbRoundLarge(benchmark::State& state) {
  BM_GpUcbRound(state);
}
BENCHMARK(BM_GpUcbRoundLarge)
    ->Args({1000000, 1000, 2})
    ->Iterations(kRounds)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  bool filtered = false;  // checked before Initialize(), which consumes the flags it knows
  for (int i = 1; i < argc; ++i)
    filtered |= std::string(argv[i]).rfind("--benchmark_filter", 0) == 0;
  g_read_gbps = measure_read_bandwidth();
  std::printf("measured read bandwidth: %.2f GB/s (%d threads)\n", g_read_gbps,
              omp_get_max_threads());
  // Default run: everything except the 8 GB case (BM_GpUcbRoundLarge), unless a filter is given.
  std::vector<char*> args(argv, argv + argc);
  static char filter[] = "--benchmark_filter=^BM_GpUcbRound(Mixed|Lazy)?/";
  if (!filtered) args.push_back(filter);
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
