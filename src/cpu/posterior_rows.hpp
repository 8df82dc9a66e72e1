/// @file posterior_rows.hpp
/// The per-element arithmetic of FinitePosterior, shared by its incremental and recompute modes.
/// Both modes call exactly these functions in the same order for every candidate, and the build
/// uses -ffp-contract=off, so the two modes agree bit for bit.
#pragma once

#include <algorithm>
#include <vector>

#include "cpu/kernel_eval.hpp"
#include "detail/scalar_steps.hpp"

namespace gpb::detail {

/// Per-run state common to both modes. Row q holds L[q, 0..q] (q+1 entries).
struct RunRows {
  std::vector<std::vector<double>> L;
  std::vector<double> pivot_var;        ///< σ²_{q−1}[a_q] (clamped) of each row
  std::vector<double> alpha;            ///< α_q, valid once the row is resolved
  std::vector<unsigned char> resolved;  ///< 1 for observed or resolved rows, 0 while pending
  std::vector<int> history;             ///< a_q
};

/// v_q[j] for one column j and every row q < t of `run`, by the row recurrence restricted to
/// that column (O(t²) arithmetic, t kernel evaluations). `points` is d×N column-major.
inline void column_of_rows(const KernelEval& eval, const double* points, int d, const RunRows& run,
                           int t, int j, double* col) {
  const double* xj = points + static_cast<long>(j) * d;
  for (int p = 0; p < t; ++p) {
    const double* lp = run.L[static_cast<std::size_t>(p)].data();
    double acc =
        eval(points + static_cast<long>(run.history[static_cast<std::size_t>(p)]) * d, xj, d);
    for (int r = 0; r < p; ++r) acc = row_step(acc, lp[r], col[r]);
    col[p] = acc / lp[p];
  }
}

/// μ_{q−1}[a_q] = Σ over resolved rows p < q of α_p·L[q,p], accumulated in row order from 0.
inline double mean_at_row(const RunRows& run, int q) {
  const double* lq = run.L[static_cast<std::size_t>(q)].data();
  double m = 0.0;
  for (int p = 0; p < q; ++p) {
    if (run.resolved[static_cast<std::size_t>(p)] != 0) {
      m = mean_step(m, run.alpha[static_cast<std::size_t>(p)], lq[p]);
    }
  }
  return m;
}

/// Computes rows v_begin..v_{end−1} over the candidates [j0, j0+len): rows[q] points at v_q[j0]
/// (read for q < begin, written for begin ≤ q < end). `acc` has room for len doubles; on return it
/// holds the last row v_{end−1} in double, as stored when VT is double and unrounded when VT is
/// float (Precision::Mixed: V stored in float, every sum accumulated in double).
/// Loops over rows p inside the block of j, so it vectorises over j and streams each row once.
template <class VT>
inline void rows_over_block(const KernelEval& eval, const double* points, int d, const RunRows& run,
                            int begin, int end, int j0, int len, VT* const* rows, double* acc) {
  for (int q = begin; q < end; ++q) {
    const double* lq = run.L[static_cast<std::size_t>(q)].data();
    const double* xa = points + static_cast<long>(run.history[static_cast<std::size_t>(q)]) * d;
    for (int i = 0; i < len; ++i) acc[i] = eval(xa, points + static_cast<long>(j0 + i) * d, d);
    // Rows p are taken four at a time to halve the traffic on acc; each element still sees the
    // steps in increasing p, exactly as in column_of_rows.
    int p = 0;
    for (; p + 4 <= q; p += 4) {
      const double l0 = lq[p], l1 = lq[p + 1], l2 = lq[p + 2], l3 = lq[p + 3];
      const VT* v0 = rows[p];
      const VT* v1 = rows[p + 1];
      const VT* v2 = rows[p + 2];
      const VT* v3 = rows[p + 3];
      for (int i = 0; i < len; ++i) {
        acc[i] = row_step(row_step(row_step(row_step(acc[i], l0, double(v0[i])), l1, double(v1[i])),
                                   l2, double(v2[i])),
                          l3, double(v3[i]));
      }
    }
    for (; p < q; ++p) {
      const double l = lq[p];
      const VT* vp = rows[p];
      for (int i = 0; i < len; ++i) acc[i] = row_step(acc[i], l, double(vp[i]));
    }
    const double lqq = lq[q];
    VT* wq = rows[q];
    for (int i = 0; i < len; ++i) {
      acc[i] /= lqq;
      wq[i] = static_cast<VT>(acc[i]);
    }
  }
}

}  // namespace gpb::detail
