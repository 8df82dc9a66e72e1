// The MPI process runtime: init once, finalize, abort the whole job, and what a RankFailure
// changes about ending it.
#include <mpi.h>

#include <atomic>
#include <cstdlib>

#include "comm/mpi/runtime_internal.hpp"
#include "gpbandit/comm/mpi_runtime.hpp"

namespace gpb::mpi {

namespace {
World g_world;
bool g_init = false;
std::atomic<bool> g_rank_failed{false};

bool live() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init != 0 && fin == 0;
}
}  // namespace

namespace detail {
void note_rank_failure() {
  g_rank_failed.store(true);
}
}  // namespace detail

World init() {
  if (!g_init) {
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag) {
      int provided = 0;  // funneled: only the thread that made the call communicates
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
    g_init = true;
  }
  return g_world;
}

void finalize() {
  if (!live()) return;
  if (g_rank_failed.load()) abort_all(1);  // MPI_Finalize would wait for the lost rank
  MPI_Finalize();
}

void abort_all(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

bool rank_failure_seen() {
  return g_rank_failed.load();
}

void abort_if_rank_failed(int code) {
  if (g_rank_failed.load() && live()) abort_all(code);
}

}  // namespace gpb::mpi
