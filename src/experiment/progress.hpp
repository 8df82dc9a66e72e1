/// @file progress.hpp
/// The one progress line of `gpbandit run` (stderr): refreshed in place on a terminal, else a
/// line at most every 2 s.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gpb::detail {

/// Progress of a whole invocation: steps done of `total`, rate and ETA.
///
/// The rate and the ETA come from the last kWindowSeconds (or since the start when less has
/// passed): rounds get slower as the posterior grows (O(N·t) per round), so an average since
/// the start would promise too early an end, and one over a fast set-up phase too late a one.
class Progress {
 public:
  /// Seconds of history the rate and the ETA are computed from.
  static constexpr double kWindowSeconds = 30.0;

  using Clock = std::chrono::steady_clock;
  /// @param enabled false: prints nothing. @param total steps this invocation will take.
  /// @param out where the lines go (a terminal: refreshed in place). @param now the clock (tests).
  Progress(bool enabled, long long total, std::FILE* out = stderr,
           std::function<Clock::time_point()> now = Clock::now);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// `step` of `steps` of `label` done for runs [first, last] (1-based display), worth `work` of
  /// the total; `word` names the step ("round", "run"). The rate counts steps, the ETA work.
  void step(const std::string& label, int first, int last, const char* word, int step, int steps,
            long long work);
  /// Prints a line of its own (e.g. the restored line), ending an in-place line first.
  void note(const std::string& line);
  /// Ends an in-place line (so that another message starts on a line of its own).
  void end_line();
  /// Says that a long set-up starts (`what`, e.g. "runs 1-3: f and the posteriors over N = 10^8
  /// candidates") and, until the next step() or end_setup(), repeats "... N s" every
  /// `every_s` seconds from a background thread, so that minutes of set-up are not silence.
  void begin_setup(const std::string& what, double every_s = 15.0);
  /// Stops the set-up messages and says how long it took (nothing if none is running).
  void end_setup();

 private:
  struct Sample {
    Clock::time_point at;
    long long done, steps;
  };
  std::FILE* out_;
  std::function<Clock::time_point()> now_;
  bool enabled_, tty_;
  long long total_, done_ = 0, steps_ = 0;
  Clock::time_point start_, last_;
  std::deque<Sample> window_;  ///< samples of the last kWindowSeconds, oldest first
  bool shown_ = false;
  // The set-up heartbeat (begin_setup): its thread, what it says, and how to stop it.
  std::thread setup_thread_;
  std::mutex setup_mutex_;
  std::condition_variable setup_cv_;
  bool setup_stop_ = false;
  std::string setup_what_;
  Clock::time_point setup_start_{};
};

}  // namespace gpb::detail
