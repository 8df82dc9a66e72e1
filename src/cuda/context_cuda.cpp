// CUDA build: the CUDA side of the Context seam (src/detail/context_backend.hpp). Plain C++
// compiled by the host compiler against cudart, cuBLAS and cuSOLVER.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <sstream>
#include <string>

#include "cuda/cuda_check.hpp"
#include "detail/context_backend.hpp"
#include "gpbandit/error.hpp"

namespace gpb {
namespace detail {

/// The stream and library handles of one Context. Members are destroyed in reverse order, so the
/// handles go before the stream they are bound to.
struct CudaResources {
  struct StreamDeleter {
    void operator()(cudaStream_t s) const { cudaStreamDestroy(s); }
  };
  struct CublasDeleter {
    void operator()(cublasHandle_t h) const { cublasDestroy(h); }
  };
  struct CusolverDeleter {
    void operator()(cusolverDnHandle_t h) const { cusolverDnDestroy(h); }
  };

  int device = 0;
  std::string name;
  std::unique_ptr<CUstream_st, StreamDeleter> stream;
  std::unique_ptr<cublasContext, CublasDeleter> cublas;
  std::unique_ptr<cusolverDnContext, CusolverDeleter> cusolver;
};

void CudaResourcesDeleter::operator()(CudaResources* r) const {
  delete r;
}

CudaResourcesPtr make_cuda_resources(const ContextOptions& options) {
  int count = 0;
  const cudaError_t st = cudaGetDeviceCount(&count);
  if (st != cudaSuccess || count == 0) {
    const std::string why = st != cudaSuccess ? cudaGetErrorString(st) : "no device found";
    cudaGetLastError();  // clear the sticky error state of the runtime
    throw CudaError("Backend::Cuda requested but no CUDA device is available: " + why);
  }
  if (options.device >= count) {
    std::ostringstream os;
    os << "context.device = " << options.device << " but only " << count << " CUDA device(s) exist";
    throw CudaError(os.str());
  }
  CudaResourcesPtr res(new CudaResources());
  res->device = options.device;
  GPB_CUDA_TRY(cudaSetDevice(options.device));
  cudaDeviceProp prop{};
  GPB_CUDA_TRY(cudaGetDeviceProperties(&prop, options.device));
  res->name = prop.name;
  cudaStream_t stream = nullptr;
  GPB_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  res->stream.reset(stream);
  cublasHandle_t blas = nullptr;
  GPB_CUBLAS_TRY(cublasCreate(&blas));
  res->cublas.reset(blas);
  GPB_CUBLAS_TRY(cublasSetStream(blas, stream));
  cusolverDnHandle_t solver = nullptr;
  GPB_CUSOLVER_TRY(cusolverDnCreate(&solver));
  res->cusolver.reset(solver);
  GPB_CUSOLVER_TRY(cusolverDnSetStream(solver, stream));
  return res;
}

std::string describe_cuda_resources(const CudaResources& r) {
  std::ostringstream os;
  os << r.name << " (device " << r.device << ")";
  return os.str();
}

}  // namespace detail

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
