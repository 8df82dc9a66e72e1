// GPU benchmarks of the GP-UCB round (FinitePosterior::ucb_argmax + observe on a CUDA Context),
// against the device-memory floor measured in the same process. Compiles in every CUDA build;
// without a device it prints a line and exits 0. Run by bench/run_gpu_checks.sh (the GPU kit),
// which writes the JSON that bench/gpu_results_table.py turns into the bench/RESULTS.md table.
//
//   ./build/bench/bench_cuda_posterior [--benchmark_filter=...] [--benchmark_out=F.json
//                                       --benchmark_out_format=json]
//
// Benchmarks (d = 2, SE kernel, one row per run per round):
//   BM_CudaRound/N/t/mixed        one run, V holding t ∈ {100, 1000} rows, N ∈ {10⁵, 10⁶, 10⁷},
//                                 V in double (mixed = 0) or float (mixed = 1, Precision::Mixed)
//   BM_CudaBatchedRuns/N/t/R      R = 64 runs in one posterior (one launch per op serves all)
//   BM_CudaSequentialRuns/N/t/R   the same 64 runs as 64 single-run posteriors, one after another
// Times are per round (manual timing: wall clock around one round, synchronised), median and
// mean over kRounds rounds after one warm-up round. Counters:
//   t_rows      mean rows in V during the timed rounds
//   floor_ms    bench::round_bytes() of all runs / copy_GBps: the HBM floor of one round
//   floor_ratio median round time / floor_ms (1.0 = the floor)
//   copy_GBps   (read + write bytes) / time of a 1 GiB cudaMemcpyDeviceToDevice, median of 9
//   median_ms, mean_ms, min_ms
// A cell whose V does not fit in device memory is reported as an error ("does not fit"), not
// timed in recompute mode.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "cuda_bench_support.hpp"
#include "gpbandit/engine/context.hpp"

namespace {

using gpb::FinitePosterior;

double g_copy_gbps = 0.0;
constexpr int kRounds = 20;

// (read + write) bytes per second of a 1 GiB device-to-device copy: median of 9 after a warm-up.
double measure_copy_bandwidth() {
  const std::size_t bytes = std::size_t{1} << 30;
  void *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 0.0;
  cudaMemset(a, 1, bytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int rep = 0; rep < 10; ++rep) {
    cudaEventRecord(start);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (rep > 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(a);
  cudaFree(b);
  return 2.0 * static_cast<double>(bytes) / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

gpb::ContextOptions cuda_options(gpb::Precision precision) {
  gpb::ContextOptions o;  // automatic memory budget: 3/4 of the free device memory
  o.backend = gpb::Backend::Cuda;
  o.precision = precision;
  return o;
}

gpb::Context& context(bool mixed) {
  static gpb::Context dbl(cuda_options(gpb::Precision::Double));
  static gpb::Context mix(cuda_options(gpb::Precision::Mixed));
  return mixed ? mix : dbl;
}

using Posts = std::vector<std::unique_ptr<FinitePosterior>>;

/// Fills `posts` with `count` posteriors of `runs` runs and t rows; false (state skipped with a
/// message) when V does not fit in device memory.
bool build(benchmark::State& state, Posts& posts, const gpb::Domain& domain, int count, int runs,
           int t, bool mixed) {
  for (int i = 0; i < count; ++i) {
    posts.push_back(gpb::bench::filled_posterior(context(mixed), domain, runs, t, t + kRounds + 2));
    if (posts.back()->recompute_mode()) {
      const double gb =
          (mixed ? 4.0 : 8.0) * domain.size() * (t + kRounds + 2.0) * runs * count / 1e9;
      state.SkipWithError(("does not fit: V needs " + std::to_string(gb) + " GB").c_str());
      return false;
    }
  }
  return true;
}

/// Times kRounds rounds (after one warm-up) of every posterior in `posts` and sets the counters.
void time_rounds(benchmark::State& state, Posts& posts, int t, int runs_total, bool mixed) {
  for (auto& p : posts) gpb::bench::gp_ucb_round(*p);  // warm-up: first launches, workspace
  std::vector<double> ms;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (auto& p : posts) gpb::bench::gp_ucb_round(*p);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(s);
    ms.push_back(s * 1e3);
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const double t_mean = t + 1.0 + (kRounds - 1) / 2.0;  // rows during the timed rounds
  const int n = posts.front()->size();
  const double bytes = runs_total * gpb::bench::round_bytes(n, t_mean, mixed ? 4.0 : 8.0, 2);
  const double floor_ms = bytes / (g_copy_gbps * 1e9) * 1e3;
  state.counters["t_rows"] = t_mean;
  state.counters["median_ms"] = median;
  state.counters["mean_ms"] = std::accumulate(ms.begin(), ms.end(), 0.0) / ms.size();
  state.counters["min_ms"] = sorted.front();
  state.counters["floor_ms"] = floor_ms;
  state.counters["floor_ratio"] = median / floor_ms;
  state.counters["copy_GBps"] = g_copy_gbps;
}

void BM_CudaRound(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), t = static_cast<int>(state.range(1));
  const bool mixed = state.range(2) != 0;
  const gpb::Domain domain = gpb::bench::random_domain(n, 2);
  Posts posts;
  if (!build(state, posts, domain, 1, 1, t, mixed)) return;
  time_rounds(state, posts, t, 1, mixed);
}
BENCHMARK(BM_CudaRound)
    ->ArgsProduct({{100000, 1000000, 10000000}, {100, 1000}, {0, 1}})
    ->Iterations(kRounds)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

void BM_CudaBatchedRuns(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), t = static_cast<int>(state.range(1));
  const int runs = static_cast<int>(state.range(2));
  const gpb::Domain domain = gpb::bench::random_domain(n, 2);
  Posts posts;
  if (!build(state, posts, domain, 1, runs, t, false)) return;
  time_rounds(state, posts, t, runs, false);
}
BENCHMARK(BM_CudaBatchedRuns)
    ->ArgsProduct({{10000, 100000}, {100}, {64}})
    ->Iterations(kRounds)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

void BM_CudaSequentialRuns(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), t = static_cast<int>(state.range(1));
  const int runs = static_cast<int>(state.range(2));
  const gpb::Domain domain = gpb::bench::random_domain(n, 2);
  Posts posts;
  if (!build(state, posts, domain, runs, 1, t, false)) return;
  time_rounds(state, posts, t, runs, false);
}
BENCHMARK(BM_CudaSequentialRuns)
    ->ArgsProduct({{10000, 100000}, {100}, {64}})
    ->Iterations(kRounds)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

}  // namespace

int main(int argc, char** argv) {
  if (gpb::Context::cuda_device_count() == 0) {
    std::printf("bench_cuda_posterior: no CUDA device, nothing to run\n");
    return 0;
  }
  g_copy_gbps = measure_copy_bandwidth();
  const std::string device = context(false).describe();
  std::printf("device: %s\nmeasured device-to-device copy: %.1f GB/s (read + write)\n",
              device.c_str(), g_copy_gbps);
  benchmark::AddCustomContext("device", device);
  benchmark::AddCustomContext("copy_GBps", std::to_string(g_copy_gbps));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
