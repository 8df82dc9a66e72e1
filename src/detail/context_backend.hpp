/// @file context_backend.hpp
/// Internal seam between context.cpp and the backend translation units (src/cuda/context_cuda.cpp
/// in CUDA builds, src/cuda_stub/no_cuda.cpp in CPU-only builds).
#pragma once

#include <memory>
#include <string>

#include "gpbandit/context.hpp"

namespace gpb::detail {

/// Whether the CUDA implementations of the engine ops exist yet. While false, Backend::Auto
/// resolves to Cpu even when a device is present (a CUDA context would only throw), and every op
/// called with an explicit Backend::Cuda context throws gpb::Error naming the op, instead of
/// silently running on the host. Flip to true together with the CUDA ops.
constexpr bool kCudaOpsImplemented = false;

using CudaResourcesPtr = std::unique_ptr<CudaResources, CudaResourcesDeleter>;

/// Acquires the stream and library handles on `options.device`.
/// @throws NoCudaBuildError in a CPU-only build; CudaError when no device can be used.
CudaResourcesPtr make_cuda_resources(const ContextOptions& options);

/// "NVIDIA H100 (device 0)"-style description of the resources' device.
std::string describe_cuda_resources(const CudaResources& resources);

/// Throws gpb::Error("<op>: the CUDA backend does not implement this op yet").
[[noreturn]] void throw_cuda_op_unimplemented(const char* op);

}  // namespace gpb::detail
