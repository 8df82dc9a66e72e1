// The CLI on a state file (init → ask → tell → best, concurrent tells under the lock, a held lock,
// bad input) and `gpbandit run` with a command objective (a full run, a crash then --resume equal
// to an uninterrupted run, a hang, garbage, refusals; best/tell on its state and a second run on
// its folder while it runs).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "gpbandit/optimizer/optimizer.hpp"
#include "shell_quote.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::q;
using gpb::test::read_file;
using gpb::test::run_cli;
using gpb::test::run_command;
using gpb::test::TempDir;
using gpb::test::write_file;

using gpb::test::contains;

const char* kConfig = R"({
  "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [20, 20]},
  "kernel": {"type": "matern52", "lengthscale": [0.2, 0.3]},
  "acquisition": {"type": "ucb", "beta": {"scale": 0.5}},
  "goal": "minimize", "seed": 4
})";

/// y = (x0 − 0.3)² + (x1 − 0.7)² for each row of a points CSV, one per line, as awk prints it.
const char* kAwk = "awk -F, 'NR > 1 { printf \"%.17g\\n\", ($1 - 0.3)^2 + ($2 - 0.7)^2 }'";

TEST(CliOptimizer, InitAskTellBestRoundTrip) {
  TempDir dir;
  write_file(dir.file("cfg.json"), kConfig);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("cfg.json")) + " " + q(state)).exit_code, 0);
  for (int round = 0; round < 2; ++round) {
    const auto ask = run_cli("ask " + q(state) + " --q 3 --out " + q(dir.file("p.csv")));
    ASSERT_EQ(ask.exit_code, 0) << ask.output;
    ASSERT_EQ(
        run_command(std::string(kAwk) + " " + q(dir.file("p.csv")) + " > " + q(dir.file("y.csv")))
            .exit_code,
        0);
    const auto tell =
        run_cli("tell " + q(state) + " " + q(dir.file("p.csv")) + " " + q(dir.file("y.csv")));
    ASSERT_EQ(tell.exit_code, 0) << tell.output;
  }
  const gpb::Optimizer opt = gpb::Optimizer::load(state);
  EXPECT_EQ(opt.num_observations(), 6);
  EXPECT_TRUE(opt.pending().empty());
  for (int i : opt.observed_indices()) EXPECT_GE(i, 0);  // the printed points matched candidates
  const auto best = run_cli("best " + q(state));
  ASSERT_EQ(best.exit_code, 0);
  EXPECT_TRUE(contains(best.output, "x0,x1,y\n")) << best.output;
  char value[64];
  std::snprintf(value, sizeof value, "%.17g", opt.best().value);
  EXPECT_TRUE(contains(best.output, value)) << best.output;
  // stdout is the CSV itself.
  const auto one = run_cli("ask " + q(state));
  EXPECT_EQ(one.output.rfind("x0,x1\n", 0), 0u) << one.output;
}

// tell --noise: a CSV of known noise variances (a header, an empty cell and "nan" for not known)
// lands with the rewards; a bad variance or a count that differs exits 2 and records nothing.
TEST(CliOptimizer, TellWithKnownNoise) {
  TempDir dir;
  write_file(dir.file("cfg.json"), kConfig);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("cfg.json")) + " " + q(state)).exit_code, 0);
  ASSERT_EQ(run_cli("ask " + q(state) + " --q 4 --out " + q(dir.file("p.csv"))).exit_code, 0);
  write_file(dir.file("y.csv"), "1\n2\n3\n4\n");
  const std::string tell =
      "tell " + q(state) + " " + q(dir.file("p.csv")) + " " + q(dir.file("y.csv")) + " --noise ";
  write_file(dir.file("bad.csv"), "0.1\n-2\n0.1\n0.1\n");
  auto r = run_cli(tell + q(dir.file("bad.csv")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "noise[1] = -2")) << r.output;
  write_file(dir.file("short.csv"), "0.1\n0.2\n");
  r = run_cli(tell + q(dir.file("short.csv")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "2 noise variances")) << r.output;
  write_file(dir.file("text.csv"), "var\n0.1\nabc\n");
  r = run_cli(tell + q(dir.file("text.csv")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "text.csv:3")) << r.output;
  EXPECT_EQ(gpb::Optimizer::load(state).num_observations(), 0);
  write_file(dir.file("n.csv"), "variance\n0.25\n\nnan\n1e-4\n");
  r = run_cli(tell + q(dir.file("n.csv")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<double> noise = gpb::Optimizer::load(state).observed_noise();
  ASSERT_EQ(noise.size(), 4u);
  EXPECT_EQ(noise[0], 0.25);
  EXPECT_TRUE(std::isnan(noise[1]) && std::isnan(noise[2]));
  EXPECT_EQ(noise[3], 1e-4);
}

TEST(CliOptimizer, ConcurrentTellsAllLand) {
  TempDir dir;
  write_file(dir.file("cfg.json"), kConfig);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("cfg.json")) + " " + q(state)).exit_code, 0);
  ASSERT_EQ(run_cli("ask " + q(state) + " --q 8 --out " + q(dir.file("p.csv"))).exit_code, 0);
  // Eight processes tell one point each at the same time; without the lock, saves would race and
  // some observations would be lost.
  const std::string split = "cd " + q(dir.path()) +
                            " && for i in 1 2 3 4 5 6 7 8; do head -n 1 p.csv > p$i.csv; "
                            "sed -n \"$((i + 1))p\" p.csv >> p$i.csv; " +
                            kAwk + " p$i.csv > y$i.csv; done";
  ASSERT_EQ(run_command(split).exit_code, 0);
  const std::string cli = std::string("'") + GPB_CLI_PATH + "'";
  const auto r = run_command("cd " + q(dir.path()) + " && for i in 1 2 3 4 5 6 7 8; do " + cli +
                             " tell s.json p$i.csv y$i.csv & done; wait");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const gpb::Optimizer opt = gpb::Optimizer::load(state);
  EXPECT_EQ(opt.num_observations(), 8);
  EXPECT_TRUE(opt.pending().empty());
}

TEST(CliOptimizer, AHeldLockTimesOutWithAClearMessage) {
  TempDir dir;
  write_file(dir.file("cfg.json"), kConfig);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("cfg.json")) + " " + q(state)).exit_code, 0);
  const std::string cli = std::string("'") + GPB_CLI_PATH + "'";
  const auto r = run_command("flock " + q(state + ".lock") + " sleep 3 & sleep 0.5; " + cli +
                             " ask " + q(state) + " --lock-timeout 0.3 2>&1; echo rc=$?; wait");
  EXPECT_TRUE(contains(r.output, "is locked by another gpbandit process")) << r.output;
  EXPECT_TRUE(contains(r.output, "rc=1")) << r.output;
}

TEST(CliOptimizer, BadInputExitsTwoNamingTheProblem) {
  TempDir dir;
  write_file(dir.file("cfg.json"), kConfig);
  const std::string state = dir.file("s.json");
  write_file(dir.file("bad.json"), R"({"domain": {"type": "grid", "lower": [0], "upper": [1],
      "counts": [5]}, "kernel": {"type": "se", "lengthscale": [0.1, 0.2]}})");
  auto r = run_cli("init " + q(dir.file("bad.json")) + " " + q(state));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "bad.json: kernel.lengthscale: has 2 values (ARD)")) << r.output;
  write_file(dir.file("typo.json"), R"({"domain": {"type": "grid", "lower": [0], "upper": [1],
      "counts": [5]}, "acqusition": {}})");
  r = run_cli("init " + q(dir.file("typo.json")) + " " + q(state));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "unknown key 'acqusition'")) << r.output;
  ASSERT_EQ(run_cli("init " + q(dir.file("cfg.json")) + " " + q(state)).exit_code, 0);
  write_file(dir.file("p.csv"), "x0,x1\n0.5,0.5\n0.1,oops\n");
  write_file(dir.file("y.csv"), "1\n2\n");
  r = run_cli("tell " + q(state) + " " + q(dir.file("p.csv")) + " " + q(dir.file("y.csv")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "p.csv:3:")) << r.output;
  write_file(dir.file("p.csv"), "x0,x1,x2\n0.5,0.5,1\n0.1,0.2,1\n");
  r = run_cli("tell " + q(state) + " " + q(dir.file("p.csv")) + " " + q(dir.file("y.csv")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "3 coordinates, the domain has 2")) << r.output;
  EXPECT_EQ(gpb::Optimizer::load(state).num_observations(), 0);  // nothing half-done
}

/// A command-objective config in `dir` running `script` (sh -c) for T evaluations in batches of q.
std::string command_config(const TempDir& dir, const std::string& script, int T, int q,
                           double timeout_s = 30, const std::string& extra = "") {
  std::string esc;
  for (char c : script) {
    if (c == '"' || c == '\\') esc += '\\';
    esc += c;
  }
  const std::string path = dir.file("run.json");
  write_file(path, std::string(R"({"name": "tune", "T": )") + std::to_string(T) +
                       ", \"q\": " + std::to_string(q) + R"(,
      "domain": {"type": "sobol", "lower": [0, 0], "upper": [1, 1], "count": 256, "seed": 1},
      "kernel": {"type": "matern52", "lengthscale": 0.25}, "goal": "minimize", "seed": 2,
      "acquisition": {"type": "ei"},
      "objective": {"type": "command", "cmd": ["sh", "-c", ")" +
                       esc + R"("], "timeout_s": )" + std::to_string(timeout_s) + extra + "}}");
  return path;
}

TEST(CliOptimizer, RunWithACommandObjective) {
  TempDir dir;
  const std::string cfg = command_config(dir, kAwk, 7, 2);
  const auto r = run_cli("run " + q(cfg) + " --out " + q(dir.file("out")) + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "best y = ")) << r.output;
  const std::string evals = read_file(dir.file("out/evaluations.csv"));
  EXPECT_EQ(std::count(evals.begin(), evals.end(), '\n'), 8);  // header + 7 (rounds of 2, 2, 2, 1)
  EXPECT_TRUE(contains(evals, "evaluation,round,index,x0,x1,y\n"));
  EXPECT_TRUE(contains(read_file(dir.file("out/summary.json")), "\"evaluations\": 7"));
  // Running it again without --resume refuses to overwrite; --resume on a finished run says so.
  auto again = run_cli("run " + q(cfg) + " --out " + q(dir.file("out")));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(contains(again.output, "use --resume")) << again.output;
  again = run_cli("run " + q(cfg) + " --out " + q(dir.file("out")) + " --resume");
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_TRUE(contains(again.output, "is complete (7 of T = 7")) << again.output;
  EXPECT_EQ(read_file(dir.file("out/evaluations.csv")), evals);
  // --force starts over (same config and seed: the same evaluations); --threads is accepted.
  again = run_cli("run " + q(cfg) + " --out " + q(dir.file("out")) + " --force --threads 1");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(read_file(dir.file("out/evaluations.csv")), evals);
  again = run_cli("run " + q(cfg) + " --out " + q(dir.file("out")) + " --resume --force");
  EXPECT_EQ(again.exit_code, 2);
}

// objective.noise "returned": the program prints a reward and its known noise variance per
// candidate, and the run tells both; one number per candidate is then malformed (exit 2), and so
// is a negative variance.
TEST(CliOptimizer, RunWithACommandObjectiveThatReturnsNoise) {
  TempDir dir;
  const std::string pairs =
      "awk -F, 'NR > 1 { printf \"%.17g,%.17g\\n\", ($1 - 0.3)^2 + ($2 - 0.7)^2, 0.01 + $1 }'";
  std::string cfg = command_config(dir, pairs, 5, 2, 30, R"(, "noise": "returned")");
  auto r = run_cli("run " + q(cfg) + " --out " + q(dir.file("out")) + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const gpb::Optimizer opt = gpb::Optimizer::load(dir.file("out/state.json"));
  const Eigen::MatrixXd x = opt.observed_points();
  const std::vector<double> noise = opt.observed_noise();
  ASSERT_EQ(noise.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(noise[i], 0.01 + x(i, 0), 1e-12) << i;
  cfg = command_config(dir, kAwk, 5, 2, 30, R"(, "noise": "returned")");
  r = run_cli("run " + q(cfg) + " --out " + q(dir.file("one")) + " --quiet");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "a reward and its noise variance per candidate")) << r.output;
  const std::string negative = "awk -F, 'NR > 1 { printf \"%.17g,-1\\n\", $1 }'";
  cfg = command_config(dir, negative, 5, 2, 30, R"(, "noise": "returned")");
  r = run_cli("run " + q(cfg) + " --out " + q(dir.file("neg")) + " --quiet");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "noise variance is negative")) << r.output;
  cfg = command_config(dir, kAwk, 5, 2, 30, R"(, "noise": "known")");
  r = run_cli("run " + q(cfg) + " --out " + q(dir.file("bad")) + " --quiet");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "objective.noise")) << r.output;
}

TEST(CliOptimizer, ACrashThenResumeEqualsAnUninterruptedRun) {
  TempDir dir;
  // Fails in round 3 until the file "fixed" exists.
  const std::string flaky = std::string("if [ \"$GPBANDIT_ROUND\" = 3 ] && [ ! -e '") +
                            dir.file("fixed") +
                            "' ]; then echo 'out of licences' >&2; exit 5; fi; " + kAwk;
  const std::string cfg = command_config(dir, flaky, 9, 2);
  auto r = run_cli("run " + q(cfg) + " --out " + q(dir.file("a")) + " --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.output, "round 3: the command")) << r.output;
  EXPECT_TRUE(contains(r.output, "exited with status 5; its last error line: out of licences"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "the 4 earlier evaluations are saved")) << r.output;
  EXPECT_EQ(gpb::Optimizer::load(dir.file("a/state.json")).num_observations(), 4);
  write_file(dir.file("fixed"), "");
  r = run_cli("run " + q(cfg) + " --out " + q(dir.file("a")) + " --quiet --resume");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_cli("run " + q(cfg) + " --out " + q(dir.file("b")) + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(dir.file("a/evaluations.csv")), read_file(dir.file("b/evaluations.csv")));
  EXPECT_EQ(read_file(dir.file("a/state.json")), read_file(dir.file("b/state.json")));
}

TEST(CliOptimizer, HangsAndGarbageStopTheRunNamingTheRound) {
  TempDir dir;
  const std::string hang =
      std::string("if [ \"$GPBANDIT_ROUND\" = 2 ]; then sleep 30; fi; ") + kAwk;
  auto r = run_cli("run " + q(command_config(dir, hang, 6, 1, 0.5)) + " --out " + q(dir.file("h")) +
                   " --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.output, "round 2: the command")) << r.output;
  EXPECT_TRUE(contains(r.output, "did not finish within timeout_s = 0.5 s")) << r.output;
  r = run_cli("run " + q(command_config(dir, "cat > /dev/null; echo 'NaN'", 6, 1)) + " --out " +
              q(dir.file("g")) + " --quiet");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "round 1: ")) << r.output;
  r = run_cli("run " + q(command_config(dir, kAwk, 6, 1)) + " --out " + q(dir.file("none")) +
              " --resume");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "no run to resume")) << r.output;
}

TEST(CliOptimizer, MissingOrDirectoryInputsExitTwoWithTheReason) {
  TempDir dir;
  write_file(dir.file("cfg.json"), kConfig);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("cfg.json")) + " " + q(state)).exit_code, 0);
  write_file(dir.file("p.csv"), "x0,x1\n0.5,0.5\n");
  write_file(dir.file("y.csv"), "1\n");
  auto r = run_cli("tell " + q(state) + " " + q(dir.file("nope.csv")) + " " + q(dir.file("y.csv")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(
      contains(r.output, "nope.csv: cannot read the points file: No such file or directory"))
      << r.output;
  r = run_cli("tell " + q(state) + " " + q(dir.file("p.csv")) + " " + q(dir.file("none.csv")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(
      contains(r.output, "none.csv: cannot read the rewards file: No such file or directory"))
      << r.output;
  r = run_cli("tell " + q(state) + " " + q(dir.path()) + " " + q(dir.file("y.csv")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, ": points file is a directory")) << r.output;
  EXPECT_EQ(gpb::Optimizer::load(state).num_observations(), 0);
}

TEST(CliOptimizer, ABatchLargerThanTheDomainIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  std::string cfg = read_file(command_config(dir, kAwk, 6, 5));
  cfg.replace(cfg.find("\"count\": 256"), 12, "\"count\": 4");
  write_file(dir.file("run.json"), cfg);
  const auto r = run_cli("run " + q(dir.file("run.json")) + " --out " + q(dir.file("out")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "run.json: q: must be <= N = 4 (the number of candidates), got 5"))
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/state.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/run.json")));
}

TEST(CliOptimizer, BestTellAndASecondRunWhileACommandRunIsEvaluating) {
  // Round 2's program waits (at most 30 s) for the file "go"; meanwhile `best` and `tell` work on
  // the run's state (the run holds the state's lock only around its reads and writes), a second
  // run on the same folder is refused like a busy experiment folder (exit 2, naming the pid), and
  // the run keeps the point told from outside: it counts toward T.
  TempDir dir;
  const std::string wait_go = "if [ \"$GPBANDIT_ROUND\" = 2 ]; then touch '" + dir.file("waiting") +
                              "'; i=0; while [ ! -e '" + dir.file("go") +
                              "' ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; fi; " +
                              kAwk;
  const std::string cfg = command_config(dir, wait_go, 4, 1);
  write_file(dir.file("p.csv"), "x0,x1\n0.5,0.5\n");
  write_file(dir.file("y.csv"), "0.25\n");
  const std::string cli = std::string("'") + GPB_CLI_PATH + "'";
  const std::string out = dir.file("out"), state = dir.file("out/state.json");
  const auto r = run_command(
      cli + " run " + q(cfg) + " --out " + q(out) + " --quiet > " + q(dir.file("run.log")) +
      " 2>&1 & pid=$!; i=0; while [ ! -e " + q(dir.file("waiting")) +
      " ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; " + cli + " best " + q(state) +
      " --lock-timeout 5; echo best_rc=$?; " + cli + " tell " + q(state) + " " +
      q(dir.file("p.csv")) + " " + q(dir.file("y.csv")) + " --lock-timeout 5; echo tell_rc=$?; " +
      cli + " run " + q(cfg) + " --out " + q(out) + " --resume 2>&1; echo second_rc=$?; touch " +
      q(dir.file("go")) + "; wait $pid; echo run_rc=$?");
  EXPECT_TRUE(contains(r.output, "best_rc=0")) << r.output;
  EXPECT_TRUE(contains(r.output, "x0,x1,y\n")) << r.output;
  EXPECT_TRUE(contains(r.output, "tell_rc=0")) << r.output;
  EXPECT_TRUE(contains(r.output, "output directory " + out + " is in use by pid ")) << r.output;
  EXPECT_TRUE(contains(r.output, "second_rc=2")) << r.output;
  EXPECT_TRUE(contains(r.output, "run_rc=0")) << r.output << read_file(dir.file("run.log"));
  const gpb::Optimizer opt = gpb::Optimizer::load(state);
  EXPECT_EQ(opt.num_observations(), 4);
  EXPECT_TRUE(contains(read_file(dir.file("out/evaluations.csv")), ",0.5,0.5,0.25\n"))
      << read_file(dir.file("out/evaluations.csv"));
}

}  // namespace
