/// @file interrupt.hpp
/// Ctrl-C and SIGTERM during `gpbandit run`: say what the checkpoint holds and how to resume.
#pragma once

#include <string>

namespace gpb::detail {

/// While alive (and enabled), SIGINT and SIGTERM write the current message to stderr and end the
/// process at once with exit code 128 + signal (130, 143). Nothing else is needed to stay
/// consistent: every file is written atomically (temporary + rename), the next start removes
/// temporaries, and the kernel releases the output lock. The destructor restores the previous
/// handlers.
class InterruptMessage {
 public:
  explicit InterruptMessage(bool enabled);
  ~InterruptMessage();
  InterruptMessage(const InterruptMessage&) = delete;
  InterruptMessage& operator=(const InterruptMessage&) = delete;
  /// Replaces the message (async-signal-safe for the handler: two buffers, atomic switch).
  void set(const std::string& text);

 private:
  bool enabled_;
};

}  // namespace gpb::detail
