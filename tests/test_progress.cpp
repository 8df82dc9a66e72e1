// The progress line's rate and ETA come from the recent window, not from the start: a run whose
// rounds slow down (or speed up after a slow set-up) gets an ETA that follows the present pace.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <regex>
#include <string>
#include <thread>

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

TEST(Progress, ALongSetUpIsReportedWhileItRunsAndEndsAtTheFirstRound) {
  gpb::test::TempDir dir;
  const std::string path = dir.file("setup.txt");
  std::FILE* out = std::fopen(path.c_str(), "w");
  ASSERT_NE(out, nullptr);
  {
    gpb::detail::Progress p(true, 10, out);
    p.begin_setup("P runs 1-2 over N = 100000000 candidates", 0.05);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the set-up's work
    p.step("P", 1, 2, "round", 1, 10, 1);
  }
  std::fclose(out);
  const std::string text = gpb::test::read_file(path);
  EXPECT_EQ(text.find("gpbandit: setting up P runs 1-2 over N = 100000000 candidates\n"), 0u)
      << text;
  EXPECT_NE(text.find(" s so far\n"), std::string::npos) << text;  // heard from while it ran
  const auto done = text.find("gpbandit: set-up done in ");
  ASSERT_NE(done, std::string::npos) << text;
  EXPECT_EQ(text.find("setting up", done), std::string::npos) << text;  // stopped at round 1
}

TEST(Progress, APipelineRunOverABigDomainSaysItIsSettingUp) {
  gpb::test::TempDir dir;
  gpb::test::write_file(dir.file("c.json"), R"({"domain": {"type": "grid", "lower": [0],
    "upper": [1], "counts": [50]}, "objective": {"type": "rkhs"}, "runs": 1, "T": 3,
    "policies": [{"type": "gp_ucb"}, {"type": "random"}], "backend": "cpu"})");
  const auto r = gpb::test::run_command(
      "GPB_TEST_SETUP_CANDIDATES=50 '" + std::string(GPB_CLI_PATH) + "' run '" +
      dir.file("c.json") + "' --no-plot --out '" + dir.file("out") + "' 2>&1 >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("gpbandit: setting up gp_ucb runs 1-1 over N = 50 candidates (the "
                          "objective, the posterior)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("setting up random runs 1-1 over N = 50 candidates (its posterior)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("gpbandit: set-up done in "), std::string::npos) << r.output;
}

}  // namespace
