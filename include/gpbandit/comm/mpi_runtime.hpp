/// @file mpi_runtime.hpp
/// The MPI process runtime shared by every MPI user (the CLI's --mpi, Fed-PNE's server and
/// clients, the sharded posterior's world communicator): initialise once, finalise, abort the
/// whole job. In builds without MPI, init() throws InvalidArgument and abort_all() exits.
#pragma once

#include <string>

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

/// Whether a collective of an MPI communicator in this process threw RankFailure: the job is
/// broken, and MPI_Finalize would wait for the lost rank for ever.
bool rank_failure_seen();
/// MPI_Abort(MPI_COMM_WORLD, code) when rank_failure_seen() and MPI is initialised and not
/// finalised; otherwise nothing. For exit paths that would call MPI_Finalize next (the Python
/// module registers it with atexit, so a script under plain `mpirun python3 script.py` ends
/// instead of hanging after a RankFailure).
void abort_if_rank_failed(int code);

/// The rank and size a process launcher gave this process in its environment, read without
/// starting MPI: Open MPI's mpirun (OMPI_COMM_WORLD_RANK/_SIZE), MPICH's Hydra, Intel MPI and
/// Cray PMI (PMI_RANK/PMI_SIZE), MVAPICH2 (MV2_COMM_WORLD_RANK/_SIZE), Slurm's srun
/// (SLURM_PROCID/SLURM_STEP_NUM_TASKS), in that order. MPI's own answer (init()) is the one that
/// counts; this one catches an MPI library that started as a singleton under a launcher it cannot
/// talk to (every process rank 0 of 1), and names the variables in messages.
struct LauncherWorld {
  int rank = 0;        ///< this process's rank, as the launcher says
  int size = 0;        ///< processes the launcher started; 0 when no launcher was recognised
  std::string source;  ///< the variables read, e.g. "SLURM_PROCID/SLURM_STEP_NUM_TASKS"
};
/// See LauncherWorld. Variables that are not non-negative integers (or a rank ≥ size) are ignored.
LauncherWorld launcher_world();

}  // namespace gpb::mpi
