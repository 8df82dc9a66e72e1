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
std::atomic<int> g_holds{0};    // live InterruptHolds
std::atomic<int> g_pending{0};  // a signal that arrived during a hold

void write_all(const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(2, p, n);
    if (w <= 0) return;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void on_signal(int sig) {
  if (g_holds.load() > 0) {
    g_pending.store(sig);
    return;
  }
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

InterruptMessage* g_innermost = nullptr;  // the live enabled instance whose message is shown

void show(const std::string& text) {
  const int next = g_current.load() == 0 ? 1 : 0;
  const std::size_t n = std::min(text.size(), kCapacity - 2);
  std::memcpy(g_text[next], text.data(), n);
  std::size_t len = n;
  if (n > 0 && g_text[next][n - 1] != '\n') g_text[next][len++] = '\n';
  g_len[next] = len;
  g_current.store(next);
}

}  // namespace

InterruptMessage::InterruptMessage(bool enabled, const std::string& text) : enabled_(enabled) {
  if (!enabled_) return;
  outer_ = g_innermost;
  g_innermost = this;
  if (outer_ == nullptr) {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    ::sigaction(SIGINT, &sa, &g_old_int);
    ::sigaction(SIGTERM, &sa, &g_old_term);
  }
  set(text);
}

InterruptMessage::~InterruptMessage() {
  if (!enabled_) return;
  g_innermost = outer_;
  if (outer_ != nullptr) {
    show(outer_->text_);
    return;
  }
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  g_current.store(-1);
}

void InterruptMessage::set(const std::string& text) {
  if (!enabled_) return;
  text_ = text;
  if (g_innermost == this) show(text);
}

InterruptHold::InterruptHold() {
  g_holds.fetch_add(1);
}

InterruptHold::~InterruptHold() {
  if (g_holds.fetch_sub(1) == 1) {
    const int sig = g_pending.exchange(0);
    if (sig != 0) on_signal(sig);
  }
}

}  // namespace gpb::detail
