/// @file cuda_check.hpp
/// Status checks for CUDA runtime, cuBLAS and cuSOLVER calls: a failure throws gpb::CudaError
/// carrying the call text, file:line and the status string. Never aborts.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <sstream>
#include <string>

#include "gpbandit/error.hpp"

namespace gpb::cuda {

/// Name of a cuSOLVER status (the library has no string function of its own).
inline const char* cusolver_status_string(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS:
      return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE:
      return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default:
      return "CUSOLVER_STATUS_<unknown>";
  }
}

/// Builds the message and throws CudaError.
[[noreturn]] inline void throw_cuda_failure(const char* call, const char* file, int line,
                                            const std::string& status) {
  std::ostringstream os;
  os << call << " failed at " << file << ":" << line << ": " << status;
  throw CudaError(os.str());
}

}  // namespace gpb::cuda

/// Checks a CUDA runtime call (cudaError_t).
#define GPB_CUDA_TRY(call)                                                                     \
  do {                                                                                         \
    const cudaError_t gpb_cuda_status_ = (call);                                               \
    if (gpb_cuda_status_ != cudaSuccess) {                                                     \
      ::gpb::cuda::throw_cuda_failure(#call, __FILE__, __LINE__,                               \
                                      std::string(cudaGetErrorName(gpb_cuda_status_)) + " (" + \
                                          cudaGetErrorString(gpb_cuda_status_) + ")");         \
    }                                                                                          \
  } while (0)

/// Checks a cuBLAS call (cublasStatus_t).
#define GPB_CUBLAS_TRY(call)                                                      \
  do {                                                                            \
    const cublasStatus_t gpb_cublas_status_ = (call);                             \
    if (gpb_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                            \
      ::gpb::cuda::throw_cuda_failure(#call, __FILE__, __LINE__,                  \
                                      cublasGetStatusString(gpb_cublas_status_)); \
    }                                                                             \
  } while (0)

/// Checks a cuSOLVER call (cusolverStatus_t).
#define GPB_CUSOLVER_TRY(call)                                                                    \
  do {                                                                                            \
    const cusolverStatus_t gpb_cusolver_status_ = (call);                                         \
    if (gpb_cusolver_status_ != CUSOLVER_STATUS_SUCCESS) {                                        \
      ::gpb::cuda::throw_cuda_failure(#call, __FILE__, __LINE__,                                  \
                                      ::gpb::cuda::cusolver_status_string(gpb_cusolver_status_)); \
    }                                                                                             \
  } while (0)
