// End to end on the GPU: `gpbandit run --backend cuda` of a small experiment (GP-UCB, batch
// GP-UCB with distinct points, random search; several runs in lockstep) records the same choices
// as `--backend cpu`, and summary.json names the CUDA backend. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_test_support.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::TempDir;
using nlohmann::json;

struct Row {
  std::string key;  // run,policy,round
  int chosen = -1;
  double reward = 0;
};

std::vector<Row> read_runs(const std::string& path) {
  std::istringstream in(gpb::test::read_file(path));
  std::string line;
  std::vector<Row> rows;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    if (f.size() < 5) continue;
    rows.push_back({f[0] + "," + f[1] + "," + f[2], std::stoi(f[3]), std::stod(f[4])});
  }
  return rows;
}

TEST(CudaCli, RunMatchesCpuBackend) {
  GPB_REQUIRE_CUDA_DEVICE();
  TempDir dir;
  const json cfg = json::parse(R"({
    "name": "cuda-cli", "seed": 3, "runs": 4, "T": 60,
    "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [30, 25]},
    "kernel": {"type": "se", "lengthscale": 0.2},
    "objective": {"type": "rkhs", "support": 40},
    "noise": {"type": "gaussian", "sd": 0.1},
    "policies": [{"type": "gp_ucb", "label": "GP-UCB"},
                 {"type": "batch_gp_ucb", "label": "BUCB", "q": 4},
                 {"type": "random"}]
  })");
  gpb::test::write_file(dir.file("cfg.json"), cfg.dump());
  for (const char* backend : {"cpu", "cuda"}) {
    const auto r = gpb::test::run_cli("run '" + dir.file("cfg.json") + "' --backend " + backend +
                                      " --out '" + dir.file(backend) + "' --quiet --no-plot");
    ASSERT_EQ(r.exit_code, 0) << backend << ": " << r.output;
  }
  const auto a = read_runs(dir.file("cpu/runs.csv"));
  const auto b = read_runs(dir.file("cuda/runs.csv"));
  ASSERT_EQ(a.size(), 4u * 60u * 3u);
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(b[i].key, a[i].key) << "row " << i;
    EXPECT_EQ(b[i].chosen, a[i].chosen) << a[i].key;
    EXPECT_NEAR(b[i].reward, a[i].reward, 1e-9 * (1 + std::abs(a[i].reward))) << a[i].key;
  }
  const std::string summary = gpb::test::read_file(dir.file("cuda/summary.json"));
  EXPECT_NE(summary.find("\"backend\": \"cuda: "), std::string::npos) << summary.substr(0, 400);
}

}  // namespace
