/// @file communicator_impl.hpp
/// The collectives behind gpb::Communicator (internal): one rank (src/comm/communicator.cpp) or MPI
/// (src/comm/mpi/communicator_mpi.cpp). Every collective is made by every rank in the same order;
/// the MPI implementation bounds each wait by the timeout and throws RankFailure naming the rank
/// that stopped responding.
#pragma once

#include <cstdint>
#include <limits>

#include "gpbandit/comm/communicator.hpp"

namespace gpb {

namespace detail {

/// One run's part of the sharded UCB argmax, all doubles so one MPI datatype carries it. Integer
/// fields hold exact integers (|x| < 2^53).
struct UcbRecord {
  double score = -std::numeric_limits<double>::infinity();  ///< best score (−∞ when none)
  double index = -1;      ///< lowest candidate index with that score (−1: every one excluded)
  double ties = 0;        ///< candidates with exactly that score
  double nan_index = -1;  ///< lowest candidate whose score is NaN (−1: none)
  double nan_mean = 0;    ///< μ at nan_index
  double nan_var = 0;     ///< σ² at nan_index
};

/// Merges b into `into`: the higher score wins; equal scores keep the lower index and add their
/// ties; the lower NaN index wins. Commutative and associative (the MPI reduction operator).
inline void merge_records(UcbRecord& into, const UcbRecord& b) {
  if (b.nan_index >= 0 && (into.nan_index < 0 || b.nan_index < into.nan_index)) {
    into.nan_index = b.nan_index;
    into.nan_mean = b.nan_mean;
    into.nan_var = b.nan_var;
  }
  if (b.index < 0) return;
  if (into.index < 0 || b.score > into.score) {
    into.score = b.score;
    into.index = b.index;
    into.ties = b.ties;
  } else if (b.score == into.score) {
    if (b.index < into.index) {
      into.index = b.index;
      into.score = b.score;  // the lowest candidate's score (±0 compare equal)
    }
    into.ties += b.ties;
  }
}

}  // namespace detail

/// The collectives a sharded FinitePosterior needs. `what` names the operation in a failure.
struct Communicator::Impl {
  virtual ~Impl() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int node_rank() const = 0;
  virtual double timeout_s() const = 0;
  virtual bool is_mpi() const = 0;
  /// Bitwise OR of `count` 64-bit words over every rank, in place: how an owner's doubles reach
  /// every rank bit for bit when the others contribute zeros.
  virtual void allreduce_or(std::uint64_t* data, int count, const char* what) = 0;
  /// merge_records over every rank, element by element, in place.
  virtual void allreduce_ucb(detail::UcbRecord* data, int count, const char* what) = 0;
  /// Element-wise maximum over every rank, in place.
  virtual void allreduce_max(int* data, int count, const char* what) = 0;
  /// all[q·count + i] = rank q's mine[i].
  virtual void allgather(const int* mine, int count, int* all, const char* what) = 0;
  /// Concatenates every rank's `counts[q]` doubles in rank order into `all`.
  virtual void allgatherv(const double* mine, const int* counts, double* all, const char* what) = 0;
  /// Rank 0's `all` (read on rank 0 only: counts[q] doubles for each rank q, in rank order) split
  /// so that rank q receives its counts[q] doubles into `mine`. `counts` is the same on every rank.
  virtual void scatterv(const double* all, const int* counts, double* mine, const char* what) = 0;
  /// Ends the job (never returns).
  [[noreturn]] virtual void abort(int code) = 0;

  CommStats stats;  ///< updated by every collective
};

namespace detail {
/// The one-rank implementation (every collective is the identity).
std::shared_ptr<Communicator::Impl> make_self_communicator();
}  // namespace detail

}  // namespace gpb
