// The CLI's state commands on a fingerprint domain (a .npy of packed words): ask prints candidate
// indices (header "index"), tell and forget take them, best prints "index,y"; an index outside
// the library exits 2 naming the file and the value, and the state refuses a changed .npy; `run`
// gives a command objective the candidates' indices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "io/npy.hpp"
#include "shell_quote.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::contains;
using gpb::test::q;
using gpb::test::read_file;
using gpb::test::run_cli;
using gpb::test::TempDir;
using gpb::test::write_file;

void write_pool(const TempDir& dir, std::uint64_t seed) {
  const gpb::Fingerprints fp = gpb::Fingerprints::random(300, 128, 0.15, seed);
  const std::vector<std::uint64_t> words(fp.row(0), fp.row(0) + fp.size() * fp.words());
  write_file(dir.file("pool.npy"), gpb::detail::npy_bytes_u64(words, fp.size(), fp.words()));
}

TEST(CliFingerprints, AskTellBestByIndex) {
  TempDir dir;
  write_pool(dir, 3);
  write_file(dir.file("cfg.json"),
             R"({"domain": {"type": "fingerprints", "path": "pool.npy", "bits": 128},
                 "exclude_observed": true, "seed": 2})");
  const std::string state = dir.file("s.json");
  ASSERT_EQ(run_cli("init " + q(dir.file("cfg.json")) + " " + q(state)).exit_code, 0);
  const auto ask = run_cli("ask " + q(state) + " --q 3 --out " + q(dir.file("a.csv")));
  ASSERT_EQ(ask.exit_code, 0) << ask.output;
  const std::string asked = read_file(dir.file("a.csv"));
  ASSERT_TRUE(contains(asked, "index\n")) << asked;
  write_file(dir.file("y.csv"), "0.4\n0.9\n0.1\n");
  const auto tell =
      run_cli("tell " + q(state) + " " + q(dir.file("a.csv")) + " " + q(dir.file("y.csv")));
  ASSERT_EQ(tell.exit_code, 0) << tell.output;
  const gpb::Optimizer opt = gpb::Optimizer::load(state);
  EXPECT_EQ(opt.kernel().type(), gpb::KernelType::Tanimoto);  // the default for bits
  ASSERT_EQ(opt.num_observations(), 3);
  EXPECT_TRUE(opt.pending().empty());  // the indices answered the asks
  const int second = opt.observed_indices()[1];
  const auto best = run_cli("best " + q(state));
  ASSERT_EQ(best.exit_code, 0);
  EXPECT_TRUE(contains(best.output, "index,y\n" + std::to_string(second) + ",0.9")) << best.output;

  write_file(dir.file("bad.csv"), "index\n300\n");
  write_file(dir.file("y1.csv"), "1\n");
  const auto bad =
      run_cli("tell " + q(state) + " " + q(dir.file("bad.csv")) + " " + q(dir.file("y1.csv")));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.output, "bad.csv: value 1 (300) is not a candidate index"))
      << bad.output;
  EXPECT_EQ(gpb::Optimizer::load(state).num_observations(), 3);  // nothing recorded

  write_pool(dir, 4);  // another library under the same name
  const auto changed = run_cli("ask " + q(state));
  EXPECT_EQ(changed.exit_code, 2);
  EXPECT_TRUE(contains(changed.output, "domain.digest")) << changed.output;
}

TEST(CliFingerprints, RunWithACommandObjectiveGetsCandidateIndices) {
  // The program reads "index" and one index per line and answers −|i − 150| for each: every
  // recorded value must be that of the candidate recorded with it.
  TempDir dir;
  write_pool(dir, 5);
  write_file(dir.file("run.json"),
             R"({"domain": {"type": "fingerprints", "path": "pool.npy", "bits": 128},
                 "objective": {"type": "command",
                               "cmd": ["awk", "NR > 1 { d = $1 - 150; print (d < 0 ? d : -d) }"]},
                 "T": 30, "q": 5, "seed": 1})");
  const auto r = run_cli("run " + q(dir.file("run.json")) + " --out " + q(dir.file("out")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string ev = read_file(dir.file("out/evaluations.csv"));
  EXPECT_TRUE(contains(ev, "evaluation,round,index,y\n")) << ev;
  const gpb::Optimizer opt = gpb::Optimizer::load(dir.file("out/state.json"));
  ASSERT_EQ(opt.num_observations(), 30);
  const std::vector<int> idx = opt.observed_indices();
  const std::vector<double> y = opt.observed_values();
  for (std::size_t i = 0; i < idx.size(); ++i) EXPECT_EQ(y[i], -std::abs(idx[i] - 150.0));
  const std::string summary = read_file(dir.file("out/summary.json"));
  EXPECT_TRUE(contains(summary, "\"index\": " + std::to_string(opt.best().index))) << summary;
}

}  // namespace
