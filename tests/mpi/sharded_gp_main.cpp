// MPI test of the sharded GP engine (run under mpirun -np 2 by ctest): GP-UCB with the posterior
// split across ranks makes the same choices as FinitePosterior on one rank, and its gathered
// μ and σ² equal FinitePosterior's bit for bit. Exit 0 on success, 1 with a message otherwise.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "gpbandit/context.hpp"
#include "gpbandit/mpi/sharded_posterior.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/posterior.hpp"
#include "gpbandit/rng.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"

int main() {
  using namespace gpb;
  const xarmed::mpi::World w = xarmed::mpi::init();
  // 2-D mesh of 23 × 19 = 437 candidates (not a multiple of the rank count).
  const Domain dom = Domain::grid({0.0, 0.0}, {1.0, 1.0}, {23, 19});
  const Kernel k = Kernel::matern(KernelType::Matern52, 0.2);
  const double lambda = 1e-2;
  mpi::ShardedPosterior sp(k, dom, lambda);
  // The one-rank reference on every rank (cheap at this size).
  ContextOptions co;
  co.backend = Backend::Cpu;
  co.threads = 1;
  const Context ctx(co);
  PosteriorOptions po;
  po.noise_variance = lambda;
  po.capacity = 100;
  po.mode = PosteriorMode::Incremental;
  FinitePosterior ref(ctx, k, dom, 1, po);
  BetaSchedule beta;
  Rng noise(7, 0, 2);
  const int T = 80;
  for (int t = 1; t <= T; ++t) {
    const double width = beta.width(t, dom.size(), 0.0);
    const UcbChoice a = sp.ucb_argmax(width);
    const UcbChoice b = ref.ucb_argmax(&width, nullptr, nullptr).at(0);
    if (a.index != b.index) {
      std::fprintf(stderr, "rank %d: round %d: sharded chose %d, one rank chose %d\n", w.rank, t,
                   a.index, b.index);
      xarmed::mpi::abort_all(1);
    }
    const double* x = dom.point(a.index);
    const double y = std::sin(6 * x[0]) * std::cos(4 * x[1]) + 0.1 * noise.normal();
    sp.observe(a.index, y);
    ref.observe(&b.index, &y);
  }
  const std::vector<double> mu = sp.gather_mean(), s2 = sp.gather_variance();
  const int n = dom.size();
  if (std::memcmp(mu.data(), ref.mean(0), sizeof(double) * n) != 0 ||
      std::memcmp(s2.data(), ref.variance(0), sizeof(double) * n) != 0) {
    std::fprintf(stderr, "rank %d: gathered mean/variance differ from FinitePosterior\n", w.rank);
    xarmed::mpi::abort_all(1);
  }
  if (w.rank == 0) {
    std::printf(
        "sharded GP over %d ranks: %d identical UCB choices, bitwise-equal mean and variance\n",
        w.size, T);
  }
  xarmed::mpi::finalize();
  return 0;
}
