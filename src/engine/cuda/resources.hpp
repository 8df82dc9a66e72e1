/// @file resources.hpp
/// The CUDA resources a Context owns (stream, cuBLAS/cuSOLVER handles, device properties) and the
/// accessors the CUDA ops use. Internal to the CUDA backend (src/engine/cuda/).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/cuda/device_buffer.hpp"
#include "gpbandit/engine/context.hpp"

namespace gpb {
namespace detail {

/// The stream and library handles of one Context. Members are destroyed in reverse order, so the
/// handles go before the stream they are bound to (and the workspace before both).
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
  int sm_count = 1;
  /// Free device memory (cudaMemGetInfo) once the stream and handles existed, bytes: the base of
  /// the automatic memory budget (ContextOptions::memory_budget_bytes = 0).
  std::size_t free_bytes_at_start = 0;
  std::unique_ptr<CUstream_st, StreamDeleter> stream;
  std::unique_ptr<cublasContext, CublasDeleter> cublas;
  std::unique_ptr<cusolverDnContext, CusolverDeleter> cusolver;
  /// Scratch for cuSOLVER (grown on demand; ops on one Context run one at a time on its stream).
  cuda::DeviceBuffer<double> workspace;
  cuda::DeviceBuffer<int> info;  ///< one int: cuSOLVER devInfo
  /// Device copies of precomputed kernel matrices (src/engine/cuda/matrix_cache.cpp).
  struct MatrixCache {
    /// One host matrix (weakly held: a dead host matrix evicts its copy) and its device copy.
    struct Entry {
      std::weak_ptr<const void> host;
      std::shared_ptr<const cuda::DeviceBuffer<double>> device;
      std::uint64_t last_use = 0;
    };
    std::mutex mutex;
    std::vector<Entry> entries;
    std::uint64_t clock = 0;
    std::size_t uploads = 0;  ///< host → device uploads so far
  } matrix_cache;
};

}  // namespace detail

namespace cuda {

/// The resources of a CUDA context. @throws Error if `ctx` is not on the CUDA backend.
detail::CudaResources& resources(const Context& ctx);
/// The Context's stream (never the default stream).
inline cudaStream_t stream_of(const Context& ctx) {
  return resources(ctx).stream.get();
}
/// Makes the Context's device current on the calling thread. @throws CudaError.
void set_device(const Context& ctx);
/// Workspace of at least n doubles (contents undefined). @throws CudaError.
double* workspace(const Context& ctx, std::size_t n);
/// Checks the last launch: cudaGetLastError() → CudaError naming `what`.
void check_launch(const char* what);

}  // namespace cuda
}  // namespace gpb
