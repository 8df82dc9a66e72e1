// SIGINT / SIGTERM handler of `gpbandit run`: a prepared message, then _exit.
#include "experiment/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace gpb::detail {

namespace {

constexpr std::size_t kCapacity = 4096;
char g_text[2][kCapacity];
std::size_t g_len[2] = {0, 0};
std::atomic<int> g_current{-1};  // buffer the handler prints; -1: none
struct sigaction g_old_int, g_old_term;

void write_all(const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(2, p, n);
    if (w <= 0) return;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void on_signal(int sig) {
  static const char kInt[] = "\ngpbandit: interrupted (SIGINT). ";
  static const char kTerm[] = "\ngpbandit: terminated (SIGTERM). ";
  if (sig == SIGINT) {
    write_all(kInt, sizeof kInt - 1);
  } else {
    write_all(kTerm, sizeof kTerm - 1);
  }
  const int i = g_current.load();
  if (i >= 0) write_all(g_text[i], g_len[i]);
  ::_exit(128 + sig);
}

}  // namespace

InterruptMessage::InterruptMessage(bool enabled) : enabled_(enabled) {
  if (!enabled_) return;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  ::sigaction(SIGINT, &sa, &g_old_int);
  ::sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptMessage::~InterruptMessage() {
  if (!enabled_) return;
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  g_current.store(-1);
}

void InterruptMessage::set(const std::string& text) {
  if (!enabled_) return;
  const int next = g_current.load() == 0 ? 1 : 0;
  const std::size_t n = std::min(text.size(), kCapacity - 1);
  std::memcpy(g_text[next], text.data(), n);
  if (n == 0 || g_text[next][n - 1] != '\n') {
    g_text[next][std::min(n, kCapacity - 2)] = '\n';
    g_len[next] = std::min(n, kCapacity - 2) + 1;
  } else {
    g_len[next] = n;
  }
  g_current.store(next);
}

}  // namespace gpb::detail
