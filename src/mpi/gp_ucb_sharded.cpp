// GP-UCB on the Fed1-UCB mesh with the posterior sharded over MPI ranks (mirrors
// run_gp_ucb_mesh in src/xarmed/baselines.cpp step for step, so the traces are identical).
#include <cmath>
#include <limits>

#include "gpbandit/mpi/sharded_posterior.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"

namespace gpb::xarmed::mpi {

BaselineRun run_gp_ucb_mesh_sharded(const FedObjective& f, const GpUcbParams& p, int M, long long T,
                                    double noise, std::uint64_t seed, std::uint32_t run) {
  const Box& box = f.box();
  const int D = box.dim();
  const std::vector<double> pts = fed1_mesh(box, p.mesh, seed, run);
  const int N = static_cast<int>(pts.size() / static_cast<std::size_t>(D));
  const Domain dom = gp_mesh_domain(box, p, seed, run);
  const Kernel kern =
      p.se ? Kernel::se(p.lengthscale) : Kernel::matern(KernelType::Matern12, p.lengthscale);
  gpb::mpi::ShardedPosterior post(kern, dom, p.noise_variance);
  BetaSchedule beta;
  beta.delta = p.delta;
  Rng rng(seed, run, 0x6000000u);  // the centralised noise stream of baselines.cpp
  BaselineRun out;
  std::vector<double> cache(static_cast<std::size_t>(N), std::numeric_limits<double>::quiet_NaN()),
      regc(static_cast<std::size_t>(N), 0.0);
  for (long long t = 1; t <= T; ++t) {
    const double w = beta.width(static_cast<int>(t), N, 0.0);
    const int a = post.ucb_argmax(w).index;
    const double* x = pts.data() + static_cast<std::size_t>(a) * D;
    if (std::isnan(cache[static_cast<std::size_t>(a)])) {
      double s = 0;
      for (int m = 0; m < M; ++m) s += f.local(run, m, M, x);
      cache[static_cast<std::size_t>(a)] = s / M;
      regc[static_cast<std::size_t>(a)] = f.fstar() - f.global(run, M, x);
    }
    const double y = cache[static_cast<std::size_t>(a)] + noise * (2 * rng.uniform() - 1);
    out.regret.push_back(regc[static_cast<std::size_t>(a)]);
    post.observe(a, y);
  }
  return out;
}

}  // namespace gpb::xarmed::mpi
