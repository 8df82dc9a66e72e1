/// @file sharded_posterior.hpp
/// The exact GP posterior of FinitePosterior with its candidates split across MPI ranks
/// (MPI builds only; see mpi_runtime.hpp for initialisation).
#pragma once

#include <memory>
#include <vector>

#include "gpbandit/domain.hpp"
#include "gpbandit/kernel.hpp"
#include "gpbandit/ops.hpp"

namespace gpb::mpi {

/// One run's FinitePosterior (CPU arithmetic, incremental mode) over N candidates, sharded over
/// the ranks of MPI_COMM_WORLD: rank q holds the contiguous slice [lo_q, hi_q) of V (t × slice),
/// μ and σ²; the small factor state (L, α, history) is replicated. An observation at candidate a
/// broadcasts v_p[a] (p < t) and σ²[a] from a's owner (t + 1 doubles), after which every rank
/// appends the same factor row and updates its slice with the same per-element operations as
/// FinitePosterior, so μ, σ² and the choices equal the one-rank posterior bit for bit.
/// The UCB argmax is a local argmax then MPI_Allreduce(MPI_DOUBLE_INT, MPI_MAXLOC) (ties → lowest
/// index, as ucb_argmax without a tiebreak stream). Memory per rank O(t·N/Q); observe O(t·N/Q).
/// Collective: every rank must make the same calls in the same order.
class ShardedPosterior {
 public:
  /// Initialises MPI if needed. @throws InvalidArgument if λ ≤ 0, N < number of ranks, or the
  /// build has no MPI.
  ShardedPosterior(const Kernel& kernel, const Domain& domain, double noise_variance);
  ~ShardedPosterior();
  /// Move constructor (not collective); the moved-from object must not be used.
  ShardedPosterior(ShardedPosterior&&) noexcept;
  /// Observes y at candidate a (global index); same a, y on every rank.
  void observe(int a, double y);
  /// Global UCB argmax of μ + width·σ (same result on every rank).
  UcbChoice ucb_argmax(double width) const;
  /// μ over all N candidates, gathered to every rank (for tests and output).
  std::vector<double> gather_mean() const;
  /// σ² over all N candidates, gathered to every rank (for tests and output).
  std::vector<double> gather_variance() const;
  /// This rank's slice [lo, hi).
  std::pair<int, int> slice() const;
  /// N, the total number of candidates (all ranks).
  int size() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpb::mpi
