// The progress line of `gpbandit run`.
#include "experiment/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace gpb::detail {

Progress::Progress(bool enabled, long long total, std::FILE* out,
                   std::function<Clock::time_point()> now)
    : out_(out),
      now_(std::move(now)),
      enabled_(enabled),
      tty_(::isatty(::fileno(out)) != 0),
      total_(total),
      start_(now_()),
      last_(start_) {
  window_.push_back({start_, 0, 0});
}

Progress::~Progress() {
  end_line();
}

void Progress::step(const std::string& label, int first, int last, const char* word, int step,
                    int steps, long long work) {
  ++steps_;
  done_ += work;
  if (!enabled_) return;
  const auto now = now_();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since < (tty_ ? 0.1 : 2.0) && step != steps) return;
  if (!tty_ && since < 2.0) return;
  last_ = now;
  // The rate over the recent window: drop samples older than it, but keep one at its start.
  window_.push_back({now, done_, steps_});
  const auto age = [&](const Sample& s) {
    return std::chrono::duration<double>(now - s.at).count();
  };
  while (window_.size() > 2 && age(window_[1]) >= kWindowSeconds) window_.pop_front();
  const Sample& from = window_.front();
  const double span = age(from);
  const double rate = span > 0 ? static_cast<double>(steps_ - from.steps) / span : 0.0;
  const double work_rate = span > 0 ? static_cast<double>(done_ - from.done) / span : 0.0;
  const double eta = work_rate > 0 ? static_cast<double>(total_ - done_) / work_rate : 0.0;
  std::fprintf(out_, "%sgpbandit: %s runs %d-%d %s %d/%d  %.1f %ss/s  ETA %.0fs%s",
               tty_ ? "\r" : "", label.c_str(), first, last, word, step, steps, rate, word,
               std::max(0.0, eta), tty_ ? "\033[K" : "\n");
  std::fflush(out_);
  shown_ = true;
}

void Progress::end_line() {
  if (enabled_ && tty_ && shown_) std::fputc('\n', out_);
  shown_ = false;
}

void Progress::note(const std::string& line) {
  if (!enabled_) return;
  end_line();
  std::fprintf(out_, "gpbandit: %s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace gpb::detail
