// Communicator::in_process: K ranks as threads of one process (no MPI). Every collective is two
// barriers on a shared group: each rank copies its contribution into its slot, waits for the
// others, computes the result from all slots into its own buffer, and waits again before the slots
// may be reused. A rank that does not arrive within the timeout is named in a RankFailure, thrown
// by every waiting rank (the lowest of them reports it), exactly as with MPI.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <vector>

#include "comm/communicator_impl.hpp"

namespace gpb {

namespace {

using Clock = std::chrono::steady_clock;

/// The state the K ranks of one in-process communicator share.
struct Group {
  Group(int k, double t)
      : size(k),
        timeout_s(t),
        slot(static_cast<std::size_t>(k)),
        at_barrier(static_cast<std::size_t>(k), 0) {}
  const int size;
  const double timeout_s;
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::vector<unsigned char>> slot;  // each rank's contribution to the collective
  std::vector<char> at_barrier;                  // who has reached the current barrier
  int arrived = 0;
  std::uint64_t generation = 0;  // barriers passed
  bool broken = false;           // a rank failed: every later collective throws

  /// Waits until every rank reached this barrier (or throws RankFailure for `rank`).
  void barrier(int rank, const char* what, std::uint64_t step) {
    std::unique_lock<std::mutex> lock(m);
    if (broken) fail(rank, what, step, lock);
    at_barrier[static_cast<std::size_t>(rank)] = 1;
    if (++arrived == size) {
      arrived = 0;
      std::fill(at_barrier.begin(), at_barrier.end(), 0);
      ++generation;
      cv.notify_all();
      return;
    }
    const std::uint64_t g = generation;
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    if (!cv.wait_until(lock, deadline, [&] { return generation != g || broken; }) || broken) {
      fail(rank, what, step, lock);
    }
  }

  /// Marks the group broken and throws RankFailure naming the lowest rank not at the barrier.
  [[noreturn]] void fail(int rank, const char* what, std::uint64_t step,
                         std::unique_lock<std::mutex>& lock) {
    broken = true;
    cv.notify_all();
    int silent = -1, reporter = -1;
    for (int q = 0; q < size; ++q) {
      if (at_barrier[static_cast<std::size_t>(q)] == 0 && silent < 0) silent = q;
      if (at_barrier[static_cast<std::size_t>(q)] != 0 && reporter < 0) reporter = q;
    }
    lock.unlock();
    std::ostringstream os;
    os << "in-process ranks: rank " << silent << " stopped responding (" << what << ", collective "
       << step << ", no progress within " << timeout_s << " s)";
    throw RankFailure(os.str(), silent, reporter == rank);
  }
};

class ThreadImpl final : public Communicator::Impl {
 public:
  ThreadImpl(std::shared_ptr<Group> g, int rank) : g_(std::move(g)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return g_->size; }
  int node_rank() const override { return rank_; }
  double timeout_s() const override { return g_->timeout_s; }
  bool is_mpi() const override { return false; }

  // Payload bytes are counted as the MPI implementation counts them.
  void allreduce_or(std::uint64_t* data, int count, const char* what) override {
    exchange(data, count, false, 8.0 * count, what, [&](int, const std::uint64_t* in) {
      for (int i = 0; i < count; ++i) data[i] |= in[i];
    });
  }
  void allreduce_ucb(detail::UcbRecord* data, int count, const char* what) override {
    const double bytes = static_cast<double>(sizeof(detail::UcbRecord)) * count;
    exchange(data, count, false, bytes, what, [&](int, const detail::UcbRecord* in) {
      for (int i = 0; i < count; ++i) detail::merge_records(data[i], in[i]);
    });
  }
  void allreduce_max(int* data, int count, const char* what) override {
    exchange(data, count, false, 4.0 * count, what, [&](int, const int* in) {
      for (int i = 0; i < count; ++i) data[i] = std::max(data[i], in[i]);
    });
  }
  void allgather(const int* mine, int count, int* all, const char* what) override {
    exchange(mine, count, true, 4.0 * count * size(), what, [&](int q, const int* in) {
      std::copy(in, in + count, all + static_cast<std::size_t>(q) * count);
    });
  }
  void allgatherv(const double* mine, const int* counts, double* all, const char* what) override {
    std::vector<std::size_t> displs(static_cast<std::size_t>(size()) + 1, 0);
    for (int q = 0; q < size(); ++q)
      displs[q + 1] = displs[q] + static_cast<std::size_t>(counts[q]);
    const double bytes = 8.0 * static_cast<double>(displs.back());
    exchange(mine, counts[rank_], true, bytes, what, [&](int q, const double* in) {
      std::copy(in, in + counts[q], all + displs[static_cast<std::size_t>(q)]);
    });
  }
  void scatterv(const double* all, const int* counts, double* mine, const char* what) override {
    // Rank 0 offers everything; every rank copies its part of rank 0's slot.
    std::size_t at = 0, total = 0;
    for (int q = 0; q < size(); ++q) {
      if (q < rank_) at += static_cast<std::size_t>(counts[q]);
      total += static_cast<std::size_t>(counts[q]);
    }
    const int n = rank_ == 0 ? static_cast<int>(total) : 0;
    exchange(all, n, true, 8.0 * counts[rank_], what, [&](int q, const double* in) {
      if (q == 0) std::copy(in + at, in + at + counts[rank_], mine);
    });
  }
  [[noreturn]] void abort(int code) override {
    std::fflush(nullptr);
    std::_Exit(code);  // ends every rank: they are threads of this process
  }

 private:
  /// One collective: this rank's `count` values of `mine` reach every rank, which then calls
  /// `combine(q, values of rank q)` in rank order for every rank q (`with_self`: this one too;
  /// otherwise the output already holds this rank's values: in-place reductions).
  template <class T, class Combine>
  void exchange(const T* mine, int count, bool with_self, double bytes, const char* what,
                Combine combine) {
    const auto t0 = Clock::now();
    ++step_;
    const std::size_t size_bytes = sizeof(T) * static_cast<std::size_t>(count);
    {
      std::lock_guard<std::mutex> lock(g_->m);
      std::vector<unsigned char>& s = g_->slot[static_cast<std::size_t>(rank_)];
      s.resize(size_bytes);
      if (size_bytes > 0) std::memcpy(s.data(), mine, size_bytes);
    }
    g_->barrier(rank_, what, step_);
    std::vector<T> in;                  // a copy: the slot's bytes need not be aligned for T
    for (int q = 0; q < size(); ++q) {  // the slots stay unchanged until the second barrier
      if (q == rank_ && !with_self) continue;
      const std::vector<unsigned char>& s = g_->slot[static_cast<std::size_t>(q)];
      in.resize(s.size() / sizeof(T));
      if (!s.empty()) std::memcpy(in.data(), s.data(), s.size());
      combine(q, in.data());
    }
    g_->barrier(rank_, what, step_);
    stats.collectives += 1;
    stats.bytes += static_cast<std::uint64_t>(bytes);
    stats.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  }

  std::shared_ptr<Group> g_;
  int rank_;
  std::uint64_t step_ = 0;
};

}  // namespace

std::vector<Communicator> Communicator::in_process(int ranks, double timeout_s) {
  GPB_EXPECTS(ranks >= 1, "communicator: in_process needs at least 1 rank, got " << ranks);
  GPB_EXPECTS(timeout_s > 0, "communicator: timeout must be > 0 s, got " << timeout_s);
  auto group = std::make_shared<Group>(ranks, timeout_s);
  std::vector<Communicator> out;
  for (int q = 0; q < ranks; ++q)
    out.push_back(Communicator(std::make_shared<ThreadImpl>(group, q)));
  return out;
}

}  // namespace gpb
