// The launcher's view of this process (gpb::mpi::launcher_world): environment variables only, no
// MPI call, so it works in every build and before MPI starts.
#include <cerrno>
#include <cstdlib>
#include <string>

#include "gpbandit/comm/mpi_runtime.hpp"

namespace gpb::mpi {

namespace {

/// The value of `name` as an int ≥ 0, or −1 when unset or not such a number.
int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return -1;
  errno = 0;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0' || x < 0 || x > (1L << 30)) return -1;
  return static_cast<int>(x);
}

}  // namespace

LauncherWorld launcher_world() {
  static const char* const kPairs[][2] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},  // Open MPI's mpirun
      {"PMI_RANK", "PMI_SIZE"},                          // MPICH Hydra, Intel MPI, Cray PMI
      {"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"},    // MVAPICH2
      {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"},          // srun (a job step, not the batch script)
  };
  for (const auto& pair : kPairs) {
    const int rank = env_int(pair[0]), size = env_int(pair[1]);
    if (rank >= 0 && size >= 1 && rank < size) {
      return {rank, size, std::string(pair[0]) + "/" + pair[1]};
    }
  }
  return {};
}

}  // namespace gpb::mpi
