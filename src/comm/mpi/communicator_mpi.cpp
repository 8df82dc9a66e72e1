// gpb::Communicator over MPI: non-blocking collectives polled against a deadline (a fixed timeout,
// or an adaptive one: Communicator::kAdaptiveTimeout). When one times out, the live ranks exchange
// "alive" messages on a private duplicate communicator for a grace period; every live rank then
// knows the same set of silent ranks, throws RankFailure naming the lowest, and the lowest live
// rank is the one that reports it.
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "comm/communicator_impl.hpp"
#include "comm/mpi/runtime_internal.hpp"
#include "gpbandit/comm/mpi_runtime.hpp"

namespace gpb {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTagAlive = 71;

void reduce_records(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const detail::UcbRecord*>(in);
  auto* b = static_cast<detail::UcbRecord*>(inout);
  for (int i = 0; i < *len; ++i) detail::merge_records(b[i], a[i]);
}

bool mpi_live() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init != 0 && fin == 0;
}

/// Initialises MPI once (funneled: only the thread that made the call communicates); when this
/// call initialised it, MPI_Finalize runs at exit.
void ensure_mpi() {
  int flag = 0;
  MPI_Initialized(&flag);
  if (flag) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  std::atexit([] {
    if (!mpi_live()) return;
    if (mpi::rank_failure_seen()) mpi::abort_all(1);  // MPI_Finalize would wait for a lost rank
    MPI_Finalize();
  });
}

/// Fault injection for tests (as the Fed-PNE runtime's GPB_FAULT_*): GPB_SHARD_FAULT_RANK=K,
/// GPB_SHARD_FAULT_STEP=s and GPB_SHARD_FAULT_MODE=hang|exit make rank K hang or die (_Exit(3))
/// when it starts collective s (counted from 1 per communicator) of a communicator of ≥ 2 ranks.
struct Fault {
  int rank = -1;
  std::uint64_t step = 0;
  bool exit = false;
  Fault() {
    const char* r = std::getenv("GPB_SHARD_FAULT_RANK");
    const char* s = std::getenv("GPB_SHARD_FAULT_STEP");
    const char* m = std::getenv("GPB_SHARD_FAULT_MODE");
    if (r == nullptr || s == nullptr) return;
    rank = std::atoi(r);
    step = std::strtoull(s, nullptr, 10);
    exit = m != nullptr && std::string(m) == "exit";
  }
};

class MpiImpl final : public Communicator::Impl {
 public:
  MpiImpl(MPI_Comm parent, double timeout_s) : timeout_s_(timeout_s) {
    MPI_Comm_dup(parent, &comm_);
    MPI_Comm_dup(parent, &diag_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(diag_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    MPI_Comm node;
    MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank_);
    MPI_Comm_free(&node);
    MPI_Type_contiguous(sizeof(detail::UcbRecord) / sizeof(double), MPI_DOUBLE, &record_);
    MPI_Type_commit(&record_);
    MPI_Op_create(&reduce_records, 1, &record_op_);
  }
  ~MpiImpl() override {
    if (!mpi_live()) return;
    MPI_Op_free(&record_op_);
    MPI_Type_free(&record_);
    MPI_Comm_free(&diag_);
    MPI_Comm_free(&comm_);
  }
  MpiImpl(const MpiImpl&) = delete;
  MpiImpl& operator=(const MpiImpl&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int node_rank() const override { return node_rank_; }
  double timeout_s() const override { return timeout_s_; }
  bool is_mpi() const override { return true; }

  void allreduce_or(std::uint64_t* data, int count, const char* what) override {
    run(what, 8.0 * count, [&](MPI_Request* rq) {
      return MPI_Iallreduce(MPI_IN_PLACE, data, count, MPI_UINT64_T, MPI_BOR, comm_, rq);
    });
  }
  void allreduce_ucb(detail::UcbRecord* data, int count, const char* what) override {
    run(what, static_cast<double>(sizeof(detail::UcbRecord)) * count, [&](MPI_Request* rq) {
      return MPI_Iallreduce(MPI_IN_PLACE, data, count, record_, record_op_, comm_, rq);
    });
  }
  void allreduce_max(int* data, int count, const char* what) override {
    run(what, 4.0 * count, [&](MPI_Request* rq) {
      return MPI_Iallreduce(MPI_IN_PLACE, data, count, MPI_INT, MPI_MAX, comm_, rq);
    });
  }
  void allgather(const int* mine, int count, int* all, const char* what) override {
    run(what, 4.0 * count * size_, [&](MPI_Request* rq) {
      return MPI_Iallgather(mine, count, MPI_INT, all, count, MPI_INT, comm_, rq);
    });
  }
  void allgatherv(const double* mine, const int* counts, double* all, const char* what) override {
    std::vector<int> displs(static_cast<std::size_t>(size_), 0);
    double total = 0;
    for (int q = 0; q < size_; ++q) {
      if (q > 0) displs[q] = displs[q - 1] + counts[q - 1];
      total += counts[q];
    }
    run(what, 8.0 * total, [&](MPI_Request* rq) {
      return MPI_Iallgatherv(mine, counts[rank_], MPI_DOUBLE, all, counts, displs.data(),
                             MPI_DOUBLE, comm_, rq);
    });
  }
  void scatterv(const double* all, const int* counts, double* mine, const char* what) override {
    std::vector<int> displs(static_cast<std::size_t>(size_), 0);
    for (int q = 1; q < size_; ++q) displs[q] = displs[q - 1] + counts[q - 1];
    run(what, 8.0 * counts[rank_], [&](MPI_Request* rq) {
      return MPI_Iscatterv(all, counts, displs.data(), MPI_DOUBLE, mine, counts[rank_], MPI_DOUBLE,
                           0, comm_, rq);
    });
  }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(comm_, code);
    std::_Exit(code);
  }

 private:
  /// Starts one collective with `start`, then waits for it (bounded by the timeout).
  template <class Start>
  void run(const char* what, double bytes, Start start) {
    ++step_;
    if (size_ > 1 && fault_.rank == rank_ && fault_.step == step_) {
      if (fault_.exit) std::_Exit(3);
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // hang
    }
    const auto t0 = Clock::now();
    MPI_Request rq = MPI_REQUEST_NULL;
    if (start(&rq) != MPI_SUCCESS) failed(what, "could not be started");
    wait(rq, what, t0);
    const auto now = Clock::now();
    stats.collectives += 1;
    stats.bytes += static_cast<std::uint64_t>(bytes);
    stats.seconds += std::chrono::duration<double>(now - t0).count();
    if (stats.collectives > 1) {
      longest_ = std::max(longest_, std::chrono::duration<double>(now - last_).count());
    }
    last_ = now;
  }

  /// Seconds the next collective may wait: the fixed timeout, or the adaptive one (see
  /// Communicator::kAdaptiveTimeout).
  double limit() const {
    return timeout_s_ > 0 ? timeout_s_
                          : Communicator::adaptive_timeout(stats.collectives, longest_);
  }

  /// Polls `rq` until done: spins first (a round's collectives are short), then yields, then
  /// sleeps, so oversubscribed ranks leave the cores to the ones computing.
  void wait(MPI_Request& rq, const char* what, Clock::time_point t0) {
    const double limit_s = limit();
    const auto deadline = t0 + std::chrono::duration<double>(limit_s);
    for (long i = 0;; ++i) {
      int flag = 0;
      if (MPI_Test(&rq, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) failed(what, "failed");
      if (flag) return;
      if (i < 64) continue;
      const auto now = Clock::now();
      if (now > deadline) diagnose(what, limit_s);
      if (now - t0 < std::chrono::milliseconds(2)) {
        sched_yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
  }

  [[noreturn]] void failed(const char* what, const char* how) {
    std::ostringstream os;
    os << "MPI: " << what << " (collective " << step_ << ") " << how << " on rank " << rank_;
    mpi::detail::note_rank_failure();
    throw RankFailure(os.str(), rank_, true);
  }

  /// Collective `what` timed out: every live rank tells every other one it is alive and listens
  /// for a grace period; the silent ranks are the ones that stopped responding.
  [[noreturn]] void diagnose(const char* what, double limit_s) {
    const double grace = std::clamp(limit_s / 4, 1.0, 30.0);
    std::vector<int> alive(static_cast<std::size_t>(size_), 0), in(static_cast<std::size_t>(size_));
    alive[static_cast<std::size_t>(rank_)] = 1;
    std::vector<MPI_Request> recv(static_cast<std::size_t>(size_), MPI_REQUEST_NULL),
        send(static_cast<std::size_t>(size_), MPI_REQUEST_NULL);
    int me = rank_;
    for (int q = 0; q < size_; ++q) {
      if (q == rank_) continue;
      MPI_Irecv(&in[static_cast<std::size_t>(q)], 1, MPI_INT, q, kTagAlive, diag_, &recv[q]);
      MPI_Isend(&me, 1, MPI_INT, q, kTagAlive, diag_, &send[q]);
    }
    const auto end = Clock::now() + std::chrono::duration<double>(grace);
    int missing = size_ - 1;
    while (missing > 0 && Clock::now() < end) {
      for (int q = 0; q < size_; ++q) {
        if (alive[static_cast<std::size_t>(q)] != 0) continue;
        int flag = 0;
        MPI_Test(&recv[static_cast<std::size_t>(q)], &flag, MPI_STATUS_IGNORE);
        if (flag) {
          alive[static_cast<std::size_t>(q)] = 1;
          --missing;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    int silent = -1, reporter = -1;
    for (int q = 0; q < size_; ++q) {
      if (alive[static_cast<std::size_t>(q)] == 0 && silent < 0) silent = q;
      if (alive[static_cast<std::size_t>(q)] != 0 && reporter < 0) reporter = q;
    }
    std::ostringstream within;
    within.precision(3);
    within << limit_s << " s";
    if (!(timeout_s_ > 0)) within << ", the adaptive timeout";
    std::ostringstream os;
    os << "MPI: rank " << silent << " stopped responding (" << what << ", collective " << step_
       << ", no progress within " << within.str() << ")";
    if (silent < 0) {
      os.str("");
      os << "MPI: " << what << " (collective " << step_ << ") made no progress within "
         << within.str() << " although every rank is alive (ranks out of step?)";
    }
    mpi::detail::note_rank_failure();
    throw RankFailure(os.str(), silent, reporter == rank_);
  }

  MPI_Comm comm_ = MPI_COMM_NULL, diag_ = MPI_COMM_NULL;
  MPI_Datatype record_ = MPI_DATATYPE_NULL;
  MPI_Op record_op_ = MPI_OP_NULL;
  int rank_ = 0, size_ = 1, node_rank_ = 0;
  double timeout_s_;  ///< > 0: fixed; 0: adaptive
  std::uint64_t step_ = 0;
  Clock::time_point last_;  ///< when the last collective completed
  double longest_ = 0;      ///< longest interval between two completions so far, seconds
  Fault fault_;
};

}  // namespace

bool Communicator::mpi_available() {
  return true;
}

Communicator Communicator::world(double timeout_s) {
  GPB_EXPECTS(timeout_s >= 0 && timeout_s < 1e9,
              "communicator: timeout must be > 0 s (or 0: adaptive), got " << timeout_s);
  ensure_mpi();
  return Communicator(std::make_shared<MpiImpl>(MPI_COMM_WORLD, timeout_s));
}

Communicator Communicator::from_fortran(std::int64_t handle, double timeout_s) {
  GPB_EXPECTS(timeout_s >= 0 && timeout_s < 1e9,
              "communicator: timeout must be > 0 s (or 0: adaptive), got " << timeout_s);
  GPB_EXPECTS(mpi_live(), "communicator: MPI is not initialised (or already finalised)");
  const MPI_Comm c = MPI_Comm_f2c(static_cast<MPI_Fint>(handle));
  GPB_EXPECTS(c != MPI_COMM_NULL, "communicator: handle " << handle << " is MPI_COMM_NULL");
  return Communicator(std::make_shared<MpiImpl>(c, timeout_s));
}

}  // namespace gpb
