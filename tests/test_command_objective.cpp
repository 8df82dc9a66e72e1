// CommandObjective: a program that answers, crashes, is killed, hangs past the timeout, prints
// garbage, cannot start, or ignores its input; the environment it sees. Programs are sh/awk.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/command.hpp"
#include "test_support.hpp"

namespace {

using gpb::CommandError;
using gpb::CommandObjective;

CommandObjective sh(const std::string& script, double timeout_s = 10) {
  return CommandObjective({{"sh", "-c", script}, timeout_s, ""});
}

Eigen::MatrixXd points() {
  Eigen::MatrixXd p(3, 2);
  p << 0.1, 0.2, 0.25, -1, 1.0 / 3.0, 7;
  return p;
}

/// The CommandError an evaluation throws (kind and message), or fails the test.
CommandError failure_of(const CommandObjective& c, const Eigen::MatrixXd& p, int round) {
  try {
    c.evaluate(p, round);
  } catch (const CommandError& e) {
    return e;
  }
  ADD_FAILURE() << "no CommandError";
  return CommandError(CommandError::Kind::Failed, 0, "");
}

using gpb::test::contains;

TEST(CommandObjective, ReadsTheCandidatesAndReturnsTheRewards) {
  // x0 + 10·x1 per row, exactly as read back from the CSV (17 significant digits).
  const auto y =
      sh("awk -F, 'NR == 1 { print \"reward\"; next } { printf \"%.17g\\n\", $1 + 10 * $2 }'")
          .evaluate(points(), 1);
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(y[0], 0.1 + 10 * 0.2);
  EXPECT_EQ(y[1], 0.25 - 10);
  EXPECT_EQ(y[2], 1.0 / 3.0 + 70);
}

TEST(CommandObjective, RewardsMaySitOnOneLineAfterAHeader) {
  const auto y = sh("cat > /dev/null; echo 'f(x)'; echo '1.5, -2 +3e1'").evaluate(points(), 1);
  EXPECT_EQ(y, (std::vector<double>{1.5, -2, 30}));
}

TEST(CommandObjective, SeesItsRoundAndBatchSize) {
  const auto y = sh("cat > /dev/null; for i in 1 2 3; do echo $GPBANDIT_ROUND$GPBANDIT_Q; done")
                     .evaluate(points(), 7);
  EXPECT_EQ(y, (std::vector<double>{73, 73, 73}));
}

TEST(CommandObjective, RunsInItsWorkingDirectory) {
  gpb::test::TempDir dir;
  gpb::test::write_file(dir.file("answers.txt"), "4\n5\n6\n");
  const CommandObjective c({{"sh", "-c", "cat > /dev/null; cat answers.txt"}, 10, dir.path()});
  EXPECT_EQ(c.evaluate(points(), 1), (std::vector<double>{4, 5, 6}));
  const CommandError e =
      failure_of(CommandObjective({{"true"}, 10, dir.file("missing")}), points(), 1);
  EXPECT_TRUE(contains(e.what(), "could not be started: No such file or directory")) << e.what();
}

TEST(CommandObjective, CrashesAreNamedWithTheRoundAndTheLastErrorLine) {
  const CommandError e =
      failure_of(sh("cat > /dev/null; echo 'it broke' >&2; exit 3"), points(), 4);
  EXPECT_EQ(e.kind(), CommandError::Kind::Failed);
  EXPECT_EQ(e.round(), 4);
  EXPECT_TRUE(contains(e.what(), "round 4: the command 'sh -c ")) << e.what();
  EXPECT_TRUE(contains(e.what(), "exited with status 3; its last error line: it broke"))
      << e.what();
  const CommandError k = failure_of(sh("kill -9 $$"), points(), 2);
  EXPECT_TRUE(contains(k.what(), "killed by signal 9")) << k.what();
  const CommandError m =
      failure_of(CommandObjective({{"/nonexistent/program"}, 0, ""}), points(), 1);
  EXPECT_TRUE(contains(m.what(), "could not be started: No such file or directory")) << m.what();
}

TEST(CommandObjective, HangsAreKilledAtTheTimeout) {
  const auto t0 = std::chrono::steady_clock::now();
  // The shell starts a child (sleep): the whole process group must go, or the pipes stay open.
  const CommandError e = failure_of(sh("sleep 30; echo 1", 0.3), points(), 9);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(e.kind(), CommandError::Kind::TimedOut);
  EXPECT_TRUE(contains(e.what(), "round 9")) << e.what();
  EXPECT_TRUE(contains(e.what(), "did not finish within timeout_s = 0.3 s")) << e.what();
  EXPECT_LT(s, 5.0);
  // Closing stdout early does not escape the timeout either.
  const CommandError c = failure_of(sh("exec >&-; sleep 30", 0.3), points(), 1);
  EXPECT_EQ(c.kind(), CommandError::Kind::TimedOut);
}

TEST(CommandObjective, GarbageIsMalformed) {
  const auto kind_and_text = [](const std::string& script) {
    const CommandError e = failure_of(sh("cat > /dev/null; " + script), points(), 2);
    EXPECT_EQ(e.kind(), CommandError::Kind::Malformed) << e.what();
    return std::string(e.what());
  };
  EXPECT_TRUE(
      contains(kind_and_text("echo 1; echo 2"), "round 2: the command printed 2 reward(s) for 3"));
  EXPECT_TRUE(contains(kind_and_text("echo 1; echo oops; echo 3"),
                       "round 2: line 2 of the command's output has 'oops', not a finite number"));
  EXPECT_TRUE(contains(kind_and_text("echo 1; echo nan; echo 3"), "'nan'"));
  EXPECT_TRUE(contains(kind_and_text("echo 1,x,3"), "line 1 of the command's output has 'x'"));
  EXPECT_TRUE(contains(kind_and_text("echo y; echo 1; echo 2; echo 3; echo 4"), "printed 4"));
  EXPECT_TRUE(contains(kind_and_text("true"), "printed 0 reward(s)"));
}

TEST(CommandObjective, AProgramThatIgnoresItsInputIsFine) {
  // 20000 candidates (~700 kB of CSV) to a program that never reads stdin: the writes fail with
  // EPIPE once it exits, and neither SIGPIPE nor a blocked pipe stops the caller.
  Eigen::MatrixXd big = Eigen::MatrixXd::Constant(20000, 2, 0.123456789);
  const CommandError e = failure_of(sh("echo 1"), big, 1);
  EXPECT_TRUE(contains(e.what(), "printed 1 reward(s) for 20000")) << e.what();
}

TEST(CommandObjective, BadOptions) {
  EXPECT_THROW(CommandObjective({{}, 0, ""}), gpb::InvalidArgument);
  EXPECT_THROW(CommandObjective({{"x"}, -1, ""}), gpb::InvalidArgument);
  EXPECT_EQ(CommandObjective({{"python3", "my script.py"}, 0, ""}).describe(),
            "python3 'my script.py'");
}

}  // namespace
