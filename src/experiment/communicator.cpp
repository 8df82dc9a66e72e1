// The single-process Communicator (MPI's is in src/mpi/communicator.cpp).
#include "experiment/family.hpp"

namespace gpb::detail {

namespace {

class Local final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void broadcast(std::vector<long long>&) override {}
};

}  // namespace

std::unique_ptr<Communicator> make_local_communicator() {
  return std::make_unique<Local>();
}

}  // namespace gpb::detail
