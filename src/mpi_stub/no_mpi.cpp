// Builds without MPI: the MPI runtime entry points say so.
#include <cstdlib>

#include "gpbandit/communicator.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"

namespace gpb::xarmed::mpi {

namespace {
[[noreturn]] void none() {
  throw InvalidArgument(
      "--mpi: this gpbandit was built without MPI (install libopenmpi-dev and reconfigure)");
}
}  // namespace

bool available() {
  return false;
}
World init() {
  none();
}
void finalize() {}
void abort_all(int code) {
  std::exit(code);
}
std::unique_ptr<ClientPool> make_server_pool(int, double) {
  none();
}
void stop_clients(ClientPool&) {
  none();
}
std::string serve_clients(const FedPneParams&, std::shared_ptr<const FedObjective>, int,
                          std::uint64_t, const std::vector<std::uint32_t>&) {
  none();
}
std::pair<int, int> client_block(int, int, int) {
  none();
}

}  // namespace gpb::xarmed::mpi

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
