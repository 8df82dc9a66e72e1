// gpb::Communicator: the handle, the slice arithmetic and the one-rank implementation. MPI lives in
// src/comm/mpi/communicator_mpi.cpp (or src/comm/mpi_stub/no_mpi.cpp in builds without MPI).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "comm/communicator_impl.hpp"

namespace gpb {

namespace {

class SelfImpl final : public Communicator::Impl {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int node_rank() const override { return 0; }
  double timeout_s() const override { return Communicator::kDefaultTimeout; }
  bool is_mpi() const override { return false; }
  void allreduce_or(std::uint64_t*, int, const char*) override {}
  void allreduce_ucb(detail::UcbRecord*, int, const char*) override {}
  void allreduce_max(int*, int, const char*) override {}
  void allgather(const int* mine, int count, int* all, const char*) override {
    std::copy(mine, mine + count, all);
  }
  void allgatherv(const double* mine, const int* counts, double* all, const char*) override {
    std::copy(mine, mine + counts[0], all);
  }
  void scatterv(const double* all, const int* counts, double* mine, const char*) override {
    std::copy(all, all + counts[0], mine);
  }
  [[noreturn]] void abort(int code) override { std::exit(code); }
};

}  // namespace

namespace detail {
std::shared_ptr<Communicator::Impl> make_self_communicator() {
  return std::make_shared<SelfImpl>();
}
}  // namespace detail

Communicator::Communicator() : impl_(detail::make_self_communicator()) {}
Communicator::Communicator(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

int Communicator::rank() const {
  return impl_->rank();
}
int Communicator::size() const {
  return impl_->size();
}
int Communicator::node_rank() const {
  return impl_->node_rank();
}
double Communicator::timeout_s() const {
  return impl_->timeout_s();
}

std::pair<long long, long long> Communicator::slice(long long n, int q) const {
  const long long k = size();
  GPB_EXPECTS(q >= 0 && q < k, "communicator: rank " << q << " out of range [0, " << k << ")");
  return slice_of(n, q, static_cast<int>(k));
}

int Communicator::owner(long long n, long long a) const {
  const long long k = size();
  // The largest q with ⌊n·q/k⌋ ≤ a: start from the estimate and correct by at most one.
  long long q = std::min(k - 1, (a * k + k - 1) / n);
  while (q > 0 && n * q / k > a) --q;
  while (q + 1 < k && n * (q + 1) / k <= a) ++q;
  return static_cast<int>(q);
}

CommStats Communicator::stats() const {
  return impl_->stats;
}
void Communicator::abort(int code) const {
  impl_->abort(code);
  std::_Exit(code);  // not reached: every implementation ends the process
}

std::string Communicator::describe() const {
  std::ostringstream os;
  os << size() << (size() == 1 ? " rank" : " ranks");
  if (impl_->is_mpi()) {
    os << " (MPI)";
  } else if (size() > 1) {
    os << " (threads)";
  }
  return os.str();
}

}  // namespace gpb
