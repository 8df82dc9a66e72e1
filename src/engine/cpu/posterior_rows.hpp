/// @file posterior_rows.hpp
/// The per-element arithmetic of FinitePosterior, shared by its incremental and recompute modes.
/// Both modes call exactly these functions in the same order for every candidate, and the build
/// uses -ffp-contract=off, so the two modes agree bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/cpu/fingerprint_block.hpp"
#include "engine/cpu/kernel_eval.hpp"
#include "engine/detail/scalar_steps.hpp"

namespace gpb::detail {

/// acc[i] = k(x_a, x_{j0+i}) for i < len: the popcount kernels for fingerprints (AVX2 where
/// available, the same values), the formula otherwise. `points` is d×N column-major.
inline void kernel_row(const KernelEval& eval, const double* xa, const double* points, int d,
                       int j0, int len, double* acc) {
  if (eval.type == KernelType::Tanimoto || eval.type == KernelType::MinMax) {
    fingerprint_row(eval, xa, points + static_cast<long>(j0) * d, len, d, acc);
    return;
  }
  for (int i = 0; i < len; ++i) acc[i] = eval(xa, points + static_cast<long>(j0 + i) * d, d);
}

/// Per-run state common to both modes. Row q holds L[q, 0..q] (q+1 entries).
struct RunRows {
  std::vector<std::vector<double>> L;
  std::vector<double> pivot_var;        ///< σ²_{q−1}[a_q] (clamped) of each row
  std::vector<double> noise;            ///< λ_q, the noise variance of each row
  std::vector<double> alpha;            ///< α_q, valid once the row is resolved
  std::vector<unsigned char> resolved;  ///< 1 for observed or resolved rows, 0 while pending
  std::vector<int> history;             ///< a_q (the backend's own position of the candidate)
  std::vector<double> xs;               ///< x_{a_q}: d coordinates per row, row after row

  /// The d coordinates of row q's candidate x_{a_q}.
  const double* x(int q, int d) const { return xs.data() + static_cast<long>(q) * d; }
  /// γ̂ = ½ Σ_q ln(1 + σ²_{q−1}[a_q]/λ_q) = ½ ln|I + Λ^{−1/2} K_t Λ^{−1/2}| over every row.
  double info_gain() const {
    double g = 0;
    for (std::size_t q = 0; q < pivot_var.size(); ++q)
      g += 0.5 * std::log1p(pivot_var[q] / noise[q]);
    return g;
  }
};

/// v_q[j] for one column j and every row q < t of `run`, by the row recurrence restricted to
/// that column (O(t²) arithmetic, t kernel evaluations). `points` is d×N column-major; the rows'
/// candidates are read from run.xs.
inline void column_of_rows(const KernelEval& eval, const double* points, int d, const RunRows& run,
                           int t, int j, double* col) {
  const double* xj = points + static_cast<long>(j) * d;
  for (int p = 0; p < t; ++p) {
    const double* lp = run.L[static_cast<std::size_t>(p)].data();
    double acc = eval(run.x(p, d), xj, d);
    for (int r = 0; r < p; ++r) acc = row_step(acc, lp[r], col[r]);
    col[p] = acc / lp[p];
  }
}

/// column_of_rows for m columns at once: out[c·stride + q] = v_q at the candidate whose d
/// coordinates are x[c·d ..] (c < m, q < t), bit for bit what column_of_rows gives each column.
/// Columns go through the recurrence in groups of kColumnGroup with one accumulator each: every
/// column sees exactly the steps of column_of_rows in the same order (no reassociation), but the
/// group's independent chains vectorise and share each row L[p] read, where one column is one
/// dependent chain of subtractions (latency-bound: the O(t²)-per-column factor of a
/// recompute-mode batch). bench/bench_factor measures the two. A remainder of fewer than
/// kMinGroup columns goes one by one (a group costs the same whatever its fill). `scratch` grows
/// as needed.
constexpr int kColumnGroup = 32;
constexpr int kMinGroup = 8;
inline void columns_of_rows(const KernelEval& eval, const double* x, int d, const RunRows& run,
                            int t, int m, double* out, std::size_t stride,
                            std::vector<double>& scratch) {
  constexpr int G = kColumnGroup;
  for (int c0 = 0; c0 < m; c0 += G) {
    const int g = std::min(G, m - c0);
    if (g < kMinGroup) {
      for (int c = c0; c < m; ++c) {
        column_of_rows(eval, x + static_cast<long>(c) * d, d, run, t, 0,
                       out + static_cast<std::size_t>(c) * stride);
      }
      return;
    }
    scratch.resize(static_cast<std::size_t>(t) * G);
    const double* xs[G];
    for (int c = 0; c < G; ++c) xs[c] = x + static_cast<long>(c0 + std::min(c, g - 1)) * d;
    double* col = scratch.data();  // col[r·G + c] = v_r of column c
    for (int p = 0; p < t; ++p) {
      const double* lp = run.L[static_cast<std::size_t>(p)].data();
      const double* xp = run.x(p, d);
      double acc[G];
      for (int c = 0; c < G; ++c) acc[c] = eval(xp, xs[c], d);
      for (int r = 0; r < p; ++r) {
        const double l = lp[r];
        const double* v = col + static_cast<long>(r) * G;
        for (int c = 0; c < G; ++c) acc[c] = row_step(acc[c], l, v[c]);
      }
      for (int c = 0; c < G; ++c) col[static_cast<long>(p) * G + c] = acc[c] / lp[p];
    }
    for (int c = 0; c < g; ++c) {
      double* o = out + static_cast<std::size_t>(c0 + c) * stride;
      for (int p = 0; p < t; ++p) o[p] = col[static_cast<long>(p) * G + c];
    }
  }
}

/// The posterior at a candidate added after the rows [0, t) exist (FinitePosterior::
/// add_candidates): v_q(x) for q < t by the row recurrence, each earlier row read back as stored
/// (VT), then σ² ← var_step and, for resolved rows, μ ← mean_step with the unrounded v_q — the
/// per-element steps of the eager update in the same order, so the values equal those of a
/// candidate held from the start. `var` enters as k(x, x), `mean` as 0; col[q·stride] receives
/// v_q. O(t²) arithmetic, t kernel evaluations.
template <class VT>
inline void grown_column(const KernelEval& eval, const double* x, int d, const RunRows& run, int t,
                         VT* col, std::size_t stride, double& mean, double& var) {
  for (int q = 0; q < t; ++q) {
    const double* lq = run.L[static_cast<std::size_t>(q)].data();
    double acc = eval(run.x(q, d), x, d);
    for (int p = 0; p < q; ++p) acc = row_step(acc, lq[p], double(col[p * stride]));
    acc /= lq[q];
    col[q * stride] = static_cast<VT>(acc);
    var = var_step(var, acc);
    if (run.resolved[static_cast<std::size_t>(q)] != 0) {
      mean = mean_step(mean, run.alpha[static_cast<std::size_t>(q)], acc);
    }
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

/// Rows of `run` that enter μ: up to the last resolved one (pending rows are appended last and
/// have α = 0 until resolved, so they add nothing: μ is the posterior mean given the observed
/// rows only, as in incremental mode).
inline int mean_rows(const RunRows& run) {
  int m = static_cast<int>(run.L.size());
  while (m > 0 && run.resolved[static_cast<std::size_t>(m - 1)] == 0) --m;
  return m;
}

/// β = L⁻ᵀα̃ over the first m rows (α̃: α with unresolved rows 0), by back substitution over the
/// rows of L (row q holds L[q, 0..q]).
inline std::vector<double> beta_of(const RunRows& run, int m) {
  std::vector<double> beta(static_cast<std::size_t>(m));
  for (int q = 0; q < m; ++q) {
    const auto i = static_cast<std::size_t>(q);
    beta[i] = run.resolved[i] != 0 ? run.alpha[i] : 0.0;
  }
  for (int q = m - 1; q >= 0; --q) {
    const double* lq = run.L[static_cast<std::size_t>(q)].data();
    const double b = beta[static_cast<std::size_t>(q)] / lq[q];
    beta[static_cast<std::size_t>(q)] = b;
    for (int p = 0; p < q; ++p) beta[static_cast<std::size_t>(p)] -= lq[p] * b;
  }
  return beta;
}

/// What μ = K(D, X_t)·β needs of a run: the rows that enter it (mean_rows) and β over them.
struct MeanWeights {
  int rows = 0;
  std::vector<double> beta;
};
inline MeanWeights mean_weights(const RunRows& run) {
  const int m = mean_rows(run);
  return {m, beta_of(run, m)};
}

/// Computes rows v_begin..v_{end−1} over the candidates [j0, j0+len): rows[q] points at v_q[j0]
/// (read for q < begin, written for begin ≤ q < end). `acc` has room for len doubles; on return it
/// holds the last row v_{end−1} in double, as stored when VT is double and unrounded when VT is
/// float (Precision::Mixed: V stored in float, every sum accumulated in double).
/// Loops over rows p inside the block of j, so it vectorises over j and streams each row once.
/// With `mean` (recompute mode's refresh), the kernel row of every q < beta_rows is also added to
/// mean[i] as β_q·k(x_{a_q}, x_{j0+i}) in row order: the per-element steps of
/// CpuState::mean_direct, so μ = K(D, X_t)·β comes out of the same pass bit for bit.
template <class VT>
inline void rows_over_block(const KernelEval& eval, const double* points, int d, const RunRows& run,
                            int begin, int end, int j0, int len, VT* const* rows, double* acc,
                            const double* beta = nullptr, int beta_rows = 0,
                            double* mean = nullptr) {
  for (int q = begin; q < end; ++q) {
    const double* lq = run.L[static_cast<std::size_t>(q)].data();
    const double* xa = run.x(q, d);
    kernel_row(eval, xa, points, d, j0, len, acc);
    if (q < beta_rows) {
      const double b = beta[q];
      for (int i = 0; i < len; ++i) mean[i] = mean_step(mean[i], b, acc[i]);
    }
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

/// Rows v_{q0}..v_{q0+3} over the candidates [j0, j0+len) at once, for a block catching up
/// several rows: every v_p (p < q0) is loaded once for the four rows instead of once per row, which
/// makes the catch-up bound by arithmetic rather than by reading V. rows[q] points at v_q[j0] as in
/// rows_over_block; `acc` has room for 4·len doubles and on return holds row q0+k (divided,
/// unrounded) at acc + k·len. Each element sees exactly the steps of rows_over_block in the same
/// order (p ascending, then the division; later rows read earlier ones as stored), so the results
/// are bit-identical to calling it row by row.
template <class VT>
inline void four_rows_over_block(const KernelEval& eval, const double* points, int d,
                                 const RunRows& run, int q0, int j0, int len, VT* const* rows,
                                 double* acc) {
  const double* lq[4];
  for (int k = 0; k < 4; ++k) {
    lq[k] = run.L[static_cast<std::size_t>(q0 + k)].data();
    const double* xa = run.x(q0 + k, d);
    double* a = acc + static_cast<long>(k) * len;
    kernel_row(eval, xa, points, d, j0, len, a);
  }
  double* __restrict a0 = acc;
  double* __restrict a1 = acc + len;
  double* __restrict a2 = acc + 2L * len;
  double* __restrict a3 = acc + 3L * len;
  for (int p = 0; p < q0; ++p) {  // the rows before the group, shared by the four accumulators
    const VT* __restrict vp = rows[p];
    const double l0 = lq[0][p], l1 = lq[1][p], l2 = lq[2][p], l3 = lq[3][p];
    for (int i = 0; i < len; ++i) {
      const double x = double(vp[i]);
      a0[i] = row_step(a0[i], l0, x);
      a1[i] = row_step(a1[i], l1, x);
      a2[i] = row_step(a2[i], l2, x);
      a3[i] = row_step(a3[i], l3, x);
    }
  }
  for (int k = 0; k < 4; ++k) {  // the triangle inside the group, row by row
    double* __restrict a = acc + static_cast<long>(k) * len;
    for (int pp = q0; pp < q0 + k; ++pp) {
      const double l = lq[k][pp];
      const VT* __restrict vp = rows[pp];
      for (int i = 0; i < len; ++i) a[i] = row_step(a[i], l, double(vp[i]));
    }
    const double lqq = lq[k][q0 + k];
    VT* __restrict wq = rows[q0 + k];
    for (int i = 0; i < len; ++i) {
      a[i] /= lqq;
      wq[i] = static_cast<VT>(a[i]);
    }
  }
}

/// Rows computed together by catch_up_rows when a block catches up several.
constexpr int kCatchUpGroup = 4;

/// Brings rows [done, upto) of the candidates [j0, j0+len) up to date: computes each v_q (rows as
/// in rows_over_block; `acc` has room for kCatchUpGroup·len doubles) and applies σ² ← var_step
/// and, for resolved rows, μ ← mean_step with the unrounded v_q, in row order per element — the
/// same steps in the same order as applying the rows one at a time.
template <class VT>
inline void catch_up_rows_t(const KernelEval& eval, const double* points, int d, const RunRows& run,
                            int done, int upto, int j0, int len, VT* const* rows, double* acc,
                            double* s2, double* m) {
  int q = done;
  while (q < upto) {  // groups of rows share each read of the earlier rows
    const int group = upto - q >= kCatchUpGroup ? kCatchUpGroup : 1;
    if (group == kCatchUpGroup) {
      four_rows_over_block(eval, points, d, run, q, j0, len, rows, acc);
    } else {
      rows_over_block(eval, points, d, run, q, q + 1, j0, len, rows, acc);
    }
    for (int k = 0; k < group; ++k, ++q) {
      const double* v = acc + static_cast<long>(k) * len;
      for (int i = 0; i < len; ++i) s2[i] = var_step(s2[i], v[i]);
      if (run.resolved[static_cast<std::size_t>(q)] == 0) continue;
      const double alpha = run.alpha[static_cast<std::size_t>(q)];
      for (int i = 0; i < len; ++i) m[i] = mean_step(m[i], alpha, v[i]);
    }
  }
}

/// catch_up_rows_t compiled for AVX2 and for the baseline, chosen at run time (the same IEEE
/// operations either way: no contraction into FMA, so the results do not depend on the clone).
void catch_up_rows(const KernelEval& eval, const double* points, int d, const RunRows& run,
                   int done, int upto, int j0, int len, double* const* rows, double* acc,
                   double* s2, double* m);
/// The same with V stored in float (Precision::Mixed).
void catch_up_rows(const KernelEval& eval, const double* points, int d, const RunRows& run,
                   int done, int upto, int j0, int len, float* const* rows, double* acc, double* s2,
                   double* m);

}  // namespace gpb::detail
