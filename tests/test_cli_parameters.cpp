// The CLI on a "parameters" domain: init → ask (labels) → tell (labels) → best (labels), the
// state file's round trip, descriptor tables from a CSV, bad configs naming the field (exit 2),
// and `gpbandit list` showing the domain type; `gpbandit run`'s results by label, and the same
// run streamed under a small memory budget; a space too big for memory refused before it is
// built; values off the space told as extra observations.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <string>

#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "shell_quote.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::contains;
using gpb::test::q;
using gpb::test::read_file;
using gpb::test::run_cli;
using gpb::test::TempDir;
using gpb::test::write_file;

const char* kConfig = R"({
  "domain": {"type": "parameters",
    "parameters": [
      {"name": "base", "type": "categorical", "labels": ["KOAc", "CsOAc", "KOPiv"]},
      {"name": "ligand", "type": "categorical", "labels": ["L1", "L2", "L3"],
       "encoding": {"descriptors": "ligands.csv"}},
      {"name": "conc", "type": "numerical", "values": [0.057, 0.1, 0.153]},
      {"name": "temp", "type": "integer", "lower": 90, "upper": 120, "step": 15}],
    "constraints": [{"type": "exclude", "when": {"base": ["KOPiv"], "temp": [120]}},
                    {"type": "linear", "params": ["conc", "temp"], "coefs": [100, 0.1],
                     "rhs": 25}]},
  "acquisition": {"type": "ei"}, "seed": 2
})";

const char* kLigands = "ligand,d1,d2\nL1,0.1,2.0\nL2,0.4,1.0\nL3,0.9,3.5\n";

/// Splits CSV text into rows of cells.
std::vector<std::vector<std::string>> cells(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> row;
    std::istringstream ls(line);
    std::string c;
    while (std::getline(ls, c, ',')) row.push_back(c);
    out.push_back(row);
  }
  return out;
}

TEST(CliParameters, AskTellAndBestSpeakLabels) {
  TempDir dir;
  write_file(dir.file("cfg.json"), kConfig);
  write_file(dir.file("ligands.csv"), kLigands);
  const std::string state = dir.file("s.json");
  const auto init = run_cli("init " + q(dir.file("cfg.json")) + " " + q(state));
  ASSERT_EQ(init.exit_code, 0) << init.output;
  // 81 raw. 100·conc + 0.1·temp ≤ 25 allows 7 (conc, temp) pairs: 0.057 and 0.1 at every temp,
  // 0.153 only at 90; KOPiv loses the 2 pairs at 120. Per ligand 3·7 − 2.
  const gpb::Optimizer opt0 = gpb::Optimizer::load(state);
  EXPECT_EQ(opt0.domain().size(), 3 * (3 * 7 - 2));
  for (int round = 0; round < 3; ++round) {
    const auto ask = run_cli("ask " + q(state) + " --q 2 --out " + q(dir.file("p.csv")));
    ASSERT_EQ(ask.exit_code, 0) << ask.output;
    const auto rows = cells(read_file(dir.file("p.csv")));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"base", "ligand", "conc", "temp"}));
    std::string y = "y\n";
    for (std::size_t i = 1; i < rows.size(); ++i) {
      EXPECT_TRUE(std::set<std::string>({"KOAc", "CsOAc", "KOPiv"}).count(rows[i][0]));
      EXPECT_TRUE(std::set<std::string>({"L1", "L2", "L3"}).count(rows[i][1]));
      EXPECT_FALSE(rows[i][0] == "KOPiv" && rows[i][3] == "120");
      y += std::to_string(rows[i][1] == "L3" ? 2.0 + i : 1.0 * i) + "\n";
    }
    write_file(dir.file("y.csv"), y);
    const auto tell =
        run_cli("tell " + q(state) + " " + q(dir.file("p.csv")) + " " + q(dir.file("y.csv")));
    ASSERT_EQ(tell.exit_code, 0) << tell.output;
  }
  const gpb::Optimizer opt = gpb::Optimizer::load(state);  // the state embeds the descriptors
  EXPECT_EQ(opt.num_observations(), 6);
  for (int i : opt.observed_indices()) EXPECT_GE(i, 0);  // labels mapped back onto candidates
  const auto best = run_cli("best " + q(state));
  ASSERT_EQ(best.exit_code, 0) << best.output;
  EXPECT_TRUE(contains(best.output, "base,ligand,conc,temp,y\n")) << best.output;
  // A label that is not one of the parameter's is named with file:line.
  write_file(dir.file("bad.csv"), "base,ligand,conc,temp\nKOAc,L9,0.1,90\n");
  write_file(dir.file("y1.csv"), "1\n");
  const auto bad =
      run_cli("tell " + q(state) + " " + q(dir.file("bad.csv")) + " " + q(dir.file("y1.csv")));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.output, "bad.csv:2: 'L9' is not a label of parameter 'ligand'"))
      << bad.output;
}

TEST(CliParameters, BadConfigsNameTheField) {
  TempDir dir;
  write_file(dir.file("ligands.csv"), kLigands);
  const std::string base = R"({"domain": {"type": "parameters", "parameters": [)";
  const std::vector<std::pair<std::string, std::string>> cases{
      {base + R"({"name": "a", "type": "colour", "labels": ["x"]}]}})",
       "domain.parameters[0].type"},
      {base + R"({"name": "a", "type": "categorical"}]}})", "domain.parameters[0].labels"},
      {base + R"({"name": "a", "type": "categorical", "labels": ["L1", "L5"],
                  "encoding": {"descriptors": "ligands.csv"}}]}})",
       "no row for label 'L5'"},
      {base + R"({"name": "a", "type": "integer", "lower": 0, "upper": 3}],
                  "constraints": [{"type": "linear", "params": ["b"], "coefs": [1], "rhs": 0}]}})",
       "domain.constraints[0].params[0]"},
      {base + R"({"name": "a", "type": "integer", "lower": 0, "upper": 3}],
                  "constraints": [{"type": "linear", "params": ["a"], "coefs": [1], "rhs": -1}]}})",
       "no combination"},
      {base + R"({"name": "a", "type": "numerical", "values": [1, 1]}]}})", "appears twice"},
  };
  for (const auto& [text, want] : cases) {
    write_file(dir.file("cfg.json"), text);
    const auto r = run_cli("init " + q(dir.file("cfg.json")) + " " + q(dir.file("s.json")));
    EXPECT_EQ(r.exit_code, 2) << text;
    EXPECT_TRUE(contains(r.output, want)) << want << " not in: " << r.output;
  }
}

TEST(CliParameters, RunGivesTheCommandCandidatesByLabel) {
  TempDir dir;
  write_file(dir.file("ligands.csv"), kLigands);
  std::string cfg = kConfig;
  cfg.insert(cfg.find('{') + 1,
             R"("name": "rxn", "T": 6, "q": 2,
  "objective": {"type": "command", "cmd": ["sh", "-c",
    "tee -a seen.csv | awk -F, 'NR > 1 { print ($1 == \"CsOAc\") + ($2 == \"L3\") + $3 }'"]},)");
  write_file(dir.file("run.json"), cfg);
  const auto r = run_cli("run " + q(dir.file("run.json")) + " --out " + q(dir.file("out")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "best y = ")) << r.output;
  EXPECT_TRUE(contains(r.output, "(base=")) << r.output;  // the best point by label
  const auto rows = cells(read_file(dir.file("seen.csv")));
  ASSERT_EQ(rows.size(), 3u * 3u);  // 3 batches: a header and 2 candidates each
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i % 3 == 0) {
      EXPECT_EQ(rows[i], (std::vector<std::string>{"base", "ligand", "conc", "temp"}));
    } else {
      EXPECT_TRUE(std::set<std::string>({"KOAc", "CsOAc", "KOPiv"}).count(rows[i][0]));
      EXPECT_TRUE(std::set<std::string>({"L1", "L2", "L3"}).count(rows[i][1]));
    }
  }
  // evaluations.csv names the parameters and holds the very values and labels the command saw,
  // in order, each with the y the command printed for them.
  const auto evals = cells(read_file(dir.file("out/evaluations.csv")));
  ASSERT_EQ(evals.size(), 7u);
  EXPECT_EQ(evals[0], (std::vector<std::string>{"evaluation", "round", "index", "base", "ligand",
                                                "conc", "temp", "y"}));
  for (std::size_t e = 1; e < evals.size(); ++e) {
    const auto& seen = rows[(e - 1) / 2 * 3 + 1 + (e - 1) % 2];
    ASSERT_EQ(evals[e].size(), 8u);
    EXPECT_EQ(std::vector<std::string>(evals[e].begin() + 3, evals[e].begin() + 7), seen);
    EXPECT_EQ(evals[e][1], std::to_string((e - 1) / 2 + 1));  // the round
    const double y = (seen[0] == "CsOAc") + (seen[1] == "L3") + std::stod(seen[2]);
    EXPECT_NEAR(std::stod(evals[e][7]), y, 1e-12) << evals[e][7];
  }
  // summary.json's best x is the point by name: labels as strings, values as numbers.
  const auto s = nlohmann::json::parse(read_file(dir.file("out/summary.json")));
  const auto& x = s.at("best").at("x");
  ASSERT_TRUE(x.is_object()) << x.dump();
  EXPECT_TRUE(
      std::set<std::string>({"KOAc", "CsOAc", "KOPiv"}).count(x.at("base").get<std::string>()));
  EXPECT_TRUE(x.at("temp").is_number_integer()) << x.dump();
  const double best =
      (x.at("base") == "CsOAc") + (x.at("ligand") == "L3") + x.at("conc").get<double>();
  EXPECT_NEAR(s.at("best").at("y").get<double>(), best, 1e-12) << s.dump();
}

// A continuous parameter refined between its grid values reaches the command as the value
// asked (not its nearest grid value), and evaluations.csv holds it with index −1.
TEST(CliParameters, RunGivesTheCommandRefinedContinuousValues) {
  TempDir dir;
  write_file(dir.file("run.json"), R"({"name": "mixed", "T": 14, "goal": "minimize", "seed": 1,
    "domain": {"type": "parameters", "parameters": [
      {"name": "cat", "type": "categorical", "labels": ["a", "b"]},
      {"name": "t", "type": "continuous", "lower": 0, "upper": 1, "count": 3}]},
    "objective": {"type": "command", "cmd": ["sh", "-c",
      "awk -F, 'NR > 1 { print ($2 - 0.37) * ($2 - 0.37) + ($1 == \"b\") }'"]}})");
  const auto r = run_cli("run " + q(dir.file("run.json")) + " --out " + q(dir.file("out")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto evals = cells(read_file(dir.file("out/evaluations.csv")));
  ASSERT_EQ(evals.size(), 15u);
  int off_grid = 0;
  for (std::size_t e = 1; e < evals.size(); ++e) {
    const double t = std::stod(evals[e][4]);
    off_grid += evals[e][2] == "-1" && t != 0 && t != 0.5 && t != 1;
    // The y the command printed is that of the value recorded, to awk's 6 digits.
    EXPECT_NEAR(std::stod(evals[e][5]), (t - 0.37) * (t - 0.37) + (evals[e][3] == "b"), 1e-5)
        << "evaluation " << e;
  }
  EXPECT_GE(off_grid, 3);
}

TEST(CliParameters, ASpaceTooBigForMemoryIsRefusedNamingItsSize) {
  // 8 slots of 14 labels, one-hot: 14^8 = 1 475 789 056 combinations of 112 features; even
  // streamed, an Optimizer would hold 33 bytes each, 48.7 GB. Refused before any allocation.
  TempDir dir;
  std::string params;
  for (int p = 0; p < 8; ++p) {
    params += std::string(p ? "," : "") + R"({"name": "s)" + std::to_string(p) +
              R"(", "type": "categorical", "labels": [)";
    for (int l = 0; l < 14; ++l) params += (l ? ",\"" : "\"") + std::to_string(l) + "\"";
    params += "]}";
  }
  write_file(dir.file("cfg.json"),
             R"({"domain": {"type": "parameters", "parameters": [)" + params + "]}}");
  const auto r = run_cli("init " + q(dir.file("cfg.json")) + " " + q(dir.file("s.json")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "domain.parameters: the space has 1475789056 feasible"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "even streamed")) << r.output;
  EXPECT_TRUE(contains(r.output, "GB of memory available")) << r.output;
}

TEST(CliParameters, ExcludeObservedFromTheConfig) {
  // "exclude_observed": true reaches the optimizer (and its saved state); a candidate told over
  // the CLI is then never asked again; a non-boolean is refused naming the field.
  TempDir dir;
  write_file(dir.file("ligands.csv"), kLigands);
  std::string cfg = kConfig;
  cfg.insert(cfg.find('{') + 1, R"("exclude_observed": true, "initial_points": 0,)");
  write_file(dir.file("cfg.json"), cfg);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("cfg.json")) + " " + q(state)).exit_code, 0);
  gpb::Optimizer opt = gpb::Optimizer::load(state);
  EXPECT_TRUE(opt.options().exclude_observed);
  const int n = opt.domain().size();
  std::vector<int> all(static_cast<std::size_t>(n) - 1);
  for (int j = 0; j + 1 < n; ++j) all[static_cast<std::size_t>(j)] = j;
  opt.tell(all, std::vector<double>(all.size(), 1.0));  // every candidate but the last
  opt.save(state);
  const auto ask = run_cli("ask " + q(state) + " --out " + q(dir.file("p.csv")));
  ASSERT_EQ(ask.exit_code, 0) << ask.output;
  const auto rows = cells(read_file(dir.file("p.csv")));
  ASSERT_EQ(rows.size(), 2u);
  const gpb::ParameterSpace& space = *opt.domain().space();
  const Eigen::VectorXd last = opt.domain().points().col(n - 1);
  const std::vector<int> lv = space.decode(last.data());
  std::vector<std::string> want;
  for (std::size_t p = 0; p < lv.size(); ++p) want.push_back(space.parameters()[p].text(lv[p]));
  EXPECT_EQ(rows[1], want);  // the one candidate not told
  const auto again = run_cli("ask " + q(state));
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_TRUE(contains(again.output, "exclude_observed")) << again.output;
  std::string bad = kConfig;
  bad.insert(bad.find('{') + 1, R"("exclude_observed": "yes",)");
  write_file(dir.file("bad.json"), bad);
  const auto r = run_cli("init " + q(dir.file("bad.json")) + " " + q(dir.file("b.json")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "exclude_observed")) << r.output;
}

TEST(CliParameters, RunStreamsASpaceOverTheMemoryBudgetAndChoosesTheSame) {
  // A memory_budget_mb below the space's materialised size (Optimizer::space_bytes: about 60
  // combinations × 145 B here, against 0.001 MB) makes `gpbandit run` stream it, by the
  // Optimizer's one rule; the run evaluates the very same candidates, in the same order, with
  // the same results.
  std::vector<std::string> evaluations;
  std::vector<bool> streamed;
  for (const std::string budget : {"", R"("memory_budget_mb": 0.001,)"}) {
    TempDir dir;
    write_file(dir.file("ligands.csv"), kLigands);
    std::string cfg = kConfig;
    cfg.insert(cfg.find('{') + 1, budget + R"("name": "rxn", "T": 10, "q": 2,
  "objective": {"type": "command", "cmd": ["sh", "-c",
    "awk -F, 'NR > 1 { print ($1 == \"CsOAc\") + ($2 == \"L3\") + $3 - $4 / 1000 }'"]},)");
    write_file(dir.file("run.json"), cfg);
    const auto r = run_cli("run " + q(dir.file("run.json")) + " --out " + q(dir.file("out")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    evaluations.push_back(read_file(dir.file("out/evaluations.csv")));
    const auto s = nlohmann::json::parse(read_file(dir.file("out/summary.json")));
    streamed.push_back(s.at("streamed").get<bool>());
  }
  EXPECT_FALSE(streamed[0]);
  EXPECT_TRUE(streamed[1]);
  EXPECT_EQ(cells(evaluations[0]).size(), 11u);  // a header and T = 10 evaluations
  EXPECT_EQ(evaluations[0], evaluations[1]);
}

TEST(CliParameters, TellAcceptsValuesOffTheSpace) {
  // A reaction run at a concentration and a temperature off their lists is an extra observation:
  // told, kept in the state, reported by `best` with its own values, never asked; an unknown
  // label (no encoding) and a cell that is not a number stay refused naming file:line.
  TempDir dir;
  write_file(dir.file("cfg.json"), kConfig);
  write_file(dir.file("ligands.csv"), kLigands);
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("cfg.json")) + " " + q(state)).exit_code, 0);
  write_file(dir.file("off.csv"), "base,ligand,conc,temp\nCsOAc,L3,0.08,100\n");
  write_file(dir.file("y.csv"), "9\n");
  const auto tell =
      run_cli("tell " + q(state) + " " + q(dir.file("off.csv")) + " " + q(dir.file("y.csv")));
  ASSERT_EQ(tell.exit_code, 0) << tell.output;
  const gpb::Optimizer opt = gpb::Optimizer::load(state);
  ASSERT_EQ(opt.num_observations(), 1);
  EXPECT_EQ(opt.observed_indices()[0], -1);  // off the candidate set
  const auto best = run_cli("best " + q(state));
  ASSERT_EQ(best.exit_code, 0) << best.output;
  EXPECT_TRUE(contains(best.output, "CsOAc,L3,0.08,100,9")) << best.output;
  for (int round = 0; round < 3; ++round) {
    const auto ask = run_cli("ask " + q(state) + " --q 2 --out " + q(dir.file("p.csv")));
    ASSERT_EQ(ask.exit_code, 0) << ask.output;
    const auto rows = cells(read_file(dir.file("p.csv")));
    for (std::size_t i = 1; i < rows.size(); ++i) {
      EXPECT_TRUE(std::set<std::string>({"0.057", "0.1", "0.153"}).count(rows[i][2])) << rows[i][2];
      EXPECT_TRUE(std::set<std::string>({"90", "105", "120"}).count(rows[i][3])) << rows[i][3];
    }
    write_file(dir.file("y2.csv"), "1\n2\n");
    ASSERT_EQ(run_cli("tell " + q(state) + " " + q(dir.file("p.csv")) + " " + q(dir.file("y2.csv")))
                  .exit_code,
              0);
  }
  write_file(dir.file("bad.csv"), "base,ligand,conc,temp\nCsOAc,L3,warm,100\n");
  const auto bad =
      run_cli("tell " + q(state) + " " + q(dir.file("bad.csv")) + " " + q(dir.file("y.csv")));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.output, "bad.csv:2: 'warm' is not a number (parameter 'conc')"))
      << bad.output;
}

TEST(CliParameters, ListShowsTheParametersDomain) {
  const auto r = run_cli("list");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "parameters")) << r.output;
  EXPECT_TRUE(contains(r.output, "the feasible combinations of parameters")) << r.output;
}

}  // namespace
