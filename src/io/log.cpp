// The warning hook (gpbandit/io/log.hpp): one handler for the process, stderr by default.
#include "gpbandit/io/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <utility>

namespace gpb {
namespace {

std::mutex& handler_mutex() {
  static std::mutex m;
  return m;
}

WarningHandler& handler_slot() {
  static WarningHandler h;
  return h;
}

std::atomic<long long> g_count{0};

}  // namespace

const char* warning_kind_name(WarningKind kind) {
  return kind == WarningKind::Performance ? "performance" : "model";
}

WarningHandler set_warning_handler(WarningHandler handler) {
  const std::lock_guard<std::mutex> lock(handler_mutex());
  return std::exchange(handler_slot(), std::move(handler));
}

void warn(WarningKind kind, const std::string& message) {
  g_count.fetch_add(1, std::memory_order_relaxed);
  WarningHandler h;
  {
    const std::lock_guard<std::mutex> lock(handler_mutex());
    h = handler_slot();
  }
  if (h) {
    h(kind, message);
    return;
  }
  std::fprintf(stderr, "gpbandit: warning: %s\n", message.c_str());
  std::fflush(stderr);
}

long long warning_count() {
  return g_count.load(std::memory_order_relaxed);
}

}  // namespace gpb
