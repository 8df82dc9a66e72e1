// CPU engine ops: kernel matrices, kernel diagonals and the fused UCB argmax (OpenMP).
#include "engine/cpu/ops_cpu.hpp"

#include <omp.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/cpu/fingerprint_block.hpp"
#include "engine/cpu/kernel_eval.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {

void check_kernel_points(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& points,
                         const char* what) {
  if (k.type() != KernelType::Precomputed) {
    GPB_EXPECTS(points.rows() >= 1, what << " must have at least one row (the dimension)");
    GPB_EXPECTS(
        k.input_dim() == 0 || points.rows() == k.input_dim(),
        what << ": dimension " << points.rows() << " does not match the kernel " << k.describe()
             << " ("
             << (k.composite() ? "parts over " + std::to_string(k.input_dim()) + " features"
                               : std::to_string(k.ard_dim()) + " lengthscales, one per axis")
             << ")");
    return;
  }
  GPB_EXPECTS(points.rows() == 1,
              what << " must be a 1×n row of indices for a precomputed kernel, got "
                   << points.rows() << " rows");
  const double n = static_cast<double>(k.matrix()->rows());
  for (Eigen::Index j = 0; j < points.cols(); ++j) {
    const double v = points(0, j);
    GPB_EXPECTS(v >= 0 && v < n && v == std::floor(v),
                what << "[" << j << "] = " << v
                     << " is not a valid index of the precomputed kernel (an integer in [0, " << n
                     << "))");
  }
}

void check_kernel_domain(const Kernel& k, const Domain& domain, const char* what) {
  if (k.fingerprint()) {
    const FingerprintKind want =
        k.type() == KernelType::Tanimoto ? FingerprintKind::Bits : FingerprintKind::Counts;
    GPB_EXPECTS(domain.is_fingerprint(),
                what << ": the " << kernel_type_name(k.type())
                     << " kernel needs fingerprint candidates (Domain::fingerprints; config "
                     << "domain type \"fingerprints\" or \"molecules\")");
    GPB_EXPECTS(domain.fingerprint_kind() == want,
                what << ": the " << kernel_type_name(k.type()) << " kernel needs "
                     << fingerprint_kind_name(want) << " fingerprints, the candidates are "
                     << fingerprint_kind_name(domain.fingerprint_kind())
                     << (want == FingerprintKind::Bits ? " (use the minmax kernel)"
                                                       : " (use the tanimoto kernel)"));
  } else {
    GPB_EXPECTS(!domain.is_fingerprint(),
                what << ": the candidates are fingerprints (packed words, not coordinates); use "
                     << "the tanimoto (bits) or minmax (counts) kernel, not "
                     << kernel_type_name(k.type()));
  }
  if (domain.streams_points()) {  // no points held: the dimension is all there is to check
    check_kernel_points(k, Eigen::MatrixXd(domain.dim(), 0), what);
    return;
  }
  check_kernel_points(k, domain.points(), what);
}

Eigen::MatrixXd kernel_matrix_cpu(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& A,
                                  const Eigen::Ref<const Eigen::MatrixXd>& B, Threads threads) {
  const KernelEval eval(k);
  const int d = static_cast<int>(A.rows());
  const Eigen::Index n = A.cols(), m = B.cols();
  Eigen::MatrixXd K(n, m);
  // Ref<const MatrixXd> has an inner stride of 1 and columns spaced outerStride() apart.
  const Eigen::Index sa = A.outerStride(), sb = B.outerStride();
  if (k.fingerprint() && sa == d && sb == d) {  // packed words: the blocked popcount kernels
    fingerprint_block(eval, A.data(), n, B.data(), m, d, K.data(), n, threads);
    return K;
  }
  const double work = static_cast<double>(n) * static_cast<double>(m) * (d + 8);
  const int nt = threads.for_work(work);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (Eigen::Index j = 0; j < m; ++j) {
    const double* y = B.data() + j * sb;
    double* col = K.data() + j * n;
    for (Eigen::Index i = 0; i < n; ++i) col[i] = eval(A.data() + i * sa, y, d);
  }
  return K;
}

Eigen::VectorXd kernel_diag_cpu(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& points,
                                Threads threads) {
  const KernelEval eval(k);
  const int d = static_cast<int>(points.rows());
  const Eigen::Index n = points.cols(), s = points.outerStride();
  Eigen::VectorXd diag(n);
  const int nt = threads.for_work(static_cast<double>(n) * (d + 8));
#pragma omp parallel for schedule(static) num_threads(nt)
  for (Eigen::Index j = 0; j < n; ++j) {
    const double* x = points.data() + j * s;
    diag[j] = eval(x, x, d);
  }
  return diag;
}

void merge_best(UcbBest& into, const UcbBest& b) {
  if (b.nan && !into.nan) {
    into.nan = true;
    into.nan_index = b.nan_index;
  }
  if (b.index < 0) return;
  if (into.index < 0 || b.score > into.score) {
    into.score = b.score;
    into.index = b.index;
    into.ties = b.ties;
  } else if (b.score == into.score) {
    into.ties += b.ties;
  }
}

UcbBest scan_ucb(const double* mean, const double* variance, int begin, int end, double width,
                 const std::uint8_t* excluded) {
  UcbBest best;
  for (int j = begin; j < end; ++j) {
    if (excluded != nullptr && excluded[j] != 0) continue;
    const double s = ucb_score(mean[j], variance[j], width);
    if (std::isnan(s)) {
      if (!best.nan) best.nan_index = j;
      best.nan = true;
      continue;
    }
    if (best.index < 0 || s > best.score) {
      best.score = s;
      best.index = j;
      best.ties = 1;
    } else if (s == best.score) {
      ++best.ties;
    }
  }
  return best;
}

void check_ucb_best(const UcbBest& best, const double* mean, const double* variance, int n,
                    double width, const int* order) {
  GPB_EXPECTS(!best.nan, "ucb_argmax: the UCB score of candidate "
                             << (order != nullptr ? order[best.nan_index] : best.nan_index)
                             << " is NaN (mean " << mean[best.nan_index] << ", variance "
                             << variance[best.nan_index] << ", width " << width << ")");
  GPB_EXPECTS(best.index >= 0, "ucb_argmax: every one of the " << n << " candidates is excluded");
}

int tie_rank(const UcbBest& best, Rng* tiebreak) {
  if (best.ties <= 1 || tiebreak == nullptr) return 0;
  int k = static_cast<int>(std::floor(tiebreak->uniform() * best.ties));
  return k >= best.ties ? best.ties - 1 : k;
}

int find_tie(const double* mean, const double* variance, int begin, int end, double width,
             const std::uint8_t* excluded, double score, int& k) {
  for (int j = begin; j < end; ++j) {
    if (excluded != nullptr && excluded[j] != 0) continue;
    if (ucb_score(mean[j], variance[j], width) == score && k-- == 0) return j;
  }
  return -1;
}

UcbBest scan_ucb_parallel(const double* mean, const double* variance, int n, double width,
                          const std::uint8_t* excluded, Threads threads) {
  // Each thread scans a contiguous slice; slices are merged in index order, so the result
  // (including the tie count) does not depend on the number of threads.
  const int nt = threads.for_work(kUcbWorkPerCandidate * n);
  std::vector<UcbBest> part(static_cast<std::size_t>(nt));
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    const long begin = static_cast<long>(n) * t / count,
               end = static_cast<long>(n) * (t + 1) / count;
    part[static_cast<std::size_t>(t)] =
        scan_ucb(mean, variance, static_cast<int>(begin), static_cast<int>(end), width, excluded);
  }
  UcbBest best;
  for (const UcbBest& b : part) merge_best(best, b);
  return best;
}

UcbChoice ucb_argmax_cpu(const double* mean, const double* variance, int n, double width,
                         const std::uint8_t* excluded, Rng* tiebreak, Threads threads) {
  const UcbBest best = scan_ucb_parallel(mean, variance, n, width, excluded, threads);
  check_ucb_best(best, mean, variance, n, width);
  UcbChoice choice{best.index, best.score, best.ties};
  // Pick the k-th tie (k uniform in [0, ties)) in index order with a second pass.
  int k = tie_rank(best, tiebreak);
  if (k > 0) choice.index = find_tie(mean, variance, best.index, n, width, excluded, best.score, k);
  return choice;
}

}  // namespace gpb::detail
