// The pipeline's run-time guarantees, driving the built CLI for every family: one run per output
// folder (flock), SIGINT then --resume byte-identical (finite, dp-gibo, fed-pne), checkpoints
// refused or deleted only on request, the memory-budget plan, and bad input that used to crash or
// pass silently (a huge grid, a non-PSD kernel, negative or overflowing seeds, OS errors).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpb::test::read_file;
using gpb::test::TempDir;
using gpb::test::write_file;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

/// A finite-domain config of several units (lockstep 1: one unit per run and policy).
json finite_config(int runs, int T) {
  json j = json::parse(R"({
    "name": "pipe", "seed": 5, "backend": "cpu", "lockstep": 1, "threads": 1,
    "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [40, 40]},
    "kernel": {"type": "se", "lengthscale": 0.2},
    "objective": {"type": "rkhs", "support": 20},
    "noise": {"type": "gaussian", "sd": 0.1},
    "policies": [{"type": "gp_ucb", "label": "GP-UCB"}, {"type": "random"}]
  })");
  j["runs"] = runs;
  j["T"] = T;
  return j;
}

json dpgibo_config(int runs) {
  json j = json::parse(R"({
    "experiment": "dp-gibo", "name": "pipe-dp", "seed": 3, "lockstep": 1, "threads": 1,
    "privacy_noise": "seeded", "eval_noise_sd": 0.05, "theta0": "uniform",
    "task": {"type": "normal_location", "d": 3, "n": 40},
    "methods": [{"type": "dp_gibo", "label": "DP", "mu": 1, "B": 1, "T": 12, "b": 4,
                 "n_cand": 64},
                {"type": "random_search", "label": "random", "match": "DP"}]
  })");
  j["runs"] = runs;
  return j;
}

json fedpne_config(int runs) {
  json j = json::parse(R"({
    "experiment": "fed-pne", "name": "pipe-fed", "seed": 2, "lockstep": 1, "threads": 1,
    "horizon": 20000, "clients": 4, "privacy_noise": "seeded",
    "objective": {"type": "garland"},
    "methods": [{"type": "dp-fed-pne", "label": "DP-Fed-PNE"}, {"type": "hct", "label": "HCT"}]
  })");
  j["runs"] = runs;
  return j;
}

std::string write_config(const TempDir& dir, const json& j, const std::string& name) {
  write_file(dir.file(name), j.dump(2));
  return dir.file(name);
}

/// A started `gpbandit run cfg --out out --no-plot [extra...]`, stderr into `err`, with the
/// environment variables `env` ("NAME=value") added.
pid_t spawn(const std::string& cfg, const std::string& out, const std::string& err,
            std::vector<std::string> extra = {}, std::vector<std::string> env = {}) {
  std::vector<std::string> args = {GPB_CLI_PATH, "run", cfg, "--out", out, "--no-plot"};
  args.insert(args.end(), extra.begin(), extra.end());
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  std::vector<char*> argv, envp;  // built before fork: the child only calls exec
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(null, 1);
    ::dup2(e, 2);
    ::execve(GPB_CLI_PATH, argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

/// Exit code of a finished child (128 + signal when a signal ended it).
int wait_code(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Runs to the end; returns the exit code.
int run_to_end(const std::string& cfg, const std::string& out, const std::string& err,
               std::vector<std::string> extra = {}) {
  return wait_code(spawn(cfg, out, err, std::move(extra)));
}

bool wait_for(const std::string& path, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (!fs::exists(path)) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return true;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Pipeline, ASecondRunOnTheSameFolderIsRefusedWhileTheFirstCompletes) {
  TempDir dir;
  const std::string cfg = write_config(dir, finite_config(6, 120), "c.json");
  ASSERT_EQ(run_to_end(cfg, dir.file("ref"), dir.file("ref.err"), {"--quiet"}), 0);
  const pid_t a = spawn(cfg, dir.file("out"), dir.file("a.err"), {"--quiet"});
  ASSERT_TRUE(wait_for(dir.file("out/.checkpoint/state.json"), 60));
  ::kill(a, SIGSTOP);  // A holds the lock, mid-run, for as long as B needs
  const int b = run_to_end(cfg, dir.file("out"), dir.file("b.err"), {"--quiet", "--force"});
  ::kill(a, SIGCONT);
  const std::string b_err = read_file(dir.file("b.err"));
  EXPECT_EQ(b, 2) << b_err;
  EXPECT_TRUE(contains(b_err, "is in use by pid " + std::to_string(a))) << b_err;
  EXPECT_EQ(wait_code(a), 0) << read_file(dir.file("a.err"));
  EXPECT_EQ(read_file(dir.file("out/runs.csv")), read_file(dir.file("ref/runs.csv")));
  // Once A is done the folder is free again (the lock file stays, unlocked).
  EXPECT_EQ(run_to_end(cfg, dir.file("out"), dir.file("c.err"), {"--quiet"}), 0);
}

/// summary.json without what measures time (timings, per-policy seconds): what must not depend
/// on being interrupted and resumed.
json without_times(json j) {
  if (j.is_object()) {
    for (const char* k : {"timings", "seconds", "total_seconds"}) j.erase(k);
    for (auto& el : j.items()) el.value() = without_times(el.value());
  } else if (j.is_array()) {
    for (auto& v : j) v = without_times(v);
  }
  return j;
}

/// Starts `cfg` paused (SIGSTOP) right after its `units`-th saved unit (0: once its signal handler
/// is installed, before it writes anything), sends `sig` and lets it go on: the same moment on a
/// fast or a slow machine. Returns the exit code; stderr is in `err`.
int signal_at(const std::string& cfg, const std::string& out, const std::string& err, int units,
              int sig) {
  const pid_t pid =
      spawn(cfg, out, err, {"--quiet"}, {"GPB_TEST_PAUSE_AFTER_UNITS=" + std::to_string(units)});
  int status = 0;
  while (::waitpid(pid, &status, WUNTRACED) < 0 && errno == EINTR) {
  }
  if (!WIFSTOPPED(status)) {  // ended before the pause: report how
    ADD_FAILURE() << "not paused after " << units << " units: " << read_file(err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  ::kill(pid, sig);
  ::kill(pid, SIGCONT);
  return wait_code(pid);
}

/// The outputs of `out` equal those of `ref` (`files` byte for byte, summary.json but for its
/// timings), and no checkpoint is left.
void expect_same_outputs(const std::string& out, const std::string& ref,
                         const std::vector<std::string>& files, const std::string& what) {
  for (const std::string& f : files) {
    EXPECT_EQ(read_file(out + "/" + f), read_file(ref + "/" + f)) << f << " " << what;
  }
  const json got = without_times(json::parse(read_file(out + "/summary.json")));
  const json want = without_times(json::parse(read_file(ref + "/summary.json")));
  EXPECT_EQ(got.dump(1), want.dump(1)) << "summary.json " << what;
  EXPECT_FALSE(fs::exists(out + "/.checkpoint")) << what;
}

/// SIGINT after the first saved unit, SIGTERM after the second, then --resume: the outputs equal
/// an uninterrupted run's; a rerun without --resume is refused in between. A SIGINT before
/// anything is written says so and leaves no checkpoint.
void interrupt_then_resume(const json& config, const std::vector<std::string>& files) {
  TempDir dir;
  const std::string cfg = write_config(dir, config, "c.json");
  const std::string ref = dir.file("ref");
  ASSERT_EQ(run_to_end(cfg, ref, dir.file("ref.err"), {"--quiet"}), 0)
      << read_file(dir.file("ref.err"));
  for (const auto& [units, sig] : {std::pair{1, SIGINT}, std::pair{2, SIGTERM}}) {
    const std::string out = dir.file("out" + std::to_string(units));
    const std::string err = dir.file("err" + std::to_string(units));
    const bool term = sig == SIGTERM;
    EXPECT_EQ(signal_at(cfg, out, err, units, sig), term ? 143 : 130) << read_file(err);
    const std::string text = read_file(err);
    EXPECT_TRUE(contains(text, term ? "terminated (SIGTERM)" : "interrupted (SIGINT)")) << text;
    EXPECT_TRUE(contains(text, "Saved in " + out + "/.checkpoint")) << text;
    EXPECT_TRUE(contains(text, "--out " + out + " --resume")) << text;
    // Without --resume the checkpoint is neither used nor deleted.
    EXPECT_EQ(run_to_end(cfg, out, err, {"--quiet"}), 2) << read_file(err);
    const std::string refusal = read_file(err);
    EXPECT_TRUE(contains(refusal, "--resume") && contains(refusal, "--force")) << refusal;
    EXPECT_TRUE(fs::exists(out + "/.checkpoint/state.json"));
    EXPECT_EQ(run_to_end(cfg, out, err, {"--quiet", "--resume"}), 0) << read_file(err);
    expect_same_outputs(out, ref, files, "after unit " + std::to_string(units));
  }
  const std::string out = dir.file("out0"), err = dir.file("err0");
  EXPECT_EQ(signal_at(cfg, out, err, 0, SIGINT), 130) << read_file(err);
  EXPECT_TRUE(contains(read_file(err), "Nothing was written to " + out)) << read_file(err);
  EXPECT_FALSE(fs::exists(out + "/.checkpoint"));
  EXPECT_EQ(run_to_end(cfg, out, err, {"--quiet"}), 0) << read_file(err);
  expect_same_outputs(out, ref, files, "before the lock");
}

TEST(Pipeline, SigintThenResumeIsByteIdenticalFinite) {
  interrupt_then_resume(finite_config(6, 150), {"runs.csv"});
}

TEST(Pipeline, SigintThenResumeIsByteIdenticalDpGibo) {
  interrupt_then_resume(dpgibo_config(6), {"runs.csv"});
}

TEST(Pipeline, SigintThenResumeIsByteIdenticalFedPne) {
  interrupt_then_resume(fedpne_config(6), {"runs.csv", "phases.csv"});
}

// A signal sent the moment the checkpoint appears lands wherever the run is, up to its last
// write: it is always handled (exit 130 with the message, or the run had already ended with 0),
// and what it leaves resumes to the uninterrupted outputs.
TEST(Pipeline, SignalRightAfterTheCheckpointAppearsIsHandled) {
  TempDir dir;
  const std::string cfg = write_config(dir, finite_config(3, 40), "c.json");
  const std::string ref = dir.file("ref");
  ASSERT_EQ(run_to_end(cfg, ref, dir.file("ref.err"), {"--quiet"}), 0);
  int handled = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const std::string out = dir.file("out" + std::to_string(trial));
    const std::string err = dir.file("err" + std::to_string(trial));
    const pid_t pid = spawn(cfg, out, err, {"--quiet"});
    ASSERT_TRUE(wait_for(out + "/.checkpoint/state.json", 120)) << read_file(err);
    ::kill(pid, SIGINT);
    const int code = wait_code(pid);
    const std::string text = read_file(err);
    ASSERT_TRUE(code == 0 || code == 130) << code << " " << text;
    if (code == 130) {
      ++handled;
      EXPECT_TRUE(contains(text, "interrupted (SIGINT). Saved in " + out) ||
                  contains(text, "interrupted (SIGINT). The run had finished"))
          << text;
    }
    if (fs::exists(out + "/.checkpoint")) {
      EXPECT_EQ(run_to_end(cfg, out, err, {"--quiet", "--resume"}), 0) << read_file(err);
    }
    expect_same_outputs(out, ref, {"runs.csv"}, "trial " + std::to_string(trial));
  }
  std::cout << "[pipeline] " << handled << " of 5 signals landed before the run ended\n";
}

TEST(Pipeline, ResumeAndForceSayWhatTheyDo) {
  TempDir dir;
  const std::string cfg = write_config(dir, finite_config(2, 10), "c.json");
  const std::string out = dir.file("out"), err = dir.file("err");
  // --resume on an empty folder: nothing to resume.
  EXPECT_EQ(run_to_end(cfg, out, err, {"--resume"}), 2);
  EXPECT_TRUE(contains(read_file(err), "nothing to resume")) << read_file(err);
  ASSERT_EQ(run_to_end(cfg, out, err, {"--quiet"}), 0);
  // --resume on the finished folder of this config: says so, runs nothing.
  const auto before = fs::last_write_time(out + "/runs.csv");
  EXPECT_EQ(gpb::test::run_cli("run '" + cfg + "' --out '" + out + "' --resume").exit_code, 0);
  EXPECT_TRUE(contains(gpb::test::run_cli("run '" + cfg + "' --out '" + out + "' --resume").output,
                       "nothing to resume: " + out + " already holds the finished results"));
  EXPECT_EQ(fs::last_write_time(out + "/runs.csv"), before);
  // Of another config (another seed): nothing to resume, exit 2.
  const auto other = gpb::test::run_cli("run '" + cfg + "' --out '" + out + "' --resume --seed 9");
  EXPECT_EQ(other.exit_code, 2) << other.output;
  // A checkpoint (stopped after one unit) of another seed is refused by --resume.
  const auto stop =
      gpb::test::run_command("GPB_TEST_STOP_AFTER_GROUPS=1 '" + std::string(GPB_CLI_PATH) +
                             "' run '" + cfg + "' --quiet --no-plot --out '" + out + "' --force");
  EXPECT_EQ(stop.exit_code, 75) << stop.output;
  const auto wrong = gpb::test::run_cli("run '" + cfg + "' --out '" + out + "' --resume --seed 9");
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_TRUE(contains(wrong.output,
                       "belongs to a different experiment: seed (the config's seed "
                       "or --seed): 5 in the checkpoint, 9 now"))
      << wrong.output;
  // Rows altered behind the checkpoint's back are detected.
  write_file(out + "/.checkpoint/rows-p0-r0.csv", "0,GP-UCB,1,0,0,0,0,0\n");
  const auto altered = gpb::test::run_cli("run '" + cfg + "' --out '" + out + "' --resume");
  EXPECT_EQ(altered.exit_code, 1) << altered.output;
  EXPECT_TRUE(contains(altered.output, "does not match its state.json")) << altered.output;
  // --force deletes it and starts over.
  EXPECT_EQ(run_to_end(cfg, out, err, {"--quiet", "--force"}), 0) << read_file(err);
  EXPECT_FALSE(fs::exists(out + "/.checkpoint"));
}

TEST(Pipeline, MemoryBudgetPicksTheLargestGroupThatFitsThenRecompute) {
  // N = 1600, T = 40: V of one run = 1600·40·8 B = 512000 B.
  TempDir dir;
  json j = finite_config(4, 40);
  j.erase("lockstep");
  std::vector<std::string> csv;
  for (double mb : {64.0, 1.0, 0.3}) {  // all 4 runs; 2 runs (1048576 B); recompute mode
    j["memory_budget_mb"] = mb;
    const std::string cfg = write_config(dir, j, "m.json");
    const std::string out = dir.file("m" + std::to_string(csv.size()));
    const std::string err = dir.file("err");
    ASSERT_EQ(run_to_end(cfg, out, err, {"--quiet"}), 0) << read_file(err);
    const json memory = json::parse(read_file(out + "/summary.json"))["memory"];
    const std::string note = read_file(err);
    if (mb == 64.0) {
      EXPECT_FALSE(contains(note, "memory:")) << note;
      EXPECT_EQ(memory["mode"], "incremental");
    } else if (mb == 1.0) {
      EXPECT_TRUE(contains(note, "gpbandit: warning: memory: V = R·N·T·8 B (N = 1600, T = 40)"))
          << note;
      EXPECT_TRUE(contains(note, "at most 2 runs at a time")) << note;
      EXPECT_EQ(memory["max_lockstep"], 2);
      for (const auto& g : memory["groups"]) EXPECT_LE(g.get<int>(), 2);
    } else {
      EXPECT_TRUE(contains(note, "recompute mode")) << note;
      // said once, by the plan: not again by each posterior of each unit
      EXPECT_EQ(note.find("recompute mode"), note.rfind("recompute mode")) << note;
      EXPECT_EQ(memory["mode"], "recompute");
    }
    csv.push_back(read_file(out + "/runs.csv"));
  }
  EXPECT_EQ(csv[1], csv[0]);  // neither the grouping nor recompute mode changes a result
  EXPECT_EQ(csv[2], csv[0]);
}

TEST(Pipeline, AutomaticGroupsKeepCheckpointsFrequent) {
  // lockstep 0: a first run alone, then as many runs as take ~2 minutes (all the rest here);
  // with a 1 ms target every run is its own group, so a checkpoint follows every run.
  TempDir dir;
  json j = finite_config(5, 20);
  j.erase("lockstep");
  const std::string cfg = write_config(dir, j, "g.json");
  ASSERT_EQ(run_to_end(cfg, dir.file("a"), dir.file("err"), {"--quiet"}), 0);
  EXPECT_EQ(json::parse(read_file(dir.file("a/summary.json")))["memory"]["groups"],
            json::parse("[1, 4]"));
  const auto r =
      gpb::test::run_command("GPB_TEST_GROUP_SECONDS=0.000001 '" + std::string(GPB_CLI_PATH) +
                             "' run '" + cfg + "' --quiet --no-plot --out '" + dir.file("b") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(json::parse(read_file(dir.file("b/summary.json")))["memory"]["groups"],
            json::parse("[1, 1, 1, 1, 1]"));
  EXPECT_EQ(read_file(dir.file("b/runs.csv")), read_file(dir.file("a/runs.csv")));
}

/// Exit code and output of `gpbandit run` on config `j` (written to dir/c.json) plus `flags`.
gpb::test::CommandResult run_json(const TempDir& dir, const json& j, const std::string& flags) {
  write_file(dir.file("c.json"), j.dump());
  return gpb::test::run_cli("run '" + dir.file("c.json") + "' --quiet --no-plot --out '" +
                            dir.file("o") + "' " + flags);
}

TEST(Pipeline, AGridThatCannotFitIsRefusedBeforeAnythingIsAllocated) {
  TempDir dir;
  json j = finite_config(1, 5);
  j["domain"]["counts"] = {40000, 25000};  // N = 10^9
  const auto t0 = Clock::now();
  const auto r = run_json(dir, j, "");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "domain.counts: N = 1000000000 candidates need at least 56 GB"))
      << r.output;
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 20.0);
  EXPECT_FALSE(fs::exists(dir.file("o")));
}

TEST(Pipeline, APrecomputedKernelMustBePositiveSemiDefinite) {
  TempDir dir;
  write_file(dir.file("K.csv"), "1,2,0\n2,1,0\n0,0,1\n");  // eigenvalues 3, 1, -1
  json j = finite_config(1, 5);
  j["domain"] = {{"type", "indices"}, {"n", 3}};
  j["kernel"] = {{"type", "precomputed"}, {"path", "K.csv"}};
  const auto r = run_json(dir, j, "");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "kernel.path: " + dir.file("K.csv") +
                                     " is not positive semi-definite: smallest eigenvalue -1"))
      << r.output;
  write_file(dir.file("K.csv"), "2,1,0\n1,2,0\n0,0,1\n");  // PSD: accepted
  EXPECT_EQ(run_json(dir, j, "").exit_code, 0);
}

TEST(Pipeline, NegativeOrOverflowingSeedsExitTwo) {
  TempDir dir;
  const json j = finite_config(1, 3);
  for (const char* flag : {"--seed -1", "--seed 18446744073709551616", "--seed 1.5", "--seed x"}) {
    const auto r = run_json(dir, j, flag);
    EXPECT_EQ(r.exit_code, 2) << flag << ": " << r.output;
    EXPECT_TRUE(contains(r.output, "seed")) << flag << ": " << r.output;
  }
  EXPECT_EQ(run_json(dir, j, "--seed 18446744073709551615").exit_code, 0);
  for (const char* seed : {"-1", "1e30", "18446744073709551616"}) {
    json bad = j;
    bad["seed"] = json::parse(seed);
    const auto r = run_json(dir, bad, "");
    EXPECT_EQ(r.exit_code, 2) << seed << ": " << r.output;
    EXPECT_TRUE(contains(r.output, "c.json: seed:")) << seed << ": " << r.output;
  }
  json fed = fedpne_config(1);
  fed["seed"] = -3;  // every family reads its seed with the same rule
  EXPECT_EQ(run_json(dir, fed, "").exit_code, 2);
}

TEST(Pipeline, OsErrorsNameThePathAndTheTrueReason) {
  TempDir dir;
  const json j = finite_config(1, 3);
  write_file(dir.file("c.json"), j.dump());
  const auto r =
      gpb::test::run_cli("run '" + dir.file("c.json") + "' --quiet --out /proc/gpbandit-out");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "/proc/gpbandit-out")) << r.output;
  EXPECT_FALSE(contains(r.output, "Success")) << r.output;
  EXPECT_TRUE(contains(r.output, "No such file or directory") ||
              contains(r.output, "Permission denied") || contains(r.output, "not permitted"))
      << r.output;
}

}  // namespace
