// One incremental GP-UCB round on a CUDA posterior, bracketed by cudaProfilerStart/Stop, for
// Nsight Compute (bench/run_gpu_sanitizers.sh):
//
//   ncu --profile-from-start off --set full -o round ./build/bench/cuda_one_round --n 1000000 --t
//   100
//
// Fills V with t rows (not profiled), runs one warm-up round, then profiles exactly one round
// (the UCB argmax kernels, the factor-row gather and the append kernel). Options: --n N (10⁶),
// --t T (100), --runs R (1), --mixed (V in float). Exit code 2 on bad arguments, 1 without a
// device or when V does not fit.
#include <cuda_profiler_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cuda_bench_support.hpp"

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "cuda_one_round: %s\nusage: cuda_one_round [--n N] [--t T] [--runs R] [--mixed]\n",
               why);
  return 2;
}

bool int_arg(const char* s, long lo, long hi, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 1000000, t = 100, runs = 1;
  bool mixed = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mixed") {
      mixed = true;
    } else if ((a == "--n" || a == "--t" || a == "--runs") && i + 1 < argc) {
      int* dst = a == "--n" ? &n : a == "--t" ? &t : &runs;
      const long hi = a == "--n" ? 2000000000L : a == "--t" ? 100000L : 65535L;
      if (!int_arg(argv[++i], 1, hi, dst)) return usage(("bad value for " + a).c_str());
    } else {
      return usage(("unknown argument " + a).c_str());
    }
  }
  if (gpb::Context::cuda_device_count() == 0) {
    std::fprintf(stderr, "cuda_one_round: no CUDA device\n");
    return 1;
  }
  gpb::ContextOptions o;
  o.backend = gpb::Backend::Cuda;
  o.precision = mixed ? gpb::Precision::Mixed : gpb::Precision::Double;
  const gpb::Context ctx(o);
  const gpb::Domain domain = gpb::bench::random_domain(n, 2);
  auto post = gpb::bench::filled_posterior(ctx, domain, runs, t, t + 3);
  if (post->recompute_mode()) {
    std::fprintf(stderr, "cuda_one_round: V does not fit in device memory\n");
    return 1;
  }
  gpb::bench::gp_ucb_round(*post);  // warm-up
  cudaProfilerStart();
  const auto start = std::chrono::steady_clock::now();
  gpb::bench::gp_ucb_round(*post);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  cudaProfilerStop();
  std::printf("cuda_one_round: %s, N = %d, t = %d, runs = %d, %s: %.3f ms (%s)\n",
              ctx.describe().c_str(), n, t + 1, runs, mixed ? "mixed" : "double", ms,
              "one round, under the profiler if one is attached");
  return 0;
}
