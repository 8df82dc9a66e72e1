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
  end_setup();
  end_line();
}

void Progress::begin_setup(const std::string& what, double every_s) {
  if (!enabled_) return;
  end_setup();
  end_line();
  setup_what_ = what;
  setup_stop_ = false;
  setup_start_ = now_();
  std::fprintf(out_, "gpbandit: setting up %s\n", what.c_str());
  std::fflush(out_);
  setup_thread_ = std::thread([this, every_s] {
    std::unique_lock<std::mutex> lock(setup_mutex_);
    const auto period = std::chrono::duration<double>(every_s);
    while (!setup_cv_.wait_for(lock, period, [this] { return setup_stop_; })) {
      const double s = std::chrono::duration<double>(now_() - setup_start_).count();
      std::fprintf(out_, "gpbandit: setting up %s: %.0f s so far\n", setup_what_.c_str(), s);
      std::fflush(out_);
    }
  });
}

void Progress::end_setup() {
  if (!setup_thread_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(setup_mutex_);
    setup_stop_ = true;
  }
  setup_cv_.notify_all();
  setup_thread_.join();
  const auto now = now_();
  const double s = std::chrono::duration<double>(now - setup_start_).count();
  std::fprintf(out_, "gpbandit: set-up done in %.1f s\n", s);
  std::fflush(out_);
  window_.assign(1, Sample{now, done_, steps_});  // the rate counts rounds, not the set-up
}

void Progress::step(const std::string& label, int first, int last, const char* word, int step,
                    int steps, long long work) {
  ++steps_;
  done_ += work;
  if (!enabled_) return;
  end_setup();
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
