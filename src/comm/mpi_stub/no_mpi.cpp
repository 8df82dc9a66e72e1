// Builds without MPI: the communicator's MPI entry points and the process runtime say so.
#include <cstdlib>

#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/comm/mpi_runtime.hpp"
#include "gpbandit/error.hpp"

namespace gpb::mpi {

World init() {
  throw InvalidArgument(
      "--mpi: this gpbandit was built without MPI (install libopenmpi-dev and reconfigure)");
}
void finalize() {}
void abort_all(int code) {
  std::exit(code);
}
bool rank_failure_seen() {
  return false;
}
void abort_if_rank_failed(int) {}

}  // namespace gpb::mpi

namespace gpb {

bool Communicator::mpi_available() {
  return false;
}
Communicator Communicator::world(double) {
  throw InvalidArgument(
      "communicator: this gpbandit was built without MPI (install libopenmpi-dev and reconfigure)");
}
Communicator Communicator::from_fortran(std::int64_t, double) {
  throw InvalidArgument(
      "communicator: this gpbandit was built without MPI (install libopenmpi-dev and reconfigure)");
}

}  // namespace gpb
