/// @file interrupt.hpp
/// Ctrl-C and SIGTERM during `gpbandit run`: say what the output folder holds and how to go on.
#pragma once

#include <string>

namespace gpb::detail {

/// While alive (and enabled), SIGINT and SIGTERM write the current message to stderr and end the
/// process at once with exit code 128 + signal (130, 143). Nothing else is needed to stay
/// consistent: every file is written atomically (temporary + rename), the next start removes
/// temporaries, and the kernel releases the output lock.
///
/// Instances nest (the CLI holds one for the whole command, run_experiment one for the run): the
/// innermost enabled one's message is printed; its destructor puts the enclosing one's message
/// back, and the outermost one's restores the previous handlers. Create and destroy them on one
/// thread, innermost last.
class InterruptMessage {
 public:
  /// Installs the handlers (when `enabled` and no enclosing instance did) with message `text`.
  explicit InterruptMessage(bool enabled, const std::string& text = "");
  ~InterruptMessage();
  InterruptMessage(const InterruptMessage&) = delete;
  InterruptMessage& operator=(const InterruptMessage&) = delete;
  /// Replaces the message (async-signal-safe for the handler: two buffers, atomic switch).
  void set(const std::string& text);

 private:
  bool enabled_;
  InterruptMessage* outer_ = nullptr;  ///< the enclosing enabled instance, if any
  std::string text_;                   ///< this instance's message, restored when inner ones end
};

/// While alive, a SIGINT or SIGTERM waits (on whichever thread it lands): it is handled when the
/// last hold ends, with the message set by then. Wrap a change of what the output folder holds
/// together with the InterruptMessage::set that describes it, so that no signal sees one without
/// the other.
class InterruptHold {
 public:
  InterruptHold();
  ~InterruptHold();
  InterruptHold(const InterruptHold&) = delete;
  InterruptHold& operator=(const InterruptHold&) = delete;
};

}  // namespace gpb::detail
