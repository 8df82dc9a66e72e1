/// @file matrix_cache.hpp
/// The device copy of a precomputed kernel matrix (Kernel::precomputed), uploaded once per host
/// matrix and Context and shared by every CUDA op that evaluates the kernel (kernel_matrix,
/// kernel_diag, the posterior, the Nyström features), instead of one N×N upload per call.
/// Internal to the CUDA backend.
#pragma once

#include <cstddef>
#include <memory>

#include "engine/cuda/device_buffer.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"

namespace gpb::cuda {

/// A shared, read-only device copy of an N×N matrix (column-major, N² doubles).
using DeviceMatrix = std::shared_ptr<const DeviceBuffer<double>>;

/// Entries the cache keeps per Context (least recently used evicted beyond that).
constexpr std::size_t kMatrixCacheEntries = 2;

/// The device copy of k's precomputed matrix, or nullptr when k is not precomputed. The first call
/// for a host matrix uploads it (N² doubles, on the Context's stream); later calls return the same
/// buffer while the host matrix lives (the cache holds it weakly: when every Kernel sharing it is
/// gone, its copy is dropped at the next lookup) and is among the kMatrixCacheEntries most
/// recently used. A caller keeps the returned pointer for as long as it launches work that reads
/// it, so eviction never frees memory in use. Thread-safe. @throws CudaError.
DeviceMatrix device_matrix(const Context& ctx, const Kernel& k);

/// Uploads device_matrix has made on `ctx` so far (for the tests of the cache).
std::size_t device_matrix_uploads(const Context& ctx);

}  // namespace gpb::cuda
