// The pipeline's Communicator over MPI_COMM_WORLD: rank 0 writes, plans are broadcast from it.
#include <mpi.h>

#include "experiment/family.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"

namespace gpb::detail {

namespace {

class Mpi final : public Communicator {
 public:
  Mpi() : world_(xarmed::mpi::init()) {}
  int rank() const override { return world_.rank; }
  int size() const override { return world_.size; }
  void broadcast(std::vector<long long>& values) override {
    long long n = static_cast<long long>(values.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    values.resize(static_cast<std::size_t>(n));
    if (n > 0) MPI_Bcast(values.data(), static_cast<int>(n), MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  }

 private:
  xarmed::mpi::World world_;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator() {
  return std::make_unique<Mpi>();
}

}  // namespace gpb::detail
