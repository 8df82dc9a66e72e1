// The progress line's rate and ETA come from the recent window, not from the start: a run whose
// rounds slow down (or speed up after a slow set-up) gets an ETA that follows the present pace.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <regex>
#include <string>

#include "experiment/progress.hpp"
#include "test_support.hpp"

namespace {

using Clock = std::chrono::steady_clock;

/// The ETA (seconds) of the last progress line in `text`, or -1.
double last_eta(const std::string& text) {
  const std::regex eta(R"(ETA (\d+)s)");
  double v = -1;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), eta); it != std::sregex_iterator();
       ++it) {
    v = std::stod((*it)[1].str());
  }
  return v;
}

TEST(Progress, EtaFollowsTheRecentPaceNotTheAverageSinceTheStart) {
  gpb::test::TempDir dir;
  const std::string path = dir.file("progress.txt");
  std::FILE* out = std::fopen(path.c_str(), "w");
  ASSERT_NE(out, nullptr);
  Clock::time_point now{};  // a fake clock the test advances
  {
    // 1000 steps of one unit of work each: 100 at 1 step/s (a slow start), then 600 at 10/s
    // for 60 s, longer than the 30 s window.
    gpb::detail::Progress p(true, 1000, out, [&] { return now; });
    for (int i = 1; i <= 100; ++i) {
      now += std::chrono::seconds(1);
      p.step("P", 1, 1, "round", i, 1000, 1);
    }
    for (int i = 101; i <= 700; ++i) {
      now += std::chrono::milliseconds(100);
      p.step("P", 1, 1, "round", i, 1000, 1);
    }
  }
  std::fclose(out);
  const std::string text = gpb::test::read_file(path);
  // 300 steps left at the present 10 steps/s: 30 s. The average since the start (700 steps in
  // 160 s) would say 69 s.
  const double eta = last_eta(text);
  EXPECT_NEAR(eta, 30, 3) << text;
  EXPECT_NE(text.find("10.0 rounds/s"), std::string::npos) << text;
}

}  // namespace
