// Builds without MPI: Fed-PNE's MPI runtime says so.
#include "gpbandit/error.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"

namespace gpb::xarmed::mpi {

namespace {
[[noreturn]] void none() {
  throw InvalidArgument(
      "--mpi: this gpbandit was built without MPI (install libopenmpi-dev and reconfigure)");
}
}  // namespace

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
