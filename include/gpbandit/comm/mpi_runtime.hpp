/// @file mpi_runtime.hpp
/// The MPI process runtime shared by every MPI user (the CLI's --mpi, Fed-PNE's server and
/// clients, the sharded posterior's world communicator): initialise once, finalise, abort the
/// whole job. In builds without MPI, init() throws InvalidArgument and abort_all() exits.
#pragma once

namespace gpb::mpi {

/// MPI_COMM_WORLD rank and size after init().
struct World {
  int rank = 0;  ///< this process's rank (0 = the server)
  int size = 1;  ///< number of ranks
};
/// Initialises MPI once (later calls return the same world). @throws InvalidArgument without MPI.
World init();
/// MPI_Finalize (no-op if not initialised).
void finalize();
/// Prints nothing; MPI_Abort(MPI_COMM_WORLD, code) — kills every rank (never returns).
[[noreturn]] void abort_all(int code);

}  // namespace gpb::mpi
