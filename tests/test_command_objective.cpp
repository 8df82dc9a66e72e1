// CommandObjective: a program that answers, crashes, is killed, hangs past the timeout, prints
// garbage, cannot start, or ignores its input; the environment it sees; a program that floods its
// stdout or stderr, or leaves a background child holding its pipes. Programs are sh/awk.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/command.hpp"
#include "objective/process.hpp"
#include "test_support.hpp"

namespace {

using gpb::CommandError;
using gpb::CommandObjective;
using gpb::CommandOptions;

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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(CommandObjective, AFloodedStdoutStopsAtItsCapNamingTheRoundAndTheLimit) {
  // `yes` never ends: without a cap this grew to 1.2 GB in 3 s, then std::bad_alloc (issue #29).
  const auto t0 = std::chrono::steady_clock::now();
  CommandOptions o{{"sh", "-c", "cat > /dev/null; yes 1.0"}, 60, ""};
  o.max_output_bytes = 1 << 20;
  const CommandError e = failure_of(CommandObjective(o), points(), 5);
  EXPECT_EQ(e.kind(), CommandError::Kind::TooMuchOutput) << e.what();
  EXPECT_EQ(e.round(), 5);
  EXPECT_TRUE(contains(e.what(), "round 5: the command 'sh -c ")) << e.what();
  EXPECT_TRUE(contains(e.what(),
                       "printed more than 1 MiB (1048576 bytes) on stdout, the limit "
                       "for 3 candidate(s), and was killed"))
      << e.what();
  EXPECT_LT(seconds_since(t0), 20.0);
  EXPECT_EQ(CommandOptions{}.max_output_bytes, std::size_t{4} << 20);  // the default: 4 MiB
}

TEST(CommandObjective, TheOutputCapGrowsWithTheBatch) {
  // 60 bytes per reward: 20 rewards (1200 bytes) pass a 1000-byte option (the cap is
  // max(1000, 64·20) = 1280), 20 rewards of 70 bytes (1400) do not.
  const Eigen::MatrixXd p20 = Eigen::MatrixXd::Constant(20, 2, 0.5);
  const auto prog = [](int width) {
    CommandOptions o{{"sh", "-c",
                      "cat > /dev/null; i=0; while [ $i -lt $GPBANDIT_Q ]; do printf '%0" +
                          std::to_string(width - 1) + "d\\n' 7; i=$((i + 1)); done"},
                     30,
                     ""};
    o.max_output_bytes = 1000;
    return CommandObjective(o);
  };
  EXPECT_EQ(prog(60).evaluate(p20, 1), std::vector<double>(20, 7.0));
  const CommandError e = failure_of(prog(70), p20, 2);
  EXPECT_EQ(e.kind(), CommandError::Kind::TooMuchOutput);
  EXPECT_TRUE(contains(e.what(), "more than 1280 bytes on stdout, the limit for 20 candidate(s)"))
      << e.what();
}

TEST(CommandObjective, AFloodedStderrKeepsOnlyItsTail) {
  // 8 MB of stderr: passed through (here to nowhere) and only the last 64 KiB kept; the message
  // quotes the last line.
  gpb::detail::ProcessSpec spec;
  spec.argv = {"sh", "-c",
               "yes 'a line of noise' | head -c 8000000 >&2; echo last words >&2; exit 4"};
  spec.pass_stderr = false;
  spec.timeout_s = 60;
  const gpb::detail::ProcessOutcome o = gpb::detail::run_process(spec, "");
  EXPECT_EQ(WEXITSTATUS(o.status), 4);
  EXPECT_LE(o.err_tail.size(), 2 * spec.stderr_tail);
  EXPECT_GE(o.err_tail.size(), spec.stderr_tail / 2);
  EXPECT_TRUE(contains(o.err_tail, "a line of noise\nlast words\n")) << o.err_tail.substr(0, 80);
  CommandOptions co{{"sh", "-c",
                     "cat > /dev/null; yes noise | head -c 3000000 >&2; "
                     "echo 'the real reason' >&2; exit 3"},
                    60,
                    ""};
  const CommandError e = failure_of(CommandObjective(co), points(), 2);
  EXPECT_TRUE(contains(e.what(), "exited with status 3; its last error line: the real reason"))
      << e.what();
}

TEST(CommandObjective, EndsWhenTheProgramExitsEvenIfItsChildHoldsThePipe) {
  // The program answers and exits 0, leaving a background sleep that holds stdout: this used to be
  // reported as a timeout after exiting 0 (issue #29). The evaluation ends at once and the
  // leftover is killed with the program's group.
  gpb::test::TempDir dir;
  const std::string pidfile = dir.file("child.pid");
  const auto t0 = std::chrono::steady_clock::now();
  const auto y =
      sh("cat > /dev/null; sh -c 'echo $$ > " + pidfile + "; exec sleep 30' & while [ ! -s " +
             pidfile + " ]; do sleep 0.01; done; echo 1; echo 2; echo 3",
         20)
          .evaluate(points(), 1);
  EXPECT_EQ(y, (std::vector<double>{1, 2, 3}));
  EXPECT_LT(seconds_since(t0), 10.0);
  const std::string pid = gpb::test::read_file(pidfile);
  EXPECT_TRUE(gpb::test::process_gone(pid, 2.0)) << "the background child " << pid << " survived";
}

TEST(CommandObjective, HasADefaultTimeout) {
  // A hung program must not wait forever by default: one hour, and the message says how to raise
  // it.
  EXPECT_EQ(CommandOptions{}.timeout_s, 3600.0);
  const CommandError e = failure_of(sh("sleep 30", 0.2), points(), 3);
  EXPECT_TRUE(contains(e.what(), "raise objective.timeout_s")) << e.what();
}

TEST(CommandObjective, BadOptions) {
  EXPECT_THROW(CommandObjective({{}, 0, ""}), gpb::InvalidArgument);
  EXPECT_THROW(CommandObjective({{"x"}, -1, ""}), gpb::InvalidArgument);
  EXPECT_THROW(CommandObjective({{"x"}, 1, "", 0}), gpb::InvalidArgument);
  EXPECT_EQ(CommandObjective({{"python3", "my script.py"}, 0, ""}).describe(),
            "python3 'my script.py'");
}

}  // namespace
