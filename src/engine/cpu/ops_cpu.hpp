/// @file ops_cpu.hpp
/// CPU implementations of the engine ops (internal; the public entry points in src/engine/ops.cpp
/// dispatch here on Backend::Cpu).
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/detail/scalar_steps.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

/// The thread budget of a CPU op: at most `max` threads, one more per `min_work` estimated scalar
/// operations (gpb::threads_for_work), so small loops run on the calling thread alone.
struct Threads {
  int max = 1;          ///< Context::threads()
  double min_work = 0;  ///< ContextOptions::min_parallel_work
  /// The budget of `ctx`.
  static Threads of(const Context& ctx) { return {ctx.threads(), ctx.options().min_parallel_work}; }
  /// Threads for a loop of about `work` operations.
  int for_work(double work) const { return threads_for_work(max, min_work, work); }
};

/// Estimated scalar operations of one candidate's UCB score (a square root, a multiply-add and a
/// compare), the work unit of the argmax loops' thread budget.
inline constexpr double kUcbWorkPerCandidate = 8.0;

/// Checks that the columns of `points` are valid inputs of `k`: for a precomputed kernel a 1×n
/// row of integer indices in range. `what` names the argument in the message.
/// @throws InvalidArgument otherwise.
void check_kernel_points(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& points,
                         const char* what);

/// Checks that `k` and the candidates of `domain` belong together: a fingerprint kernel (Tanimoto,
/// MinMax) needs a fingerprint domain of its kind (bits, counts), and a fingerprint domain needs a
/// fingerprint kernel; then check_kernel_points. @throws InvalidArgument naming `what`.
void check_kernel_domain(const Kernel& k, const Domain& domain, const char* what);

/// K(A, B) on the host with up to `threads.max` OpenMP threads. Inputs already validated.
Eigen::MatrixXd kernel_matrix_cpu(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& A,
                                  const Eigen::Ref<const Eigen::MatrixXd>& B, Threads threads);

/// k(x_j, x_j) for every column of `points`. Inputs already validated.
Eigen::VectorXd kernel_diag_cpu(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& points,
                                Threads threads);

/// Best UCB score of a range of candidates: the lowest index reaching it and how many candidates
/// tie with it exactly; `nan` when some score was NaN (nan_index = the first such candidate).
struct UcbBest {
  double score = -std::numeric_limits<double>::infinity();  ///< best score (−∞ when none)
  int index = -1;                                           ///< lowest index with that score
  int ties = 0;                                             ///< candidates with exactly that score
  bool nan = false;                                         ///< some score was NaN
  int nan_index = -1;                                       ///< the first NaN candidate
};
/// Merges `b` into `into`; `b` must cover higher indices than everything merged so far.
void merge_best(UcbBest& into, const UcbBest& b);
/// Scans candidates [begin, end) (excluded ones skipped) with the fused score ucb_score.
UcbBest scan_ucb(const double* mean, const double* variance, int begin, int end, double width,
                 const std::uint8_t* excluded);
/// @throws InvalidArgument when `best` saw a NaN score or found no candidate (all excluded).
/// `order` (may be null) maps array positions to the candidate indices named in the message.
void check_ucb_best(const UcbBest& best, const double* mean, const double* variance, int n,
                    double width, const int* order = nullptr);
/// The rank k ∈ [0, ties) of the tie to choose: uniform from `tiebreak` when there are several
/// ties and a generator is given (one draw), else 0 (the lowest index).
int tie_rank(const UcbBest& best, Rng* tiebreak);
/// Counts down k over the candidates of [begin, end) whose score equals `score` exactly, in index
/// order; returns the candidate where k passes 0, or −1 (k then holds what is left).
int find_tie(const double* mean, const double* variance, int begin, int end, double width,
             const std::uint8_t* excluded, double score, int& k);

/// scan_ucb over [0, n) with up to `threads` OpenMP threads (the same result for any count).
UcbBest scan_ucb_parallel(const double* mean, const double* variance, int n, double width,
                          const std::uint8_t* excluded, Threads threads);

/// UCB argmax over n candidates (see gpb::ucb_argmax for the contract).
UcbChoice ucb_argmax_cpu(const double* mean, const double* variance, int n, double width,
                         const std::uint8_t* excluded, Rng* tiebreak, Threads threads);

}  // namespace gpb::detail
