/// @file shard.hpp
/// What a FinitePosterior backend needs to hold one rank's slice of the domain (internal): the
/// slice, the owner-to-everyone exchange of an observed candidate's column, the global UCB argmax
/// from per-rank records with the one-rank tie semantics, and the gather of μ, σ².
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <functional>
#include <vector>

#include "comm/communicator_impl.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

/// One rank's slice [begin, end) of an N-candidate domain (the whole domain on one rank).
struct Shard {
  Communicator comm;  ///< the ranks (one rank when not sharded)
  int begin = 0;      ///< first candidate held
  int end = 0;        ///< one past the last candidate held
  int total = 0;      ///< N

  /// Whether the domain is split over several ranks.
  bool sharded() const { return comm.sharded(); }
  /// Candidates held.
  int local_size() const { return end - begin; }
  /// Whether candidate a (global index) is held here.
  bool owns(int a) const { return a >= begin && a < end; }
};

/// This rank's slice of `domain` under `comm`.
/// @throws InvalidArgument when there are more ranks than candidates, or `domain` is a slice that
/// is not exactly this rank's.
Shard make_shard(const Communicator& comm, const Domain& domain);

/// The d × local_size() points of the slice (copied from a whole domain, or the slice's own);
/// d × 0 for a streamed domain (Domain::streams_points), whose points are computed per chunk.
Eigen::MatrixXd shard_points(const Shard& shard, const Domain& domain);

/// Every rank gets the owners' values: `buf` holds `count` doubles, each written by exactly one
/// rank (the others leave it +0.0); a bitwise-OR reduction delivers them bit for bit.
void share_owned(const Communicator& comm, double* buf, int count, const char* what);
/// share_owned over the shard's ranks (nothing to do on one rank).
inline void share_owned(const Shard& shard, double* buf, int count, const char* what) {
  share_owned(shard.comm, buf, count, what);
}

/// Returns run r's k-th local tie (k ≥ 0, in candidate order) of score `score`, a global index.
using KthTie = std::function<int(int r, double score, int k)>;

/// The global UCB choices from this rank's per-run records (candidate indices global): one
/// reduction over all runs; then, for the runs where the random tie rank k (one draw from run r's
/// `tiebreak` stream when the global tie count exceeds one, as on one rank) is not the lowest
/// tie, the ranks' tie counts and the owner's k-th tie. `width` only names values in messages.
/// Same choices, scores and tie counts as one rank scanning the whole domain.
/// @throws InvalidArgument on a NaN score or when every candidate of a run is excluded.
std::vector<UcbChoice> reduce_ucb_choices(const Shard& shard, std::vector<UcbRecord> local,
                                          const double* width, std::vector<Rng>* tiebreak,
                                          const KthTie& kth_tie);

/// The N values of a per-candidate array from every rank's slice (`local`: local_size() values,
/// candidate order), gathered to every rank into `all`.
void gather_slices(const Shard& shard, const double* local, std::vector<double>& all);

}  // namespace gpb::detail
