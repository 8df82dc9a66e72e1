// gpbandit's side of the peer comparison (bench/peers/compare.py): runs GP-UCB on a problem
// written by bench/peers/problem.py and prints one JSON line with the chosen candidates, the time
// of every round and the peak resident memory.
//
//   gp_ucb_trace PROBLEM_DIR [--backend cpu|cuda] [--mixed] [--eager]
//     --mixed: V stored in float; --eager: PosteriorOptions::lazy = false (every row applied to
//     every candidate at once; the default defers rows of blocks that cannot win the argmax)
//
// Problem directory (all little-endian, row-major):
//   meta.json   {"N", "d", "T", "t0", "lengthscale", "noise_var", "beta"}
//   X.f64       N×d candidates        f.f64   N objective values
//   eps.f64     t0+T noise draws      warm.i64  t0 warm-start candidate indices
// Model: GP(0, SE(lengthscale, variance 1)), Gaussian likelihood noise_var. Warm start: observe
// y = f[w_i] + eps[i] for i < t0, then bring every candidate up to date (not timed, as the peers
// build their state untimed). Round r (timed): a = argmax μ + √β σ (lowest index
// on ties), observe y = f[a] + eps[t0 + r].
#include <sys/resource.h>

#include <Eigen/Core>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"

namespace {

template <typename T>
std::vector<T> read_array(const std::string& path, std::size_t count) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<T> v(count);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(T)));
  if (in.gcount() != static_cast<std::streamsize>(count * sizeof(T)))
    throw std::runtime_error(path + ": expected " + std::to_string(count) + " values");
  return v;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

int run(const std::string& dir, const gpb::ContextOptions& co, bool lazy) {
  nlohmann::json meta;
  std::ifstream(dir + "/meta.json") >> meta;
  const int n = meta.at("N"), d = meta.at("d"), horizon = meta.at("T"), t0 = meta.at("t0");
  const double lengthscale = meta.at("lengthscale"), noise_var = meta.at("noise_var");
  const double width = std::sqrt(static_cast<double>(meta.at("beta")));
  const auto x = read_array<double>(dir + "/X.f64", static_cast<std::size_t>(n) * d);
  const auto f = read_array<double>(dir + "/f.f64", n);
  const auto eps = read_array<double>(dir + "/eps.f64", static_cast<std::size_t>(t0 + horizon));
  const auto warm = read_array<std::int64_t>(dir + "/warm.i64", t0);

  gpb::Context ctx{co};
  const Eigen::MatrixXd rows =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          x.data(), n, d);
  const gpb::Domain domain = gpb::Domain::from_rows(rows);
  gpb::PosteriorOptions opt;
  opt.noise_variance = noise_var;
  opt.capacity = t0 + horizon;
  opt.mode = gpb::PosteriorMode::Incremental;
  opt.lazy = lazy;
  gpb::FinitePosterior post(ctx, gpb::Kernel::se(lengthscale, 1.0), domain, 1, opt);
  for (int i = 0; i < t0; ++i) {
    const int a = static_cast<int>(warm[i]);
    const double y = f[a] + eps[i];
    post.observe(&a, &y);
  }
  (void)post.mean(0);  // every block up to date (lazy mode), like the peers' warm state
  std::vector<int> chosen;
  std::vector<double> ms;
  for (int r = 0; r < horizon; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const int a = post.ucb_argmax(&width, nullptr, nullptr)[0].index;
    const double y = f[a] + eps[t0 + r];
    post.observe(&a, &y);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    chosen.push_back(a);
  }
  const bool mixed = co.precision == gpb::Precision::Mixed;
  const std::string impl =
      std::string(mixed ? "gpbandit-mixed" : "gpbandit") + (lazy ? "" : "-eager");
  nlohmann::json out = {
      {"impl", impl}, {"chosen", chosen}, {"ms", ms}, {"peak_rss_mb", peak_rss_mb()}};
  std::cout << out.dump() << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gpb::ContextOptions co;
  co.backend = gpb::Backend::Cpu;
  bool lazy = true;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mixed") {
      co.precision = gpb::Precision::Mixed;
    } else if (a == "--eager") {
      lazy = false;
    } else if (a == "--backend" && i + 1 < argc) {
      co.backend = gpb::parse_backend(argv[++i]);
    } else {
      argc = 0;
    }
  }
  if (argc < 2) {
    std::cerr << "usage: gp_ucb_trace PROBLEM_DIR [--backend cpu|cuda|auto] [--mixed] [--eager]\n";
    return 2;
  }
  try {
    return run(argv[1], co, lazy);
  } catch (const std::exception& e) {
    std::cerr << "gp_ucb_trace: " << e.what() << "\n";
    return 2;
  }
}
