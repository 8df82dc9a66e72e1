// Context: backend resolution, threads, description. Backend-specific parts live behind
// src/engine/detail/context_backend.hpp (src/engine/cuda/context_cuda.cpp or
// src/engine/cuda_stub/no_cuda.cpp).
#include "gpbandit/engine/context.hpp"

#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "engine/detail/context_backend.hpp"
#include "engine/detail/core_claims.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

Backend parse_backend(const std::string& name) {
  if (name == "cpu") return Backend::Cpu;
  if (name == "cuda") return Backend::Cuda;
  if (name == "auto") return Backend::Auto;
  throw InvalidArgument("unknown backend '" + name + "'; expected one of: cpu, cuda, auto");
}

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::Cpu:
      return "cpu";
    case Backend::Cuda:
      return "cuda";
    case Backend::Auto:
      return "auto";
  }
  return "unknown";
}

int idle_cores() {
  const int cores = std::max(1, omp_get_num_procs());
  double load[1] = {0.0};
  if (::getloadavg(load, 1) != 1 || !(load[0] >= 0)) return cores;
  const int busy = static_cast<int>(std::lround(std::min(load[0], 1e6)));
  return std::max(1, cores - busy);
}

int threads_for_work(int threads, double min_work, double work) {
  const int most = std::max(threads, 1);
  if (!(min_work > 0)) return most;
  const double n = std::floor(work / min_work);
  return n >= most ? most : std::max(1, static_cast<int>(n));
}

namespace {
Backend resolve_backend(Backend requested) {
  if (requested != Backend::Auto) return requested;
  // GPBANDIT_BACKEND settles what Auto means for the process (cpu, cuda or auto); an explicit
  // backend is never overridden.
  if (const char* env = std::getenv("GPBANDIT_BACKEND"); env != nullptr && *env != '\0') {
    Backend b = Backend::Auto;
    try {
      b = parse_backend(env);
    } catch (const InvalidArgument&) {
      throw InvalidArgument(std::string("environment variable GPBANDIT_BACKEND='") + env +
                            "': expected cpu, cuda or auto");
    }
    if (b != Backend::Auto) return b;
  }
  // Auto picks CUDA when the build has it and a device is present (kAutoSelectsCuda in
  // engine/detail/context_backend.hpp records when the parity tests passed on a device).
  if (detail::kAutoSelectsCuda && Context::cuda_compiled() && Context::cuda_device_count() > 0) {
    return Backend::Cuda;
  }
  return Backend::Cpu;
}
}  // namespace

Context::Context(const ContextOptions& options) : options_(options) {
  GPB_EXPECTS(options.threads >= 0, "context.threads must be >= 0, got " << options.threads);
  GPB_EXPECTS(options.device >= 0, "context.device must be >= 0, got " << options.device);
  GPB_EXPECTS(options.min_parallel_work >= 0,
              "context.min_parallel_work must be >= 0, got " << options.min_parallel_work);
  backend_ = resolve_backend(options.backend);
  if (backend_ == Backend::Cuda) cuda_ = detail::make_cuda_resources(options_);
  options_.backend = backend_;
  budget_ = options.memory_budget_bytes != 0
                ? options.memory_budget_bytes
                : automatic_memory_budget(backend_, backend_ == Backend::Cuda
                                                        ? detail::cuda_free_bytes(*cuda_)
                                                        : available_host_memory());
  // Last, so that nothing after the claim can throw (the destructor releases it).
  const bool automatic = options.threads == 0 && std::getenv("OMP_NUM_THREADS") == nullptr;
  const int requested = options.threads > 0 ? options.threads
                        : automatic         ? 0
                                            : std::max(1, omp_get_max_threads());
  threads_ = detail::claim_threads(this, requested, automatic ? idle_cores() : 1,
                                   std::max(1, omp_get_num_procs()));
  // Eigen's GEMM parallelises on its own (OpenMP, omp_get_max_threads() unless told): without
  // this, a "threads": 1 run still multiplies matrices on every core.
  Eigen::setNbThreads(threads_);
}

std::size_t Context::automatic_memory_budget(Backend backend, std::size_t free_bytes) {
  GPB_EXPECTS(backend != Backend::Auto,
              "automatic_memory_budget: resolve Backend::Auto to cpu or cuda first");
  if (backend == Backend::Cpu && free_bytes == 0) return kCpuDefaultBudgetBytes;
  const double fraction = backend == Backend::Cpu ? kCpuBudgetFraction : kCudaBudgetFraction;
  const double b = std::floor(fraction * static_cast<double>(free_bytes));
  return std::max<std::size_t>(1, static_cast<std::size_t>(b));
}

void Context::refresh_threads() {
  const int t = detail::refresh_claim(this, std::max(1, omp_get_num_procs()));
  if (t > 0 && t != threads_) {
    threads_ = t;
    Eigen::setNbThreads(t);
  }
}

Context::~Context() {
  detail::release_threads(this);
}

Context::Context(Context&& other) noexcept
    : options_(std::move(other.options_)),
      backend_(other.backend_),
      threads_(other.threads_),
      budget_(other.budget_),
      cuda_(std::move(other.cuda_)) {
  detail::move_claim(&other, this);
}

Context& Context::operator=(Context&& other) noexcept {
  if (this == &other) return *this;
  detail::release_threads(this);
  options_ = std::move(other.options_);
  backend_ = other.backend_;
  threads_ = other.threads_;
  budget_ = other.budget_;
  cuda_ = std::move(other.cuda_);
  detail::move_claim(&other, this);
  return *this;
}

std::string Context::describe() const {
  if (backend_ == Backend::Cuda && cuda_) return "cuda: " + detail::describe_cuda_resources(*cuda_);
  std::ostringstream os;
  os << "cpu (" << threads_ << (threads_ == 1 ? " thread)" : " threads)");
  return os.str();
}

}  // namespace gpb
