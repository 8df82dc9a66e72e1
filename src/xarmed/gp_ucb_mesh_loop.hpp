/// @file gp_ucb_mesh_loop.hpp
/// The GP-UCB-on-the-mesh loop of run_gp_ucb_mesh (internal): one FinitePosterior, sharded over
/// MPI ranks by its Context's communicator when run_gp_ucb_mesh_sharded calls it, so both runtimes
/// give the same trace.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"
#include "gpbandit/xarmed/baselines.hpp"

namespace gpb::xarmed::detail {

/// The Rng stream of a centralised learner's observation noise.
constexpr std::uint32_t kCentralNoise = 0x6000000u;

/// T rounds of GP-UCB (Srinivas β_t with p.delta) over the mesh `pts` (D×N column-major, as
/// fed1_mesh): `pick(width)` returns the candidate maximising μ + width·σ, `observe(a, y)`
/// conditions the posterior on y at candidate a. Each mesh point's mean reward and regret are
/// evaluated once; the observation adds U(−noise, noise) from the central noise stream.
template <class Pick, class Observe>
BaselineRun gp_ucb_mesh_loop(const FedObjective& f, const std::vector<double>& pts,
                             const GpUcbParams& p, int M, long long T, double noise,
                             std::uint64_t seed, std::uint32_t run, Pick pick, Observe observe) {
  const int D = f.box().dim();
  const int N = static_cast<int>(pts.size() / static_cast<std::size_t>(D));
  BetaSchedule beta;
  beta.delta = p.delta;
  Rng rng(seed, run, kCentralNoise);
  BaselineRun out;
  std::vector<double> cache(static_cast<std::size_t>(N), std::numeric_limits<double>::quiet_NaN()),
      regc(static_cast<std::size_t>(N), 0.0);
  for (long long t = 1; t <= T; ++t) {
    const double w = beta.width(static_cast<int>(t), N, 0.0);
    const int a = pick(w);
    const double* x = pts.data() + static_cast<std::size_t>(a) * D;
    if (std::isnan(cache[static_cast<std::size_t>(a)])) {
      cache[static_cast<std::size_t>(a)] = f.mean_local(run, M, x);
      regc[static_cast<std::size_t>(a)] = f.fstar() - f.global(run, M, x);
    }
    const double y = cache[static_cast<std::size_t>(a)] + noise * (2 * rng.uniform() - 1);
    out.regret.push_back(regc[static_cast<std::size_t>(a)]);
    observe(a, y);
  }
  return out;
}

}  // namespace gpb::xarmed::detail
