// CUDA build: the CUDA side of the Context seam (src/engine/detail/context_backend.hpp) and the
// resource accessors of src/engine/cuda/resources.hpp. Plain C++ compiled by the host compiler
// against cudart, cuBLAS and cuSOLVER.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <sstream>
#include <string>

#include "engine/cuda/cuda_check.hpp"
#include "engine/cuda/resources.hpp"
#include "engine/detail/context_backend.hpp"
#include "gpbandit/error.hpp"

namespace gpb {
namespace detail {

void CudaResourcesDeleter::operator()(CudaResources* r) const {
  delete r;
}

namespace {

/// "X.Y" for a CUDA version number (1000·major + 10·minor).
std::string cuda_version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

/// Why cudaGetDeviceCount found nothing, in the user's terms. The runtime reports a missing driver
/// as cudaErrorInsufficientDriver ("driver version is insufficient"), which misleads on a machine
/// with no NVIDIA driver at all: cudaDriverGetVersion tells the two apart (0 = no driver).
std::string no_device_reason(cudaError_t st) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  if (st == cudaSuccess || st == cudaErrorNoDevice) {
    return "the NVIDIA driver (CUDA " + cuda_version_string(driver) +
           ") sees no GPU (check CUDA_VISIBLE_DEVICES)";
  }
  if (driver == 0) {
    return "no NVIDIA driver is installed on this machine (libcuda.so.1 not found)";
  }
  if (st == cudaErrorInsufficientDriver) {
    return "the NVIDIA driver supports CUDA up to " + cuda_version_string(driver) +
           " but this build uses the CUDA " + cuda_version_string(runtime) +
           " runtime: update the driver";
  }
  return std::string(cudaGetErrorName(st)) + " (" + cudaGetErrorString(st) + ")";
}

}  // namespace

CudaResourcesPtr make_cuda_resources(const ContextOptions& options) {
  int count = 0;
  const cudaError_t st = cudaGetDeviceCount(&count);
  if (st != cudaSuccess || count == 0) {
    const std::string why = no_device_reason(st);
    cudaGetLastError();  // clear the sticky error state of the runtime
    throw CudaError("backend cuda requested but no CUDA device is available: " + why +
                    "; use backend cpu (or auto, which falls back to the CPU)");
  }
  if (options.device >= count) {
    std::ostringstream os;
    os << "context.device = " << options.device << " but only " << count << " CUDA device(s) exist";
    throw CudaError(os.str());
  }
  // One GPU per rank on each node: a sharded communicator offsets the device by the rank's place
  // among the ranks of its node (MPI_COMM_TYPE_SHARED).
  const Communicator& comm = options.communicator;
  const int device = comm.sharded() ? (options.device + comm.node_rank()) % count : options.device;
  CudaResourcesPtr res(new CudaResources());
  res->device = device;
  GPB_CUDA_TRY(cudaSetDevice(device));
  cudaDeviceProp prop{};
  GPB_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  res->name = prop.name;
  res->sm_count = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
  cudaStream_t stream = nullptr;
  GPB_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  res->stream.reset(stream);
  cublasHandle_t blas = nullptr;
  GPB_CUBLAS_TRY(cublasCreate(&blas));
  res->cublas.reset(blas);
  GPB_CUBLAS_TRY(cublasSetStream(blas, stream));
  // Deterministic results: no atomics-based reductions inside cuBLAS.
  GPB_CUBLAS_TRY(cublasSetAtomicsMode(blas, CUBLAS_ATOMICS_NOT_ALLOWED));
  cusolverDnHandle_t solver = nullptr;
  GPB_CUSOLVER_TRY(cusolverDnCreate(&solver));
  res->cusolver.reset(solver);
  GPB_CUSOLVER_TRY(cusolverDnSetStream(solver, stream));
  res->info.allocate(1);
  std::size_t free_bytes = 0, total_bytes = 0;
  GPB_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  res->free_bytes_at_start = free_bytes;
  return res;
}

std::size_t cuda_free_bytes(const CudaResources& r) {
  return r.free_bytes_at_start;
}

std::string describe_cuda_resources(const CudaResources& r) {
  std::ostringstream os;
  os << r.name << " (device " << r.device << ")";
  return os.str();
}

}  // namespace detail

namespace cuda {

detail::CudaResources& resources(const Context& ctx) {
  if (ctx.backend() != Backend::Cuda || ctx.cuda() == nullptr) {
    throw Error("internal: a CUDA op was called with a context on the CPU backend");
  }
  return *ctx.cuda();
}

void set_device(const Context& ctx) {
  GPB_CUDA_TRY(cudaSetDevice(resources(ctx).device));
}

double* workspace(const Context& ctx, std::size_t n) {
  detail::CudaResources& r = resources(ctx);
  if (r.workspace.size() < n) {
    // The old workspace may still be read by queued work: drain the stream before freeing it.
    GPB_CUDA_TRY(cudaStreamSynchronize(r.stream.get()));
    r.workspace.allocate(n);
  }
  return r.workspace.data();
}

void check_launch(const char* what) {
  const cudaError_t st = cudaGetLastError();
  if (st != cudaSuccess) {
    throw_cuda_failure(what, __FILE__, __LINE__,
                       std::string(cudaGetErrorName(st)) + " (" + cudaGetErrorString(st) + ")");
  }
}

}  // namespace cuda

bool Context::cuda_compiled() {
  return true;
}

int Context::cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace gpb
