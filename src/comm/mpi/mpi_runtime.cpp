// The MPI process runtime: init once, finalize, abort the whole job.
#include <mpi.h>

#include <cstdlib>

#include "gpbandit/comm/mpi_runtime.hpp"

namespace gpb::mpi {

namespace {
World g_world;
bool g_init = false;
}  // namespace

World init() {
  if (!g_init) {
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag) MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
    g_init = true;
  }
  return g_world;
}

void finalize() {
  int init_flag = 0, fin = 0;
  MPI_Initialized(&init_flag);
  MPI_Finalized(&fin);
  if (init_flag && !fin) MPI_Finalize();
}

void abort_all(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace gpb::mpi
