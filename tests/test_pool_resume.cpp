// --resume of a pool run folder (tests/data/pool: 1000 molecules of Enamine 10k, atom-pair
// fingerprints from the committed cache): a run stopped after some finished units and resumed
// writes the same acquired.csv, the same evaluations in runs.csv (every column but the timings)
// and the same summary statistics as an uninterrupted run; a checkpoint from a gpbandit older
// than acquired.csv (one file per unit) is refused with one line that says why and what to do.
// Deterministic (fixed seeds; GPB_TEST_STOP_AFTER_GROUPS stops the CLI after a unit is saved).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

/// The smoke config with its data paths made absolute: three runs, one per checkpointed unit,
/// GP-BUCB and pathwise Thompson sampling (which draws from its own random stream).
std::string write_config(const gpb::test::TempDir& dir) {
  const std::string data = std::string(GPB_SOURCE_DIR) + "/tests/data/pool";
  json cfg = json::parse(gpb::test::read_file(data + "/smoke.json"));
  cfg["domain"]["file"] = data + "/enamine10k_1000.csv";
  cfg["domain"]["cache"] = data + "/fingerprints";
  cfg["runs"] = 3;
  cfg["lockstep"] = 1;
  cfg["batches"] = 3;
  cfg["policies"] = json::array({{{"type", "gp_bucb"}, {"beta", 2}}, {{"type", "thompson"}}});
  const std::string path = dir.file("c.json");
  gpb::test::write_file(path, cfg.dump());
  return path;
}

gpb::test::CommandResult run(const std::string& cfg, const std::string& out,
                             const std::string& flags, int stop_after = 0) {
  const std::string env =
      stop_after > 0 ? "GPB_TEST_STOP_AFTER_GROUPS=" + std::to_string(stop_after) + " " : "";
  return gpb::test::run_command(env + "'" + GPB_CLI_PATH + "' run '" + cfg + "' --out '" + out +
                                "' --quiet --no-plot " + flags);
}

/// runs.csv without the timing columns (fit, acquire, update and acquire CPU seconds), which
/// differ from run to run.
std::string evaluations(const std::string& runs_csv) {
  std::istringstream in(gpb::test::read_file(runs_csv));
  std::string line, out;
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string cell;
    for (int i = 0; i < 7 && std::getline(cells, cell, ','); ++i) out += cell + ",";
    out += "\n";
  }
  return out;
}

/// Each policy's found_scores and found_molecules statistics from summary.json.
json found(const std::string& summary) {
  json out = json::array();
  for (const json& p : json::parse(gpb::test::read_file(summary)).at("policies")) {
    out.push_back({p.at("label"), p.at("found_scores"), p.at("found_molecules")});
  }
  return out;
}

TEST(PoolResume, StoppedAndResumedRunGivesTheUninterruptedOutputs) {
  const gpb::test::TempDir dir;
  const std::string cfg = write_config(dir);
  const std::string ref = dir.file("ref"), out = dir.file("out");
  const auto full = run(cfg, ref, "");
  ASSERT_EQ(full.exit_code, 0) << full.output;
  const std::string kept = "policy,run,batch,evaluated,found_scores,found_molecules,best,\n";
  ASSERT_EQ(evaluations(ref + "/runs.csv").substr(0, kept.size()), kept)
      << "the columns this test keeps";

  // Two of the six units (GP-BUCB's runs 0 and 1), then one more in a second invocation.
  ASSERT_EQ(run(cfg, out, "", 2).exit_code, 75);
  EXPECT_FALSE(fs::exists(out + "/acquired.csv"));  // nothing final before the end
  ASSERT_EQ(run(cfg, out, "--resume", 1).exit_code, 75);
  const auto resumed = run(cfg, out, "--resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;

  EXPECT_EQ(gpb::test::read_file(out + "/acquired.csv"),
            gpb::test::read_file(ref + "/acquired.csv"));
  EXPECT_EQ(evaluations(out + "/runs.csv"), evaluations(ref + "/runs.csv"));
  EXPECT_EQ(found(out + "/summary.json"), found(ref + "/summary.json"));
  EXPECT_FALSE(fs::exists(out + "/.checkpoint"));
}

TEST(PoolResume, CheckpointWithoutAcquiredCsvIsRefusedInOneLine) {
  const gpb::test::TempDir dir;
  const std::string cfg = write_config(dir);
  const std::string out = dir.file("out");
  ASSERT_EQ(run(cfg, out, "", 2).exit_code, 75);
  // What a gpbandit from before acquired.csv left: one file (runs.csv rows) per unit.
  const std::string state_path = out + "/.checkpoint/state.json";
  json state = json::parse(gpb::test::read_file(state_path));
  ASSERT_EQ(state.at("units").size(), 2u);
  for (json& unit : state.at("units")) {
    ASSERT_EQ(unit.at("files").size(), 2u);
    unit["files"].erase(1);
  }
  gpb::test::write_file(state_path, state.dump());
  for (const auto& e : fs::directory_iterator(out + "/.checkpoint")) {
    if (e.path().filename().string().rfind("extra1-", 0) == 0) fs::remove(e.path());
  }

  const auto refused = run(cfg, out, "--resume");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_EQ(std::count(refused.output.begin(), refused.output.end(), '\n'), 1) << refused.output;
  for (const char* part : {"holds 1 (runs.csv) file(s) per finished unit",
                           "writes 2 (runs.csv, acquired.csv)", "--force"}) {
    EXPECT_NE(refused.output.find(part), std::string::npos) << part << "\n" << refused.output;
  }
  EXPECT_TRUE(fs::exists(state_path)) << "a refused --resume leaves the checkpoint as it was";
  const auto fresh = run(cfg, out, "--force");
  EXPECT_EQ(fresh.exit_code, 0) << fresh.output;
  EXPECT_TRUE(fs::exists(out + "/acquired.csv"));
}

}  // namespace
