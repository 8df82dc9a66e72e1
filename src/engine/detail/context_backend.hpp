/// @file context_backend.hpp
/// Internal seam between context.cpp and the backend translation units
/// (src/engine/cuda/context_cuda.cpp in CUDA builds, src/engine/cuda_stub/no_cuda.cpp in CPU-only
/// builds).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "gpbandit/engine/context.hpp"

namespace gpb::detail {

/// Whether Backend::Auto may pick CUDA. It may since the GPU kit (bench/run_gpu_checks.sh) ran on
/// an NVIDIA H200 on 2026-11-27 and every CUDA/CPU parity test (tests/test_cuda_*, label `gpu`,
/// 52 of 52) passed there, with compute-sanitizer memcheck, racecheck and synccheck clean
/// (bench/RESULTS.md, "GPU: the CUDA backend on one device"). Auto then resolves to CUDA when the
/// build has it and a device is present, unless GPBANDIT_BACKEND=cpu says otherwise.
constexpr bool kAutoSelectsCuda = true;

using CudaResourcesPtr = std::unique_ptr<CudaResources, CudaResourcesDeleter>;

/// Acquires the stream and library handles on `options.device`.
/// @throws NoCudaBuildError in a CPU-only build; CudaError when no device can be used.
CudaResourcesPtr make_cuda_resources(const ContextOptions& options);

/// Free memory of the resources' device in bytes (cudaMemGetInfo, read when the resources were
/// acquired, i.e. after the stream and library handles took theirs).
std::size_t cuda_free_bytes(const CudaResources& resources);

/// "NVIDIA H100 (device 0)"-style description of the resources' device.
std::string describe_cuda_resources(const CudaResources& resources);

}  // namespace gpb::detail
