/// @file baselines.hpp
/// Baselines of specs/fed-pne.md §7: HCT (centralised), Fed1-UCB on a mesh (federated),
/// GP-UCB on a mesh through the engine's FinitePosterior (centralised), random (federated).
/// Each returns the per-round instant regret of one run (per-client average for federated ones).
#pragma once

#include <cstdint>
#include <vector>

#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/domain.hpp"

#include "gpbandit/xarmed/objective.hpp"

namespace gpb::xarmed {

/// HCT parameters (paper E.1.1 / PyXAB defaults; c1 = 0 → (ρ/(3ν))^{1/8}).
struct HctParams {
  int k = 2;                         ///< branching factor of the partition
  double nu = 1.0;                   ///< smoothness ν₁ > 0
  double rho = 0.75;                 ///< smoothness rate ρ ∈ (0, 1)
  double c = 0.1;                    ///< confidence constant c > 0
  double delta = 0.01;               ///< confidence δ ∈ (0, 1)
  double c1 = 0.0;                   ///< constant c₁; 0 → (ρ/(3ν))^{1/8}
  std::uint64_t partition_seed = 0;  ///< seed of the partition's split axes (see Partition)
  /// What happens when a node that already has children reaches its threshold τ_h again (the
  /// descent can stop at an inner node once τ_h grows with t⁺). false ("keep", Azar et al. 2014):
  /// nothing, the children and their statistics stay. true ("rebuild", PyXAB 0.3.0's HCT, the
  /// paper's baseline): fresh children replace them (U = B = +∞, statistics lost) and the next
  /// update recomputes every B bottom-up, as PyXAB's full-tree pass does.
  bool rebuild = false;
};

/// Fed1-UCB parameters: K_mesh arms per axis, f(p) = ⌊κ ln T⌋ pulls per arm per phase.
struct Fed1UcbParams {
  int mesh = 100;      ///< K_mesh, arms per axis (≥ 2)
  double kappa = 1.0;  ///< κ > 0 of the pulls per arm per phase ⌊κ ln T⌋ (at least 1)
};

/// GP-UCB on the mesh: Laplacian (Matérn-1/2) or SE kernel on inputs scaled to [0,1]^D.
struct GpUcbParams {
  int mesh = 100;                ///< arms per axis of the Fed1-UCB mesh (≥ 2)
  double lengthscale = 1.0;      ///< kernel lengthscale on the [0,1]^D-scaled inputs, > 0
  double noise_variance = 1e-3;  ///< noise variance the posterior assumes, > 0
  double delta = 0.1;            ///< δ ∈ (0, 1) of Srinivas β_t
  bool se = false;               ///< SE kernel when true, Laplacian (Matérn-1/2) otherwise
  /// gp-ts: pick the arm whose independent draw N(μ_a, (ν σ_a)²) is largest (Thompson sampling
  /// with per-arm draws, as the NeuralTS code's KernelTS the paper ran) instead of μ + β_t^½ σ.
  bool thompson = false;
  double nu = 1.0;  ///< gp-ts: exploration scale ν of the draws (> 0)
};

/// Result of a federated baseline run.
struct BaselineRun {
  std::vector<double> regret;  ///< instant regret per round (length T)
  int rounds = 0;              ///< communication rounds (completed phases)
  long long rebuilds = 0;      ///< HCT: re-expansions that replaced existing children
  long long expansions = 0;    ///< HCT: expansions (first ones and rebuilds)
};

/// Observation noise U(−a, a) on one evaluation (centralised runs use stream 0x6000000).
/// HCT on f = (1/M) Σ f_m with U(−noise, noise) noise per evaluation.
BaselineRun run_hct(const FedObjective& f, const HctParams& p, int M, long long T, double noise,
                    std::uint64_t seed, std::uint32_t run);
/// Fed1-UCB with M clients. One round per completed phase.
BaselineRun run_fed1_ucb(const FedObjective& f, const Fed1UcbParams& p, int M, long long T,
                         double noise, std::uint64_t seed, std::uint32_t run);
/// GP-UCB (Srinivas β_t, finite domain) on the Fed1-UCB mesh of the same run. With a sharded
/// `comm` the posterior's candidates are split over its ranks (collective: every rank calls it
/// and gets the same trace, the trace of one rank).
BaselineRun run_gp_ucb_mesh(const FedObjective& f, const GpUcbParams& p, int M, long long T,
                            double noise, std::uint64_t seed, std::uint32_t run,
                            const Communicator& comm = Communicator());
/// Every client plays an independent uniform point each round.
BaselineRun run_random(const FedObjective& f, int M, long long T, std::uint64_t seed,
                       std::uint32_t run);

/// The Fed1-UCB mesh of a run: per axis one arm uniform in [lo, lo + w/K], K − 1 equally spaced
/// from lo + w/K to hi; Cartesian product for D > 1 (axis 0 fastest). D×N column-major.
std::vector<double> fed1_mesh(const Box& box, int K, std::uint64_t seed, std::uint32_t run);
/// The mesh of fed1_mesh(box, p.mesh, seed, run) as a Domain rescaled to [0,1]^D (the GP-UCB
/// baselines' candidates, one row per mesh point in fed1_mesh's order).
Domain gp_mesh_domain(const Box& box, const GpUcbParams& p, std::uint64_t seed, std::uint32_t run);
/// A mesh already drawn by fed1_mesh(box, …) (D×N column-major) as a Domain rescaled to [0,1]^D.
Domain gp_mesh_domain(const Box& box, const std::vector<double>& mesh);

}  // namespace gpb::xarmed
