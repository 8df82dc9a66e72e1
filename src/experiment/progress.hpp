/// @file progress.hpp
/// The one progress line of `gpbandit run` (stderr): refreshed in place on a terminal, else a
/// line at most every 2 s.
#pragma once

#include <chrono>
#include <string>

namespace gpb::detail {

/// Progress of a whole invocation: steps done of `total`, rate and ETA.
class Progress {
 public:
  /// @param enabled false: prints nothing. @param total steps this invocation will take.
  Progress(bool enabled, long long total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// `step` of `steps` of `label` done for runs [first, last] (1-based display), worth `work` of
  /// the total; `word` names the step ("round", "run"). The rate counts steps, the ETA work.
  void step(const std::string& label, int first, int last, const char* word, int step, int steps,
            long long work);
  /// Prints a line of its own (e.g. the memory note), ending an in-place line first.
  void note(const std::string& line);

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_, tty_;
  long long total_, done_ = 0, steps_ = 0;
  Clock::time_point start_, last_;
  bool shown_ = false;
};

}  // namespace gpb::detail
