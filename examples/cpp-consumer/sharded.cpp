// One FinitePosterior sharded over K ranks: here K = 3 ranks as threads of this process
// (gpb::Communicator::in_process); under mpirun, gpb::Communicator::world() gives one rank per
// process instead. Every rank builds only its slice of a 60×60 grid and keeps V, μ and σ² for its
// candidates only; every rank makes the same calls in the same order and gets the one-rank
// choices. Exits 0 when the sharded choices equal those of an unsharded posterior.
#include <gpbandit/comm/communicator.hpp>
#include <gpbandit/engine/context.hpp>
#include <gpbandit/engine/domain.hpp>
#include <gpbandit/engine/kernel.hpp>
#include <gpbandit/engine/posterior.hpp>

#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

// GP-UCB for 20 rounds on the ranks of `comm`; returns the chosen candidates (the same on every
// rank).
std::vector<int> gp_ucb(const gpb::Communicator& comm) {
  const std::vector<double> lo{0, 0}, hi{1, 1};
  const std::vector<int> counts{60, 60};  // N = 3600 candidates
  gpb::ContextOptions co;
  co.backend = gpb::Backend::Cpu;
  co.threads = 1;
  co.communicator = comm;
  const gpb::Context ctx(co);
  const auto [begin, end] = comm.slice(60 * 60);  // this rank's candidates
  const gpb::Domain mine = gpb::Domain::grid_slice(lo, hi, counts, begin, end);
  gpb::PosteriorOptions opt;
  opt.noise_variance = 1e-2;
  gpb::FinitePosterior post(ctx, gpb::Kernel::se(0.2), mine, /*runs=*/1, opt);
  std::vector<int> chosen;
  for (int t = 0; t < 20; ++t) {
    const double width = 2.0;
    const int j = post.ucb_argmax(&width, nullptr, nullptr)[0].index;  // global index
    const Eigen::VectorXd x = mine.points_of(j, j + 1).col(0);         // a grid computes any point
    const double y = std::sin(3 * x[0]) * std::cos(2 * x[1]);
    post.observe(&j, &y);
    chosen.push_back(j);
  }
  return chosen;
}

int main() {
  const std::vector<int> whole = gp_ucb(gpb::Communicator());  // one rank: the whole domain
  const int k = 3;
  std::vector<gpb::Communicator> ranks = gpb::Communicator::in_process(k);
  std::vector<std::vector<int>> chosen(k);
  std::vector<std::thread> threads;
  for (int q = 0; q < k; ++q) threads.emplace_back([&, q] { chosen[q] = gp_ucb(ranks[q]); });
  for (std::thread& t : threads) t.join();
  bool same = true;
  for (int q = 0; q < k; ++q) same = same && chosen[q] == whole;
  std::printf(
      "%s: rank 0 holds candidates [0, %lld) of 3600; the same 20 choices as one rank: %s\n",
      ranks[0].describe().c_str(), ranks[0].slice(3600).second, same ? "yes" : "no");
  return same ? 0 : 1;
}
