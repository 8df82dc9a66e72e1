/// @file device_buffer.hpp
/// DeviceBuffer<T>: RAII owner of one cudaMalloc allocation, plus stream-ordered copy helpers.
/// Plain C++ (cuda_runtime_api.h only), usable from .cpp and .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "engine/cuda/cuda_check.hpp"

namespace gpb::cuda {

/// Owns `size()` elements of T in device memory (uninitialised). Move-only; freed on destruction.
/// Allocation failure throws CudaError, or returns false from try_allocate() when the device is
/// out of memory (callers that can fall back, e.g. the posterior's recompute mode, use that).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates n elements. @throws CudaError (cudaErrorMemoryAllocation included).
  explicit DeviceBuffer(std::size_t n) { allocate(n); }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }

  /// Frees the old allocation, then allocates n elements (n = 0 leaves the buffer empty).
  /// @throws CudaError on any failure.
  void allocate(std::size_t n) {
    reset();
    if (n == 0) return;
    void* p = nullptr;
    GPB_CUDA_TRY(cudaMalloc(&p, n * sizeof(T)));
    ptr_ = static_cast<T*>(p);
    n_ = n;
  }
  /// Like allocate(), but returns false (buffer empty, error state cleared) when the device is out
  /// of memory. @throws CudaError on other failures.
  bool try_allocate(std::size_t n) {
    reset();
    if (n == 0) return true;
    void* p = nullptr;
    const cudaError_t st = cudaMalloc(&p, n * sizeof(T));
    if (st == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear the (non-sticky) error
      return false;
    }
    GPB_CUDA_TRY(st);
    ptr_ = static_cast<T*>(p);
    n_ = n;
    return true;
  }
  /// Grows to at least n elements, geometrically (at least doubling), so a buffer grown by a
  /// little per call reallocates O(log n) times; contents are not kept. Before freeing the old
  /// buffer it drains `stream`, whose queued work may still read it. @throws CudaError.
  void reserve_discard(std::size_t n, cudaStream_t stream) {
    if (n <= n_) return;
    if (ptr_ != nullptr) GPB_CUDA_TRY(cudaStreamSynchronize(stream));
    allocate(n_ == 0 ? n : std::max(n, 2 * n_));
  }
  void reset() noexcept {
    if (ptr_ != nullptr) cudaFree(ptr_);  // never throws; errors surface on the next checked call
    ptr_ = nullptr;
    n_ = 0;
  }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

/// Stream-ordered host → device copy of n elements.
template <class T>
void copy_to_device(T* dst, const T* src, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  GPB_CUDA_TRY(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyHostToDevice, stream));
}
/// Stream-ordered device → host copy of n elements; synchronises the stream before returning, so
/// `dst` is valid on return.
template <class T>
void copy_to_host(T* dst, const T* src, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  GPB_CUDA_TRY(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  GPB_CUDA_TRY(cudaStreamSynchronize(stream));
}
/// Allocates a device buffer holding a copy of the host vector.
template <class T>
DeviceBuffer<T> upload(const T* src, std::size_t n, cudaStream_t stream) {
  DeviceBuffer<T> buf(n);
  copy_to_device(buf.data(), src, n, stream);
  return buf;
}

}  // namespace gpb::cuda
