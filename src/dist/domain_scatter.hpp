/// @file domain_scatter.hpp
/// Slices of a domain that is not a grid, over the ranks of a Communicator (internal): a CSV
/// domain read once, by rank 0, and scattered; and the points of candidates another rank holds,
/// which an objective evaluated in blocks of the whole domain (rkhs, random Fourier features)
/// needs at the ends of a slice and for its support points. A grid computes any candidate itself
/// (Domain::points_of) and never communicates here.
#pragma once

#include <Eigen/Core>

#include <string>
#include <utility>
#include <vector>

#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/domain.hpp"

namespace gpb::detail {

/// The CSV domain at `path` as this rank's slice [⌊N·q/K⌋, ⌊N·(q+1)/K⌋) (Domain::from_slice): rank
/// 0 opens and validates the file (read_csv_matrix), tells every rank N and d, and scatters the
/// slices (one MPI_Scatterv); no other rank opens the file. A collective of comm's ranks. Rank 0
/// holds the whole file's points until the scatter ends.
/// @throws InvalidArgument on every rank when rank 0 cannot read the file (rank 0 throws the
/// reader's "path:line: ..." message, the others a short one that defers to it) or when there
/// are more ranks than candidates; IoError (rank 0) / InvalidArgument (others) when it cannot be
/// opened.
Domain scatter_csv_domain(const Communicator& comm, const std::string& path);

/// The .npy domain at `path` as this rank's slice [⌊N·q/K⌋, ⌊N·(q+1)/K⌋) (Domain::from_slice):
/// every rank reads the header and then only its own rows (detail::read_npy_points), so the file
/// must be on a file system every rank sees; nothing is scattered. A collective of comm's ranks
/// (two agreements: on N and d, then on every slice having been read).
/// @throws InvalidArgument on every rank, with the same message, when a rank cannot read the file
/// or its rows (the lowest such rank's reason: the file and the row), when the ranks see files of
/// different shapes, or when there are more ranks than candidates.
Domain read_npy_domain_slice(const Communicator& comm, const std::string& path);

/// Whether `domain` is a slice whose other candidates only their owners know (not a grid or a
/// parameter space): then values_in_blocks and points_at communicate, and every rank must call them
/// together.
inline bool needs_owners(const Domain& domain) {
  return domain.is_slice() && !domain.computes_points();
}

/// The points of the candidates of every range [b, e) in `ranges`, in order (d × Σ(e − b)).
/// With needs_owners(domain) a collective of comm's ranks, each with its own ranges (possibly
/// none): the ranges are gathered, every owner writes the columns it holds and one bitwise-OR
/// reduction delivers them bit for bit. Otherwise Domain::points_of, nothing communicated.
/// @throws InvalidArgument if a range is empty or outside [0, N), or if the domain's slice is not
/// comm's rank's.
Eigen::MatrixXd points_of_ranges(const Communicator& comm, const Domain& domain,
                                 const std::vector<std::pair<long long, long long>>& ranges);

/// The points of the candidates `indices` (d × indices.size(), in order); points_of_ranges of
/// one-candidate ranges (a collective under the same condition).
Eigen::MatrixXd points_at(const Communicator& comm, const Domain& domain,
                          const std::vector<long long>& indices);

}  // namespace gpb::detail
