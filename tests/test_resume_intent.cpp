// Resume that matches intent (#29 item 3): --resume compares the keys that define a run, not the
// config's text (comments, whitespace, name, threads, lockstep, memory budget; for a command
// objective also T, cmd and timeout_s may change); a refusal names the key and both values; a
// successful resume says "restored" once. And the asks of a state file: `forget`, `ask --out`
// that commits only once the points are written, and told points within a tolerance of an ask.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "gpbandit/optimizer/optimizer.hpp"
#include "shell_quote.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpb::test::contains;
using gpb::test::q;
using gpb::test::read_file;
using gpb::test::run_cli;
using gpb::test::run_command;
using gpb::test::TempDir;
using gpb::test::write_file;
using nlohmann::json;

int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (auto p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
}

const char* kFinite = R"({
  "name": "intent", "seed": 5, "backend": "cpu", "lockstep": 1, "threads": 1, "runs": 3, "T": 8,
  "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [12, 12]},
  "kernel": {"type": "se", "lengthscale": 0.2},
  "objective": {"type": "rkhs", "support": 10},
  "noise": {"type": "gaussian", "sd": 0.1},
  "policies": [{"type": "gp_ucb", "label": "GP-UCB", "beta": {"type": "constant", "value": 2}},
               {"type": "random"}]
})";

/// Runs the finite config in `text` into `out`, stopping after `units` units (exit 75).
gpb::test::CommandResult run_stopped(const TempDir& dir, const std::string& text,
                                     const std::string& out, int units) {
  write_file(dir.file("c.json"), text);
  return run_command("GPB_TEST_STOP_AFTER_GROUPS=" + std::to_string(units) + " " + q(GPB_CLI_PATH) +
                     " run " + q(dir.file("c.json")) + " --no-plot --quiet --out " + q(out));
}

TEST(ResumeIntent, CommentsNameAndResourcesMayChangeAndRestoredIsSaidOnce) {
  TempDir dir;
  const std::string out = dir.file("out");
  ASSERT_EQ(run_stopped(dir, kFinite, out, 2).exit_code, 75);
  // The same experiment, written differently: comments, whitespace, key order, another name,
  // description, threads, lockstep and memory budget.
  json j = json::parse(kFinite);
  j["name"] = "renamed";
  j["description"] = "after the interruption";
  j["threads"] = 2;
  j["lockstep"] = 0;
  j["memory_budget_mb"] = 512;
  write_file(dir.file("c.json"), "// edited\n" + j.dump(4) + "\n/* trailing */\n");
  const auto r = run_cli("run " + q(dir.file("c.json")) + " --no-plot --resume --out " + q(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "gpbandit: restored "), 1) << r.output;
  EXPECT_TRUE(contains(r.output, "restored 2 units from " + out + "/.checkpoint")) << r.output;
  // Byte-identical to an uninterrupted run of the original text.
  write_file(dir.file("o.json"), kFinite);
  ASSERT_EQ(
      run_cli("run " + q(dir.file("o.json")) + " --no-plot --quiet --out " + q(dir.file("ref")))
          .exit_code,
      0);
  EXPECT_EQ(read_file(out + "/runs.csv"), read_file(dir.file("ref") + "/runs.csv"));
}

TEST(ResumeIntent, ARefusedResumeNamesTheKeyAndBothValues) {
  TempDir dir;
  const std::string out = dir.file("out");
  ASSERT_EQ(run_stopped(dir, kFinite, out, 1).exit_code, 75);
  json j = json::parse(kFinite);
  j["policies"][0]["beta"]["value"] = 4;
  write_file(dir.file("c.json"), j.dump());
  const auto beta = run_cli("run " + q(dir.file("c.json")) + " --no-plot --resume --out " + q(out));
  EXPECT_EQ(beta.exit_code, 2) << beta.output;
  EXPECT_TRUE(contains(beta.output, "policies[0].beta.value: 2 in the checkpoint, 4 now"))
      << beta.output;
  EXPECT_EQ(count(beta.output, "\n"), 1) << beta.output;  // one line
  j = json::parse(kFinite);
  j["T"] = 20;
  write_file(dir.file("c.json"), j.dump());
  const auto t = run_cli("run " + q(dir.file("c.json")) + " --no-plot --resume --out " + q(out));
  EXPECT_EQ(t.exit_code, 2) << t.output;
  EXPECT_TRUE(contains(t.output, "T: 8 in the checkpoint, 20 now")) << t.output;
  write_file(dir.file("c.json"), kFinite);
  const auto seed =
      run_cli("run " + q(dir.file("c.json")) + " --no-plot --resume --seed 9 --out " + q(out));
  EXPECT_EQ(seed.exit_code, 2) << seed.output;
  EXPECT_TRUE(
      contains(seed.output, "seed (the config's seed or --seed): 5 in the checkpoint, 9 now"))
      << seed.output;
}

// ---------------------------------------------------------------- command objective runs

const char* kCommand = R"({
  "name": "cmd", "T": 6, "q": 2, "seed": 3,
  "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [10, 10]},
  "kernel": {"type": "matern52", "lengthscale": 0.3},
  "objective": {"type": "command", "cmd": ["sh", "f.sh"], "timeout_s": 60}
})";

/// f.sh: minus the squared distance to (0.3, 0.6) for each CSV row on stdin.
void write_objective(const TempDir& dir) {
  write_file(dir.file("f.sh"),
             "awk -F, 'NR > 1 { printf \"%.17g\\n\", -(($1 - 0.3)^2 + ($2 - 0.6)^2) }'\n");
}

TEST(ResumeIntent, ACommandRunResumesWithALargerTAndAFixedCommand) {
  TempDir dir;
  write_objective(dir);
  const std::string out = dir.file("out");
  write_file(dir.file("c.json"), kCommand);
  const auto first = run_cli("run " + q(dir.file("c.json")) + " --quiet --out " + q(out));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  // A larger T, another timeout, another name, a comment, and cmd written another way.
  json j = json::parse(kCommand);
  j["T"] = 10;
  j["name"] = "longer";
  j["objective"]["timeout_s"] = 120;
  j["objective"]["cmd"] = json::array({"/bin/sh", "./f.sh"});
  write_file(dir.file("c.json"), "/* more */ " + j.dump(1));
  const auto more = run_cli("run " + q(dir.file("c.json")) + " --resume --out " + q(out));
  ASSERT_EQ(more.exit_code, 0) << more.output;
  EXPECT_EQ(count(more.output, "gpbandit: restored 6 evaluations from "), 1) << more.output;
  EXPECT_EQ(gpb::Optimizer::load(out + "/state.json").num_observations(), 10);
  // The same 10 evaluations as a run with T = 10 from the start.
  j["name"] = "ref";
  write_file(dir.file("r.json"), j.dump());
  ASSERT_EQ(
      run_cli("run " + q(dir.file("r.json")) + " --quiet --out " + q(dir.file("ref"))).exit_code,
      0);
  EXPECT_EQ(read_file(out + "/evaluations.csv"), read_file(dir.file("ref") + "/evaluations.csv"));
  // One summary.json schema: the pipeline's envelope fields are there.
  const json s = json::parse(read_file(out + "/summary.json"));
  for (const char* key : {"name", "experiment", "version", "build", "backend", "config",
                          "config_hash", "seed", "runs", "timings"}) {
    EXPECT_TRUE(s.contains(key)) << key;
  }
  EXPECT_EQ(s["experiment"], "command");
  EXPECT_GT(s["timings"]["total_seconds"].get<double>(), 0);
  // Another acquisition is another optimizer: refused, naming it.
  j = json::parse(kCommand);
  j["T"] = 12;
  j["acquisition"] = {{"type", "ei"}};
  write_file(dir.file("c.json"), j.dump());
  const auto other = run_cli("run " + q(dir.file("c.json")) + " --resume --out " + q(out));
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_TRUE(
      contains(other.output, "acquisition.type: \"ucb\" in " + out + "/run.json, \"ei\" now"))
      << other.output;
}

// ---------------------------------------------------------------- asks of a state file

const char* kState = R"({
  "domain": {"type": "grid", "lower": [0, 0], "upper": [2, 3], "counts": [30, 30]},
  "kernel": {"type": "matern52", "lengthscale": 0.5}, "seed": 2
})";

TEST(ResumeIntent, ForgetReleasesAsksSoThatEveryCandidateCanBeAskedAgain) {
  TempDir dir;
  write_file(dir.file("c.json"),
             R"({"domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [4]}})");
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("c.json")) + " " + q(state)).exit_code, 0);
  ASSERT_EQ(run_cli("ask " + q(state) + " --q 4 --out " + q(dir.file("p.csv"))).exit_code, 0);
  const auto full = run_cli("ask " + q(state));
  EXPECT_EQ(full.exit_code, 2) << full.output;  // every candidate is outstanding
  // Release two of them by their points, then the rest with --all.
  write_file(dir.file("two.csv"), "x0\n0\n0.66666699999999999\n");
  const auto two = run_cli("forget " + q(state) + " " + q(dir.file("two.csv")));
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_TRUE(contains(two.output, "released 2 asks (2 still outstanding)")) << two.output;
  EXPECT_EQ(gpb::Optimizer::load(state).pending().size(), 2u);
  const auto again = run_cli("forget " + q(state) + " " + q(dir.file("two.csv")));
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_TRUE(contains(again.output, "matches no outstanding ask")) << again.output;
  ASSERT_EQ(run_cli("forget " + q(state) + " --all").exit_code, 0);
  EXPECT_TRUE(gpb::Optimizer::load(state).pending().empty());
  EXPECT_EQ(run_cli("ask " + q(state) + " --q 4").exit_code, 0);
  EXPECT_EQ(run_cli("forget " + q(state)).exit_code, 2);  // neither --all nor points
}

TEST(ResumeIntent, AskCommitsOnlyOnceTheOutputIsWritten) {
  TempDir dir;
  write_file(dir.file("c.json"), kState);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("c.json")) + " " + q(state)).exit_code, 0);
  const std::string before = read_file(state);
  const auto r = run_cli("ask " + q(state) + " --out " + q(dir.file("no/such/dir/p.csv")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "nothing was asked")) << r.output;
  EXPECT_EQ(read_file(state), before);  // no outstanding ask recorded
  // A closed stdout: the same.
  const auto closed = run_command(q(GPB_CLI_PATH) + " ask " + q(state) + " >&-");
  EXPECT_NE(closed.exit_code, 0) << closed.output;
  EXPECT_EQ(read_file(state), before);
}

TEST(ResumeIntent, PointsToldWithSixDigitsAnswerTheirAsks) {
  TempDir dir;
  write_file(dir.file("c.json"), kState);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("c.json")) + " " + q(state)).exit_code, 0);
  ASSERT_EQ(run_cli("ask " + q(state) + " --q 3 --out " + q(dir.file("p.csv"))).exit_code, 0);
  // printf %.6f and %.6g of the asked points, as a shell script would write them.
  ASSERT_EQ(run_command("awk -F, 'NR == 1 { print; next } NR == 2 { printf \"%.6f,%.6f\\n\", $1, "
                        "$2; next } { printf \"%.6g,%.6g\\n\", $1, $2 }' " +
                        q(dir.file("p.csv")) + " > " + q(dir.file("r.csv")))
                .exit_code,
            0);
  ASSERT_NE(read_file(dir.file("r.csv")), read_file(dir.file("p.csv")));  // really rounded
  write_file(dir.file("y.csv"), "1\n2\n3\n");
  const auto tell =
      run_cli("tell " + q(state) + " " + q(dir.file("r.csv")) + " " + q(dir.file("y.csv")));
  ASSERT_EQ(tell.exit_code, 0) << tell.output;
  const gpb::Optimizer opt = gpb::Optimizer::load(state);
  EXPECT_TRUE(opt.pending().empty());                    // all three asks answered
  for (int i : opt.observed_indices()) EXPECT_GE(i, 0);  // at the candidates, not beside them
}

TEST(ResumeIntent, APointOutsideTheBoxIsRefusedNamingIt) {
  TempDir dir;
  write_file(dir.file("c.json"), kState);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("c.json")) + " " + q(state)).exit_code, 0);
  write_file(dir.file("p.csv"), "x0,x1\n1.5,2\n150,2\n");  // a unit mistake in row 1
  write_file(dir.file("y.csv"), "1\n2\n");
  const auto r =
      run_cli("tell " + q(state) + " " + q(dir.file("p.csv")) + " " + q(dir.file("y.csv")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "point 1 = (150, 2) lies outside the candidates' bounding box"))
      << r.output;
  EXPECT_EQ(gpb::Optimizer::load(state).num_observations(), 0);  // nothing recorded
  json j = json::parse(kState);
  j["allow_outside"] = true;
  write_file(dir.file("c.json"), j.dump());
  ASSERT_EQ(run_cli("init --force " + q(dir.file("c.json")) + " " + q(state)).exit_code, 0);
  EXPECT_EQ(run_cli("tell " + q(state) + " " + q(dir.file("p.csv")) + " " + q(dir.file("y.csv")))
                .exit_code,
            0);
}

}  // namespace
