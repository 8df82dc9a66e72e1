// GPU micro benchmarks of the GP-UCB round (FinitePosterior::ucb_argmax + observe on a CUDA
// Context), against the device-to-device copy bandwidth measured in the same run. Compiles in
// every CUDA build; without a device it prints a line and exits 0. NOT YET RUN ON A GPU.
//
//   ./build/bench/bench_cuda_posterior [--benchmark_filter=...]
//
// Benchmarks:
//   BM_CudaGpUcbRound/N/t        one run, N ∈ {10^4 … 10^7} candidates, t rows in V (d = 2, SE)
//   BM_CudaBatchedRuns/N/t/R     R runs in one posterior (one launch per op serves every run)
//   BM_CudaSequentialRuns/N/t/R  the same R runs as R single-run posteriors, one after another
// Counters: GB/s = bytes of V read per round / time; floor_ratio = time / (bytes / copy_GB/s),
// where copy_GB/s = (read + write bytes) / time of a 1 GiB cudaMemcpyDeviceToDevice.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "gpbandit/context.hpp"
#include "gpbandit/domain.hpp"
#include "gpbandit/kernel.hpp"
#include "gpbandit/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace {

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

gpb::Context& cuda_context() {
  static gpb::Context ctx(gpb::ContextOptions{gpb::Backend::Cuda});
  return ctx;
}

gpb::Domain random_domain(int n, int d) {
  gpb::Rng rng(1, 0, 99);
  Eigen::MatrixXd rows(n, d);
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.data()[i] = rng.uniform();
  return gpb::Domain::from_rows(rows);
}

// A posterior over `domain` for `runs` runs with t observed rows (random candidates and rewards).
std::unique_ptr<gpb::FinitePosterior> make_posterior(const gpb::Domain& domain, int runs, int t) {
  gpb::PosteriorOptions opt;
  opt.noise_variance = 1e-2;
  opt.capacity = t + kRounds + 1;
  opt.mode = gpb::PosteriorMode::Incremental;
  auto post = std::make_unique<gpb::FinitePosterior>(cuda_context(), gpb::Kernel::se(0.2), domain,
                                                     runs, opt);
  gpb::Rng rng(2, 0, 98);
  std::vector<int> a(runs);
  std::vector<double> y(runs);
  for (int s = 0; s < t; ++s) {
    for (int r = 0; r < runs; ++r) {
      a[r] = static_cast<int>(rng.below(static_cast<std::uint64_t>(domain.size())));
      y[r] = rng.uniform(-1.0, 1.0);
    }
    post->observe(a.data(), y.data());
  }
  return post;
}

// One GP-UCB round on every posterior in `posts` (argmax, then observe the choice).
void round_of(std::vector<std::unique_ptr<gpb::FinitePosterior>>& posts) {
  for (auto& p : posts) {
    const std::vector<double> width(static_cast<std::size_t>(p->runs()), 2.0);
    const auto pick = p->ucb_argmax(width.data(), nullptr, nullptr);
    std::vector<int> a;
    std::vector<double> y;
    for (const auto& c : pick) {
      a.push_back(c.index);
      y.push_back(0.5);
    }
    p->observe(a.data(), y.data());
  }
  cudaDeviceSynchronize();  // the append kernel is asynchronous
}

void report(benchmark::State& state, double seconds, double bytes) {
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * bytes / 1e9,
                                              benchmark::Counter::kIsRate);
  const double floor_s = bytes / (g_copy_gbps * 1e9);
  state.counters["floor_ms"] = floor_s * 1e3;
  state.counters["floor_ratio"] = seconds / static_cast<double>(state.iterations()) / floor_s;
  state.counters["copy_GB/s"] = g_copy_gbps;
}

void run_rounds(benchmark::State& state, std::vector<std::unique_ptr<gpb::FinitePosterior>>& posts,
                double bytes_per_round) {
  round_of(posts);  // warm-up (first launches, workspace)
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    round_of(posts);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  report(state, seconds, bytes_per_round);
}

void BM_CudaGpUcbRound(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), t = static_cast<int>(state.range(1));
  const gpb::Domain domain = random_domain(n, 2);
  std::vector<std::unique_ptr<gpb::FinitePosterior>> posts;
  posts.push_back(make_posterior(domain, 1, t));
  run_rounds(state, posts, static_cast<double>(n) * (t + kRounds / 2.0) * 8.0);
}
BENCHMARK(BM_CudaGpUcbRound)
    ->Args({10000, 100})
    ->Args({100000, 100})
    ->Args({1000000, 100})
    ->Args({10000000, 100})
    ->Iterations(kRounds - 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_CudaBatchedRuns(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), t = static_cast<int>(state.range(1));
  const int runs = static_cast<int>(state.range(2));
  const gpb::Domain domain = random_domain(n, 2);
  std::vector<std::unique_ptr<gpb::FinitePosterior>> posts;
  posts.push_back(make_posterior(domain, runs, t));
  run_rounds(state, posts, static_cast<double>(runs) * n * (t + kRounds / 2.0) * 8.0);
}
BENCHMARK(BM_CudaBatchedRuns)
    ->Args({100000, 100, 64})
    ->Iterations(kRounds - 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_CudaSequentialRuns(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), t = static_cast<int>(state.range(1));
  const int runs = static_cast<int>(state.range(2));
  const gpb::Domain domain = random_domain(n, 2);
  std::vector<std::unique_ptr<gpb::FinitePosterior>> posts;
  for (int r = 0; r < runs; ++r) posts.push_back(make_posterior(domain, 1, t));
  run_rounds(state, posts, static_cast<double>(runs) * n * (t + kRounds / 2.0) * 8.0);
}
BENCHMARK(BM_CudaSequentialRuns)
    ->Args({100000, 100, 64})
    ->Iterations(kRounds - 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (gpb::Context::cuda_device_count() == 0) {
    std::printf("bench_cuda_posterior: no CUDA device, nothing to run\n");
    return 0;
  }
  g_copy_gbps = measure_copy_bandwidth();
  std::printf("device: %s\nmeasured device-to-device copy: %.1f GB/s (read + write)\n",
              cuda_context().describe().c_str(), g_copy_gbps);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
