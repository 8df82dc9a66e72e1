/// @file runtime_internal.hpp
/// Between the MPI communicator and the MPI process runtime (internal to src/comm/mpi/).
#pragma once

namespace gpb::mpi::detail {

/// Records that a collective threw RankFailure (see gpb::mpi::rank_failure_seen()).
void note_rank_failure();

}  // namespace gpb::mpi::detail
