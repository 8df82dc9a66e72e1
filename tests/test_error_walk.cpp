// One line for every error (#29 item 5): every CLI command with a table of bad inputs
// (directories for files, missing and empty files, unknown keys, misspelt types, corrupt states,
// bad flags). Each must fail with exactly one line "gpbandit: error: ..." on stderr, no internal
// exception text (basic_string, json.exception, bad_alloc, std::, terminate), and an exit code
// from the table in docs/reliability.md, which this test reads (the one exit-code table).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using gpb::test::contains;
using gpb::test::run_command;
using gpb::test::TempDir;
using gpb::test::write_file;

/// The exit codes docs/reliability.md documents ("| 2 | ...", "| 130 / 143 | ..."), except the
/// MPI row ("non-zero").
std::set<int> documented_exit_codes() {
  std::ifstream in(std::string(GPB_SOURCE_DIR) + "/docs/reliability.md");
  std::set<int> codes;
  std::string line;
  const std::regex row(R"(^\|\s*([0-9][0-9 /]*)\s*\|)");
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("## Exit codes", 0) == 0) in_table = true;
    if (!in_table) continue;
    if (line.rfind("## ", 0) == 0 && line.rfind("## Exit codes", 0) != 0) break;
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    std::istringstream cells(m[1].str());
    std::string tok;
    while (cells >> tok) {
      if (tok != "/") codes.insert(std::stoi(tok));
    }
  }
  return codes;
}

/// Texts that only an internal exception or a crash would print.
const std::vector<std::string>& internal_texts() {
  static const std::vector<std::string> t = {
      "basic_string", "json.exception",   "bad_alloc",       "std::",       "_M_",
      "what():",      "terminate called", "vector::",        "map::at",     "stoi",
      "stod",         "Segmentation",     "Aborted",         "core dumped", "type_error",
      "parse_error.", "out_of_range",     "invalid_argument"};
  return t;
}

struct Case {
  std::string label;
  std::string command;  // arguments of gpbandit, or a whole shell line starting with "sh:"
};

class ErrorWalk : public ::testing::Test {
 protected:
  void SetUp() override {
    codes_ = documented_exit_codes();
    ASSERT_TRUE(codes_.count(0) && codes_.count(1) && codes_.count(2) && codes_.count(130))
        << "docs/reliability.md: exit-code table not found or changed shape";
    const std::string finite = R"({"domain": {"type": "grid", "lower": [0], "upper": [1],
      "counts": [5]}, "objective": {"type": "rkhs"}, "policies": [{"type": "random"}],
      "runs": 1, "T": 2, "backend": "cpu"})";
    const std::string opt =
        R"({"domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [4, 4]}})";
    file("finite.json", finite);
    file("opt.json", opt);
    file("empty.json", "");
    file("array.json", "[1, 2]");
    file("syntax.json", "{\"domain\": ");
    file("unknown_key.json", R"({"domian": {}, "policies": []})");
    file("typo_policy.json", R"({"domain": {"type": "grid", "lower": [0], "upper": [1],
      "counts": [5]}, "objective": {"type": "rkhs"}, "policies": [{"type": "gp_ucbb"}]})");
    file("typo_objective.json", R"({"domain": {"type": "grid", "lower": [0, 0],
      "upper": [1, 1], "counts": [4, 4]}, "acquisition": {"type": "ucb"}, "T": 3,
      "objective": {"type": "comand", "cmd": ["true"]}})");
    file("typo_acq.json", R"({"domain": {"type": "grid", "lower": [0], "upper": [1],
      "counts": [4]}, "acquisition": {"type": "ucbb"}})");
    file("wrong_type.json", R"({"domain": {"type": "grid", "lower": "0", "upper": [1],
      "counts": [4]}})");
    file("q_too_big.json", R"({"domain": {"type": "grid", "lower": [0], "upper": [1],
      "counts": [4]}, "T": 8, "q": 5, "objective": {"type": "command", "cmd": ["true"]}})");
    file("p.csv", "x0,x1\n0.5,0.5\n");
    file("p3.csv", "x0,x1,x2\n0.5,0.5,0.5\n");
    file("p_nan.csv", "x0,x1\nnan,0.5\n");
    file("p_far.csv", "x0,x1\n50,0.5\n");
    file("y.csv", "1\n");
    file("y2.csv", "1\n2\n");
    file("header_only.csv", "x0,x1\n");
    file("comments_only.csv", "# nothing\n");
    file("garbage.json", "not json at all");
    file("wrong_format.json", R"({"format": "something else"})");
    ASSERT_EQ(run_command(cli() + " init " + path("opt.json") + " " + path("s.json")).exit_code, 0);
    std::string state = gpb::test::read_file(dir_.file("s.json"));
    // A corrupt field: a number where the state has a string, then a truncated file.
    const auto pos = state.find("\"y_offset\":");
    ASSERT_NE(pos, std::string::npos);
    file("corrupt_field.json",
         state.substr(0, pos) + "\"y_offset\":\"abc\"," + state.substr(state.find(',', pos) + 1));
    file("truncated.json", state.substr(0, state.size() / 2));
    ASSERT_EQ(::system(("mkdir -p " + path("adir")).c_str()), 0);
  }

  std::string cli() const { return "'" + std::string(GPB_CLI_PATH) + "'"; }
  std::string path(const std::string& name) const { return "'" + dir_.file(name) + "'"; }
  void file(const std::string& name, const std::string& text) const {
    write_file(dir_.file(name), text);
  }

  /// Runs every case; each must fail cleanly.
  void walk(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
      const std::string line = c.command.rfind("sh:", 0) == 0
                                   ? c.command.substr(3)
                                   : cli() + " " + c.command + " < /dev/null";
      // stderr alone: the error line; stdout goes to /dev/null.
      const auto r = run_command("cd '" + dir_.path() + "' && " + line + " 2>&1 >/dev/null");
      SCOPED_TRACE(c.label + ": " + line + "\n" + r.output);
      EXPECT_NE(r.exit_code, 0);
      EXPECT_TRUE(codes_.count(r.exit_code)) << "exit " << r.exit_code << " is not documented";
      EXPECT_EQ(r.output.rfind("gpbandit: error: ", 0), 0u) << "not the one error line";
      EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "not one line";
      for (const std::string& t : internal_texts()) {
        EXPECT_FALSE(contains(r.output, t)) << "internal text '" << t << "'";
      }
    }
  }

  TempDir dir_;
  std::set<int> codes_;
};

TEST_F(ErrorWalk, RunAndList) {
  walk({
      {"missing config", "run nope.json"},
      {"directory as config", "run adir"},
      {"empty config", "run empty.json"},
      {"JSON array", "run array.json"},
      {"syntax error", "run syntax.json"},
      {"unknown key", "run unknown_key.json"},
      {"misspelt policy type", "run typo_policy.json"},
      {"misspelt objective type", "run typo_objective.json"},
      {"optimizer config without objective", "run opt.json"},
      {"q > N", "run q_too_big.json --out out-q"},
      {"--runs 0", "run finite.json --runs 0"},
      {"--seed -1", "run finite.json --seed -1"},
      {"--backend gpu", "run finite.json --backend gpu"},
      {"--out is a file", "run finite.json --out p.csv"},
      {"--resume with nothing", "run finite.json --out nothing-here --resume"},
      {"--resume and --force", "run finite.json --resume --force"},
      {"stdin empty", "run -"},
      {"unknown list section", "list policy"},
      {"unknown command", "frobnicate"},
      {"unknown flag", "run finite.json --frobnicate"},
      {"no command", ""},
  });
}

TEST_F(ErrorWalk, StateCommands) {
  walk({
      {"init: missing config", "init nope.json s2.json"},
      {"init: directory as config", "init adir s2.json"},
      {"init: misspelt acquisition", "init typo_acq.json s2.json"},
      {"init: wrong value type", "init wrong_type.json s2.json"},
      {"init: existing state", "init opt.json s.json"},
      {"init: state in a missing folder", "init opt.json no/such/s.json"},
      {"ask: missing state", "ask nope.json"},
      {"ask: directory as state", "ask adir"},
      {"ask: garbage state", "ask garbage.json"},
      {"ask: another format", "ask wrong_format.json"},
      {"ask: corrupt field", "ask corrupt_field.json"},
      {"ask: truncated state", "ask truncated.json"},
      {"ask: --q 0", "ask s.json --q 0"},
      {"ask: --q > N", "ask s.json --q 17"},
      {"tell: directory as points", "tell s.json adir y.csv"},
      {"tell: directory as rewards", "tell s.json p.csv adir"},
      {"tell: missing points", "tell s.json nope.csv y.csv"},
      {"tell: missing rewards", "tell s.json p.csv nope.csv"},
      {"tell: counts differ", "tell s.json p.csv y2.csv"},
      {"tell: wrong dimension", "tell s.json p3.csv y.csv"},
      {"tell: NaN", "tell s.json p_nan.csv y.csv"},
      {"tell: outside the box", "tell s.json p_far.csv y.csv"},
      {"tell: header only", "tell s.json header_only.csv y.csv"},
      {"tell: comments only", "tell s.json comments_only.csv y.csv"},
      {"best: no observation", "best s.json"},
      {"best: corrupt state", "best corrupt_field.json"},
      {"forget: nothing given", "forget s.json"},
      {"forget: both given", "forget s.json p.csv --all"},
      {"forget: not outstanding", "forget s.json p.csv"},
  });
}

TEST(ErrorWalkTable, TheDocumentedTableIsRead) {
  const std::set<int> codes = documented_exit_codes();
  EXPECT_EQ(codes, (std::set<int>{0, 1, 2, 130, 143}));
}

}  // namespace
