/// @file context.hpp
/// The Context: which backend the engine ops run on, its memory budget and threads.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "gpbandit/comm/communicator.hpp"

namespace gpb {

/// Where engine ops run. Auto = CUDA when compiled in and a device is present, else CPU; the
/// environment variable GPBANDIT_BACKEND (cpu, cuda or auto) settles Auto for a whole process.
/// Cuda = the CUDA ops, explicitly (throws without a build or a device).
enum class Backend { Cpu, Cuda, Auto };

/// Storage precision of the posterior's V buffer (the Cholesky factor, μ and σ² are always double).
enum class Precision { Double, Mixed };

/// Default of ContextOptions::min_parallel_work: estimated scalar operations (multiply-adds) a
/// parallel loop must give each thread before a second thread is started. Measured on the
/// project's 2-core machine (bench/bench_parallel.cpp; bench/RESULTS.md, "Parallel threshold").
inline constexpr double kDefaultMinParallelWork = 1 << 18;

/// Threads worth starting for about `work` scalar operations: at most `threads`, one more per
/// `min_work` operations, at least 1 (`min_work` ≤ 0: always `threads`).
int threads_for_work(int threads, double min_work, double work);

/// Cores not busy now: the cores OpenMP may use minus the 1-minute load average (rounded), at
/// least 1; all of them when the load average cannot be read. (A Context with threads = 0 also
/// leaves the cores other gpbandit processes have claimed: ContextOptions::threads.)
int idle_cores();

/// Parses "cpu" | "cuda" | "auto". @throws InvalidArgument naming the bad value.
Backend parse_backend(const std::string& name);
/// "cpu", "cuda" or "auto".
const char* backend_name(Backend b);

/// Construction options of a Context.
struct ContextOptions {
  /// Requested backend.
  Backend backend = Backend::Auto;
  /// Bytes the engine may use for the posterior's V buffers (all runs together). When
  /// R·N·T·8 exceeds it, FinitePosterior switches to recompute-and-stream mode (with a warning,
  /// gpbandit/io/log.hpp). 0 (the default) = automatic: Context::automatic_memory_budget() of
  /// the resolved backend, i.e. kCpuBudgetFraction of the host memory available when the
  /// Context is built (available_host_memory()) on the CPU, and kCudaBudgetFraction of the
  /// device's free memory (cudaMemGetInfo) on CUDA. Any other value is used as given.
  std::size_t memory_budget_bytes = 0;
  /// CPU threads for engine ops: the OpenMP loops of the CPU backend and Eigen's own parallel
  /// products (Eigen::setNbThreads, which is process-wide: the Context constructed last sets it).
  /// 0 = OMP_NUM_THREADS when set, else the cores idle when the Context is made (idle_cores()):
  /// on a busy machine a second thread costs more than it gives (bench/RESULTS.md, "Threads").
  /// Every Context records its count in a per-user claims directory (/tmp/gpbandit-cores-UID,
  /// or GPBANDIT_CORE_CLAIMS_DIR; "" = off) until it is destroyed, and with 0 it takes no more
  /// than the cores the other live processes' claims leave (at least 1; refresh_threads()).
  int threads = 0;
  /// Estimated scalar operations a parallel loop must give each thread before a second thread is
  /// started; smaller loops run on the calling thread alone (waking a team costs more than it
  /// saves, above all on a loaded machine). 0 = every loop uses every thread (benchmarks).
  double min_parallel_work = kDefaultMinParallelWork;
  /// Storage of the posterior's V in incremental mode, on the CPU and on CUDA (Mixed: float
  /// values, sums accumulated in double except the CPU block update's GEMM/TRSM, which run in
  /// float; halves V's bytes and memory; μ and σ² agree with Double to about 1e-5 relative, not
  /// bit for bit). Recompute mode is always double.
  Precision precision = Precision::Double;
  /// CUDA device ordinal (ignored on CPU). With a sharded communicator each rank uses device
  /// (device + node-local rank) mod the number of devices: one GPU per rank on each node.
  int device = 0;
  /// The ranks a FinitePosterior built on this Context shards its domain over (default: one
  /// rank, nothing sharded). memory_budget_bytes is then a per-rank budget.
  Communicator communicator{};
};

/// The automatic memory budget on the CPU backend when the available host memory cannot be read
/// (no /proc/meminfo), bytes (4 GiB).
constexpr std::size_t kCpuDefaultBudgetBytes = std::size_t{4} << 30;
/// The automatic memory budget on the CPU backend as a fraction of the host memory available
/// when the Context is built (the rest stays for μ, σ², the points, other buffers and other
/// processes), as kCudaBudgetFraction is of a device's free memory.
constexpr double kCpuBudgetFraction = 0.75;

/// Host memory available to this process now, bytes: MemAvailable (/proc/meminfo), capped by
/// the memory cgroup's limit minus its usage (cgroup v2 memory.max, or v1 limit_in_bytes); 0 when
/// it cannot be read. Thread-safe.
std::size_t available_host_memory();
/// The automatic memory budget on the CUDA backend as a fraction of the device memory that is free
/// when the Context is built: the rest stays for μ, σ², the points, the argmax and recompute
/// scratch, cuBLAS/cuSOLVER workspaces and other processes' growth.
constexpr double kCudaBudgetFraction = 0.75;

namespace detail {
struct CudaResources;  // stream, cuBLAS/cuSOLVER handles, workspace (CUDA builds only)
/// Frees CudaResources; defined by the backend translation unit (CUDA or CPU-only stub).
struct CudaResourcesDeleter {
  void operator()(CudaResources* r) const;
};
}  // namespace detail

/// Owns the backend resources every engine op runs on. Cheap to pass by const reference;
/// not copyable (it owns the CUDA stream and handles in CUDA builds).
///
/// Thread safety: const methods (and the engine ops, which take a const Context&) may run on
/// several threads at once; refresh_threads(), moving and assignment need exclusive access.
/// Building a Context sets Eigen's process-wide thread count (Eigen::setNbThreads).
class Context {
 public:
  /// Resolves Auto and acquires resources.
  /// @throws NoCudaBuildError when Backend::Cuda is requested from a CPU-only build.
  /// @throws CudaError when Backend::Cuda is requested and no device can be used.
  explicit Context(const ContextOptions& options = {});
  /// Releases the CUDA stream, handles and workspace (CUDA backend).
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  /// Moves the resources; the moved-from object may only be destroyed or assigned.
  Context(Context&&) noexcept;
  /// Move assignment (see the move constructor).
  Context& operator=(Context&&) noexcept;

  /// The resolved backend: Cpu or Cuda, never Auto.
  Backend backend() const { return backend_; }
  /// The options the context was built with (backend as requested, possibly Auto).
  const ContextOptions& options() const { return options_; }
  /// Memory budget of the posterior buffers, bytes: ContextOptions::memory_budget_bytes, or the
  /// automatic budget when that is 0 (never 0).
  std::size_t memory_budget_bytes() const { return budget_; }
  /// Threads engine ops use on the CPU (resolved, ≥ 1).
  int threads() const { return threads_; }
  /// The ranks the finite domain is sharded over (ContextOptions::communicator).
  const Communicator& communicator() const { return options_.communicator; }
  /// Threads a CPU loop of about `work` scalar operations should use (threads_for_work with
  /// threads() and options().min_parallel_work).
  int threads_for(double work) const {
    return threads_for_work(threads_, options_.min_parallel_work, work);
  }
  /// With threads = 0 (and no OMP_NUM_THREADS): takes the cores the other processes' claims leave
  /// now, at most as many as it resolved to when made, and sets Eigen's count to it; else nothing.
  /// `gpbandit run` calls it before each unit of work, so a run started alone gives cores back to
  /// runs started after it, and takes them again when they end. Results do not depend on it.
  void refresh_threads();
  /// A short description, e.g. "cpu (2 threads)" or "cuda: NVIDIA H100 (device 0)".
  std::string describe() const;

  /// Whether this build has the CUDA backend compiled in.
  static bool cuda_compiled();
  /// Number of usable CUDA devices (0 in a CPU-only build or without a driver).
  static int cuda_device_count();
  /// The budget that ContextOptions::memory_budget_bytes = 0 resolves to, from the free memory of
  /// the resolved backend (`free_bytes`: available_host_memory() on Backend::Cpu, the device's
  /// free memory on Backend::Cuda): ⌊kCpuBudgetFraction · free_bytes⌋ on the CPU
  /// (kCpuDefaultBudgetBytes when free_bytes is 0, i.e. unknown), ⌊kCudaBudgetFraction ·
  /// free_bytes⌋ on CUDA; at least 1 byte, so a full memory still gets a valid budget, under
  /// which the posterior streams.
  /// @throws InvalidArgument for Backend::Auto (resolve the backend first).
  static std::size_t automatic_memory_budget(Backend backend, std::size_t free_bytes);

  /// CUDA resources (nullptr on the CPU backend). For the CUDA backend's own use.
  detail::CudaResources* cuda() const { return cuda_.get(); }

 private:
  ContextOptions options_;
  Backend backend_ = Backend::Cpu;
  int threads_ = 1;
  std::size_t budget_ = kCpuDefaultBudgetBytes;
  std::unique_ptr<detail::CudaResources, detail::CudaResourcesDeleter> cuda_;
};

}  // namespace gpb
