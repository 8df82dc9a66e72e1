// GP-UCB on the Fed1-UCB mesh with the posterior sharded over MPI ranks: the loop of
// run_gp_ucb_mesh (xarmed/gp_ucb_mesh_loop.hpp) on a ShardedPosterior, so the traces are identical.
#include "gpbandit/mpi/sharded_posterior.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"
#include "xarmed/gp_ucb_mesh_loop.hpp"

namespace gpb::xarmed::mpi {

BaselineRun run_gp_ucb_mesh_sharded(const FedObjective& f, const GpUcbParams& p, int M, long long T,
                                    double noise, std::uint64_t seed, std::uint32_t run) {
  const std::vector<double> pts = fed1_mesh(f.box(), p.mesh, seed, run);
  const Kernel kern =
      p.se ? Kernel::se(p.lengthscale) : Kernel::matern(KernelType::Matern12, p.lengthscale);
  const Domain dom = gp_mesh_domain(f.box(), pts);
  gpb::mpi::ShardedPosterior post(kern, dom, p.noise_variance);
  return detail::gp_ucb_mesh_loop(
      f, pts, p, M, T, noise, seed, run, [&](double w) { return post.ucb_argmax(w).index; },
      [&](int a, double y) { post.observe(a, y); });
}

}  // namespace gpb::xarmed::mpi
