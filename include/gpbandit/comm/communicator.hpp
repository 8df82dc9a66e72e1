/// @file communicator.hpp
/// The ranks a finite domain is sharded over: an opaque handle on an MPI communicator (MPI builds)
/// or a single rank. No MPI header is needed to use it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpbandit/error.hpp"

namespace gpb {

/// Communication counters of a Communicator (this rank's view), for reports and benchmarks.
struct CommStats {
  std::uint64_t collectives = 0;  ///< collective operations completed
  std::uint64_t bytes = 0;        ///< payload bytes of those collectives (the buffer each reduces
                                  ///< or gathers on this rank; the same on every rank)
  double seconds = 0;             ///< wall time spent inside them (waiting included)
};

/// A rank of a sharded job stopped taking part: it died, hung, or fell more than the timeout
/// behind. Every live rank throws it from the collective that timed out; the communicator is
/// unusable afterwards and the job should end (Communicator::abort). what() names the rank.
class RankFailure : public Error {
 public:
  /// @param what the message, naming the rank and the collective
  /// @param failed_rank the rank that stopped responding (−1 when every rank answered)
  /// @param reporter whether this rank is the one chosen to print the message (the lowest live
  /// rank), so that a job prints it once.
  RankFailure(const std::string& what, int failed_rank, bool reporter)
      : Error(what), failed_rank_(failed_rank), reporter_(reporter) {}
  /// The rank that stopped responding.
  int failed_rank() const { return failed_rank_; }
  /// Whether this rank should report the failure (exactly one live rank does).
  bool reporter() const { return reporter_; }

 private:
  int failed_rank_;
  bool reporter_;
};

/// The ranks a FinitePosterior's domain is sharded over. A default-constructed Communicator is
/// one rank (nothing is sharded, no MPI is touched). Rank q of K holds the contiguous slice
/// [⌊N·q/K⌋, ⌊N·(q+1)/K⌋) of an N-candidate domain (slice()).
///
/// Collective operations made through it (FinitePosterior's observe, add_pending, ucb_argmax,
/// mean, variance) must be called by every rank in the same order with the same arguments.
/// Every collective waits at most timeout_s seconds: past that the live ranks find out which rank
/// stopped responding and throw RankFailure naming it (never a hang). Cheap to copy (shared
/// handle); copies share the counters.
///
/// Thread safety: one rank's handle is used by one thread (the thread ranks of in_process() are
/// one thread each); collectives are not reentrant.
class Communicator {
 public:
  /// Default per-collective timeout, seconds.
  static constexpr double kDefaultTimeout = 600.0;
  /// A timeout of 0 asks an MPI communicator for an adaptive one, fitted to the run's own pace
  /// (adaptive_timeout(); `gpbandit run --mpi` uses it unless --mpi-timeout is given).
  static constexpr double kAdaptiveTimeout = 0.0;
  ///@{
  /// The adaptive rule's constants (seconds; the factor is a ratio), see adaptive_timeout().
  static constexpr double kAdaptiveSetup = 600.0;
  static constexpr double kAdaptiveFloor = 60.0;
  static constexpr double kAdaptiveFactor = 20.0;
  ///@}
  /// The adaptive timeout of the next collective after `completed` collectives whose longest
  /// interval between two consecutive completions was `longest_interval_s` seconds (this rank's
  /// clock): kAdaptiveSetup (600 s) before the first completes (set-up: a domain read and
  /// scattered, first allocations), then max(kAdaptiveFloor, kAdaptiveFactor · longest) =
  /// max(60 s, 20 × the slowest round so far). A rank that hangs in a run whose rounds take
  /// 50 ms is named after about 75 s (60 s and the grace period), not after 10 minutes.
  static double adaptive_timeout(std::uint64_t completed, double longest_interval_s) {
    if (completed == 0) return kAdaptiveSetup;
    const double scaled = kAdaptiveFactor * longest_interval_s;
    return scaled > kAdaptiveFloor ? scaled : kAdaptiveFloor;
  }

  /// One rank: size() = 1, nothing communicated.
  Communicator();
  /// MPI_COMM_WORLD (duplicated), initialising MPI if needed. `timeout_s` > 0 bounds every
  /// collective; kAdaptiveTimeout (0) gives the adaptive bound of adaptive_timeout().
  /// @throws InvalidArgument in a build without MPI, or if timeout_s < 0.
  static Communicator world(double timeout_s = kDefaultTimeout);
  /// An existing MPI communicator given by its Fortran handle (MPI_Comm_c2f, or mpi4py's
  /// `comm.py2f()`), duplicated; `timeout_s` as for world().
  /// @throws InvalidArgument without MPI or if timeout_s < 0.
  static Communicator from_fortran(std::int64_t handle, double timeout_s = kDefaultTimeout);
  /// Whether this build has MPI.
  static bool mpi_available();
  /// K ranks as threads of this process, without MPI: element q is rank q's handle, to be used
  /// (with everything built on it: its Context, its FinitePosterior) by one thread only. Shards a
  /// domain over the GPUs of one machine (a CUDA Context picks device (device + q) mod count), or
  /// tests sharding where MPI is absent. A rank that stops calling collectives makes the others
  /// throw RankFailure after timeout_s (a fixed timeout: no adaptive one here); abort() ends the
  /// whole process. @throws InvalidArgument if ranks < 1 or timeout_s ≤ 0.
  static std::vector<Communicator> in_process(int ranks, double timeout_s = kDefaultTimeout);

  /// This process's rank in [0, size()).
  int rank() const;
  /// Number of ranks K.
  int size() const;
  /// Rank among the ranks on this node (MPI_COMM_TYPE_SHARED); picks the GPU of a CUDA shard.
  int node_rank() const;
  /// Whether the domain is split (size() > 1).
  bool sharded() const { return size() > 1; }
  /// Seconds a collective may wait for the other ranks (0: adaptive, see adaptive_timeout()).
  double timeout_s() const;

  /// Rank q's slice [begin, end) of n candidates split over k ranks: [⌊n·q/k⌋, ⌊n·(q+1)/k⌋)
  /// (non-empty when n ≥ k). The one formula every sharded piece uses (posterior, domain, f).
  static std::pair<long long, long long> slice_of(long long n, int q, int k) {
    return {n * q / k, n * (q + 1) / k};
  }
  /// Rank q's slice [begin, end) of n candidates: slice_of(n, q, size()).
  std::pair<long long, long long> slice(long long n, int q) const;
  /// This rank's slice of n candidates.
  std::pair<long long, long long> slice(long long n) const { return slice(n, rank()); }
  /// The rank whose slice of n candidates holds candidate a.
  int owner(long long n, long long a) const;

  /// Counters of the collectives made so far (this rank).
  CommStats stats() const;
  /// Ends every rank of the job with exit code `code` (MPI_Abort); never returns. On one rank,
  /// std::exit(code).
  [[noreturn]] void abort(int code) const;
  /// Short description, e.g. "4 ranks (MPI)", "2 ranks (threads)" or "1 rank".
  std::string describe() const;

  /// Backend of the handle (one rank, or MPI); opaque to users.
  struct Impl;
  /// The backend, for the library's own collectives.
  Impl& impl() const { return *impl_; }

 private:
  explicit Communicator(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace gpb
