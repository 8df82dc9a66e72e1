// The host memory available to this process (gpb::available_host_memory), which the CPU backend's
// automatic memory budget is a fraction of: MemAvailable from /proc/meminfo, capped by the
// memory cgroup's limit minus its usage (v2, else v1), so that a container's limit counts.
#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "gpbandit/engine/context.hpp"

namespace gpb {

namespace {

constexpr std::size_t kUnknown = 0;

/// The first unsigned number in `path` (a cgroup file), or nothing when absent or "max".
bool read_number(const std::string& path, unsigned long long* out) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return false;
  std::istringstream is(word);
  return static_cast<bool>(is >> *out);
}

/// MemAvailable in bytes, or kUnknown.
std::size_t mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  unsigned long long kb = 0;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return static_cast<std::size_t>(kb) * 1024;
  }
  return kUnknown;
}

/// The cgroup limit minus the usage, or max() when there is no limit (or it cannot be read).
std::size_t cgroup_headroom() {
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::string path, v1_path;  // the process's cgroups: "0::/path" (v2), "N:memory:/path" (v1)
  {
    std::ifstream in("/proc/self/cgroup");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("0::", 0) == 0) path = line.substr(3);
      const auto m = line.find(":memory:");
      if (m != std::string::npos) v1_path = line.substr(m + 8);
    }
  }
  unsigned long long limit = 0, usage = 0;
  const std::string v2 = "/sys/fs/cgroup" + (path == "/" ? std::string() : path);
  if (!path.empty() && read_number(v2 + "/memory.max", &limit) &&
      read_number(v2 + "/memory.current", &usage)) {
    return limit > usage ? static_cast<std::size_t>(limit - usage) : 0;
  }
  // v1: the process's own cgroup when it is visible there, else the mount's root (a container
  // usually sees its own cgroup as the root).
  for (const std::string& dir :
       {"/sys/fs/cgroup/memory" + v1_path, std::string("/sys/fs/cgroup/memory")}) {
    if (read_number(dir + "/memory.limit_in_bytes", &limit) &&
        read_number(dir + "/memory.usage_in_bytes", &usage)) {
      if (limit >= (1ull << 60)) return kNone;  // "no limit" is a huge number in v1
      return limit > usage ? static_cast<std::size_t>(limit - usage) : 0;
    }
  }
  return kNone;
}

}  // namespace

std::size_t available_host_memory() {
  const std::size_t avail = mem_available();
  if (avail == kUnknown) return kUnknown;
  const std::size_t cg = cgroup_headroom();
  return std::max<std::size_t>(1, std::min(avail, cg));
}

}  // namespace gpb
