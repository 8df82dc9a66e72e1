// CPU-only build: the CUDA side of the Context seam (src/engine/detail/context_backend.hpp).
#include "engine/detail/context_backend.hpp"
#include "gpbandit/error.hpp"

namespace gpb {
namespace detail {

/// Empty in a CPU-only build; never instantiated.
struct CudaResources {};

void CudaResourcesDeleter::operator()(CudaResources* r) const {
  delete r;
}

CudaResourcesPtr make_cuda_resources(const ContextOptions& /*options*/) {
  throw NoCudaBuildError(
      "Backend::Cuda requested but this build has no CUDA; rebuild with nvcc on PATH");
}

std::size_t cuda_free_bytes(const CudaResources& /*resources*/) {
  return 0;
}

std::string describe_cuda_resources(const CudaResources& /*resources*/) {
  return "cuda: unavailable";
}

}  // namespace detail

bool Context::cuda_compiled() {
  return false;
}
int Context::cuda_device_count() {
  return 0;
}

}  // namespace gpb
