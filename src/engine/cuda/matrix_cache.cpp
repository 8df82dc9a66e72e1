// The per-Context cache of precomputed kernel matrices on the device (see matrix_cache.hpp).
#include "engine/cuda/matrix_cache.hpp"

#include <algorithm>
#include <mutex>

#include "engine/cuda/resources.hpp"

namespace gpb::cuda {

DeviceMatrix device_matrix(const Context& ctx, const Kernel& k) {
  const std::shared_ptr<const Eigen::MatrixXd> host = k.matrix_shared();
  if (!host) return nullptr;
  set_device(ctx);
  detail::CudaResources& res = resources(ctx);
  auto& cache = res.matrix_cache;
  const std::lock_guard<std::mutex> lock(cache.mutex);
  auto& entries = cache.entries;
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const auto& e) { return e.host.expired(); }),
                entries.end());
  ++cache.clock;
  for (auto& e : entries) {
    if (e.host.lock() == host) {
      e.last_use = cache.clock;
      return e.device;
    }
  }
  auto buf = std::make_shared<DeviceBuffer<double>>(static_cast<std::size_t>(host->size()));
  copy_to_device(buf->data(), host->data(), buf->size(), res.stream.get());
  ++cache.uploads;
  if (entries.size() >= kMatrixCacheEntries) {
    entries.erase(
        std::min_element(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.last_use < b.last_use; }));
  }
  entries.push_back({host, buf, cache.clock});
  return buf;
}

std::size_t device_matrix_uploads(const Context& ctx) {
  auto& cache = resources(ctx).matrix_cache;
  const std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.uploads;
}

}  // namespace gpb::cuda
