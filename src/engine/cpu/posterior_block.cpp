// Block update of the CPU posterior: q observations per run enter V through one matrix product
// and one triangular solve (FinitePosterior::observe_batch; include/gpbandit/engine/posterior.hpp).
//
// With t rows so far, the batch's candidates a_0..a_{q−1} and C = [v_p[a_i]] (t×q, the old rows
// at the batch), row t+i of the factor is L[t+i, p] = C[p, i] (p < t) and L_bb[i, j] (j ≤ i), where
// L_bb is the Cholesky factor of K_bb − CᵀC + λI computed exactly as observe() would compute the
// rows one by one (the same recurrence, var_step clamping and pivot floor). The new rows of V over
// the candidates held are then V_new = L_bb⁻¹ (K(X_b, D) − Cᵀ V_old): a GEMM of (n×t)·(t×q) and a
// TRSM of n×q by q×q, instead of q passes of O(n·t) each. When V is stored in float
// (Precision::Mixed) the GEMM and the TRSM run in single precision (float sums: about twice the
// double rate, half the bytes); the batch's factor block, α, μ and σ² stay in double.
#include <Eigen/Core>
#include <Eigen/Dense>

#include <algorithm>
#include <utility>
#include <vector>

#include "engine/cpu/batch_factor.hpp"
#include "engine/cpu/block_products.hpp"
#include "engine/cpu/fingerprint_block.hpp"
#include "engine/cpu/posterior_state.hpp"

namespace gpb::detail {

namespace {

/// out[j + i·ldo] = k(x_j, b_i) for the n points (d×n) and the q batch points (d×q, stride ldb).
void kernel_columns(const KernelEval& eval, const double* points, int n, const double* batch,
                    long ldb, int q, int d, double* out, long ldo, Threads threads) {
  std::vector<double> packed(static_cast<std::size_t>(q) * d);  // the batch points, contiguous
  for (int i = 0; i < q; ++i) {
    std::copy(batch + i * ldb, batch + i * ldb + d, packed.data() + static_cast<long>(i) * d);
  }
  if (eval.type == KernelType::Tanimoto || eval.type == KernelType::MinMax) {
    fingerprint_block(eval, points, n, packed.data(), q, d, out, ldo, threads);
    return;
  }
  const int nt = threads.for_work(static_cast<double>(n) * q * (d + 8));
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < q; ++i) {
      out[j + i * ldo] =
          eval(packed.data() + static_cast<long>(i) * d, points + static_cast<long>(j) * d, d);
    }
  }
}

/// The batch's factor block for one run (engine/cpu/batch_factor.hpp), from the shared columns
/// (`cols`: q columns of w = t + 1 + d doubles, owned_column's layout). Incremental mode: S =
/// k(x_i, x_j) − CᵀC, C = [v_p[a_i]] (t×q) by one product. Recompute mode (`as_single_rows`):
/// the steps of q single observations (each batch row's column over the t old rows, then over the
/// batch rows before it), so that observe_batch appends the rows observe() would, bit for bit:
/// k(x_j, x_i) with the old rows' values Cᵀ as every element's prefix instead of the product.
/// `noise`: the q rows' noise variances.
BatchFactor batch_factor(const KernelEval& eval, const double* cols, int t, int d, int q,
                         const double* noise, Threads threads, bool as_single_rows) {
  const long w = t + 1 + d;
  const Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> C(cols, t, q,
                                                                     Eigen::OuterStride<>(w));
  Eigen::MatrixXd S(q, q);
  for (int j = 0; j < q; ++j) {
    for (int i = j; i < q; ++i) {
      const double* xi = cols + i * w + t + 1;
      const double* xj = cols + j * w + t + 1;
      S(i, j) = as_single_rows ? eval(xj, xi, d) : eval(xi, xj, d);
    }
  }
  Eigen::MatrixXd prefix;  // recompute mode: P(i, p) = v_p[a_i]
  if (as_single_rows) {
    prefix = C.transpose();
  } else if (t > 0) {
    S.triangularView<Eigen::Lower>() -= C.transpose() * C;
  }
  std::vector<double> var0(static_cast<std::size_t>(q)), prior(static_cast<std::size_t>(q));
  for (int i = 0; i < q; ++i) {
    const double* x = cols + i * w + t + 1;
    var0[static_cast<std::size_t>(i)] = cols[i * w + t];  // σ²_t[a_i]
    prior[static_cast<std::size_t>(i)] = eval(x, x, d);
  }
  return factor_batch(S, var0.data(), prior.data(), noise, threads,
                      as_single_rows ? &prefix : nullptr);
}

/// Candidates per kernel-column chunk of the float path (its double scratch: chunk·q doubles).
constexpr long kFloatKernelChunk = 8192;

/// The new rows of run r in double: V_new = (K(D, X_b) − V_old·C) L_bb⁻ᵀ, written in place over
/// the rows t..t+q−1 (`c`: the q shared columns of run r, stride w).
void new_rows(const CpuState& s, int r, int t, int q, const double* c, long w,
              const Eigen::MatrixXd& lbb, double* vnew) {
  const long ld = s.ncap;  // rows of V are ncap apart (≥ n once candidates were added)
  kernel_columns(s.eval, s.points.data(), s.n, c + t + 1, w, q, s.d, vnew, ld, s.threads);
  const int nt = s.threads_for(2.0 * s.n * q * std::max(t, q));
  // V_old (n×t) times C (t×q, the old rows at the batch), then the solve by L_bbᵀ.
  block_sub_product(s.n, t, q, s.vrow<double>(r, 0), ld, c, w, vnew, ld, nt);
  block_solve_lower_transposed(s.n, q, lbb.data(), q, vnew, ld, nt);
}

/// The same with V in float: the kernel columns (double) are rounded into V chunk by chunk, then
/// the GEMM and the TRSM run in float on the stored rows.
void new_rows(const CpuState& s, int r, int t, int q, const double* c, long w,
              const Eigen::MatrixXd& lbb, float* vnew) {
  const long ld = s.ncap, n = s.n;
  const long chunk = std::min(n, kFloatKernelChunk);
  std::vector<double> scratch(static_cast<std::size_t>(chunk) * q);
  for (long j0 = 0; j0 < n; j0 += chunk) {
    const long len = std::min(chunk, n - j0);
    kernel_columns(s.eval, s.points.data() + j0 * s.d, static_cast<int>(len), c + t + 1, w, q, s.d,
                   scratch.data(), len, s.threads);
    const int nt = s.threads_for(static_cast<double>(len) * q);
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int i = 0; i < q; ++i) {
      const double* from = scratch.data() + static_cast<long>(i) * len;
      float* to = vnew + static_cast<long>(i) * ld + j0;
      for (long k = 0; k < len; ++k) to[k] = static_cast<float>(from[k]);
    }
  }
  Eigen::MatrixXf cf(std::max(t, 1), q);  // C in float
  for (int i = 0; i < q; ++i) {
    for (int p = 0; p < t; ++p) cf(p, i) = static_cast<float>(c[i * w + p]);
  }
  const Eigen::MatrixXf lf = lbb.cast<float>();
  const int nt = s.threads_for(2.0 * s.n * q * std::max(t, q));
  block_sub_product(n, t, q, s.vrow<float>(r, 0), ld, cf.data(), cf.rows(), vnew, ld, nt);
  block_solve_lower_transposed(n, q, lf.data(), q, vnew, ld, nt);
}

/// σ² and μ of run r over the candidates held, row after row per candidate, as the rows' own
/// updates would apply them (v read as stored).
template <class VT>
void apply_new_rows(CpuState& s, int r, int t, int q, const VT* vnew) {
  const long ld = s.ncap;
  const RunRows& run = s.runs[static_cast<std::size_t>(r)];
  double* s2 = s.s2_of(r);
  double* m = s.mu_of(r);
  const int n = s.n;
  const int nt = s.threads_for(2.0 * n * q);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int b = 0; b < s.blocks; ++b) {
    const int j0 = b * kBlock, len = std::min(kBlock, n - j0);
    for (int i = 0; i < q; ++i) {
      const VT* v = vnew + static_cast<long>(i) * ld + j0;
      const double alpha = run.alpha[static_cast<std::size_t>(t + i)];
      for (int k = 0; k < len; ++k) {
        s2[j0 + k] = var_step(s2[j0 + k], double(v[k]));
        m[j0 + k] = mean_step(m[j0 + k], alpha, double(v[k]));
      }
    }
  }
}

}  // namespace

void CpuState::append_block(int q, const int* candidate, const double* y, const double* noise) {
  const int R = num_runs(), t = rows;
  const long w = t + 1 + d;
  if (!recompute) {
    if (lazy) catch_up_all(t);  // every block knows rows [0, t); the block leaves none behind
    while (cap < t + q) grow();
  }
  // The columns at the batch's candidates, from their owners (every rank needs them all).
  std::vector<double> cols(static_cast<std::size_t>(R) * q * w, 0.0);
  std::vector<int> index(static_cast<std::size_t>(R) * q, -1);
  for (int e = 0; e < R * q; ++e) {
    if (shard.owns(candidate[e])) index[static_cast<std::size_t>(e)] = local(candidate[e]);
  }
  // Owned columns in groups of kColumnGroup per run (recompute mode computes a group's columns
  // together, O(t²) each; with V they are read from it).
  std::vector<std::pair<int, int>> groups;  // (first e, count) of owned, consecutive e of one run
  for (int r = 0; r < R; ++r) {
    for (int i = 0; i < q;) {
      const int e = r * q + i;
      if (index[static_cast<std::size_t>(e)] < 0) {
        ++i;
        continue;
      }
      int g = 1;
      while (g < kColumnGroup && i + g < q && index[static_cast<std::size_t>(e + g)] >= 0) ++g;
      groups.emplace_back(e, g);
      i += g;
    }
  }
  const int nt_cols = threads_for(static_cast<double>(R) * q * t * (recompute ? t : 1));
#pragma omp parallel num_threads(nt_cols)
  {
    std::vector<double> scratch;
#pragma omp for schedule(dynamic)
    for (std::size_t k = 0; k < groups.size(); ++k) {
      const auto [e, g] = groups[k];
      owned_columns(e / q, index.data() + e, g, cols.data() + static_cast<std::size_t>(e) * w, w,
                    scratch);
    }
  }
  share_owned(shard, cols.data(), static_cast<int>(cols.size()), "observe_batch");

  // The rows' noise variances (λ unless given), R×q run-major.
  std::vector<double> lam(static_cast<std::size_t>(R) * q, lambda);
  if (noise != nullptr) std::copy(noise, noise + lam.size(), lam.begin());
  std::vector<BatchFactor> factors;
  for (int r = 0; r < R; ++r) {
    const double* c = cols.data() + static_cast<std::size_t>(r) * q * w;
    factors.push_back(batch_factor(eval, c, t, d, q, lam.data() + static_cast<std::size_t>(r) * q,
                                   threads, recompute));
  }
  // The factor rows, in the order q observe() calls would append them.
  std::vector<double> col;
  std::vector<double> yr(static_cast<std::size_t>(R));
  for (int i = 0; i < q; ++i) {
    rows = t + i;
    for (int r = 0; r < R; ++r) {
      const double* c = cols.data() + (static_cast<std::size_t>(r) * q + i) * w;
      const BatchFactor& f = factors[static_cast<std::size_t>(r)];
      col.assign(c, c + t);
      for (int j = 0; j < i; ++j) col.push_back(f.lbb(i, j));
      col.push_back(f.vars[static_cast<std::size_t>(i)]);
      col.insert(col.end(), c + t + 1, c + w);
      history_ext[static_cast<std::size_t>(r)].push_back(
          candidate[static_cast<std::size_t>(r) * q + i]);
      yr[static_cast<std::size_t>(r)] = y[static_cast<std::size_t>(r) * q + i];
      append_factor_row(r, index[static_cast<std::size_t>(r) * q + i], col.data(), yr.data(),
                        lam[static_cast<std::size_t>(r) * q + i]);
      const double a = runs[static_cast<std::size_t>(r)].alpha.back();
      alpha2[static_cast<std::size_t>(r)].push_back(alpha2[static_cast<std::size_t>(r)].back() +
                                                    a * a);
    }
  }
  rows = t + q;
  if (recompute) {  // no V: μ and σ² are rebuilt when read
    stale = mean_stale = true;
    return;
  }
  // The new rows of V over the candidates held: one GEMM and one TRSM per run.
  for (int r = 0; r < R; ++r) {
    const double* c = cols.data() + static_cast<std::size_t>(r) * q * w;
    const Eigen::MatrixXd& lbb = factors[static_cast<std::size_t>(r)].lbb;
    if (mixed) {
      float* vnew = vrow<float>(r, t);
      new_rows(*this, r, t, q, c, w, lbb, vnew);
      apply_new_rows(*this, r, t, q, vnew);
    } else {
      double* vnew = vrow<double>(r, t);
      new_rows(*this, r, t, q, c, w, lbb, vnew);
      apply_new_rows(*this, r, t, q, vnew);
    }
    for (int b = 0; b < blocks; ++b) rows_of_block(r, b) = rows;
  }
}

}  // namespace gpb::detail
