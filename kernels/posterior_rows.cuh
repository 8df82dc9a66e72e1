/// @file posterior_rows.cuh
/// __global__ kernels of the CUDA FinitePosterior (launched from
/// src/engine/cuda/posterior_kernels.cu). Each thread owns one candidate j of one run and performs,
/// for that element, exactly the floating-point operations of the CPU (cpu/posterior_rows.hpp,
/// detail/scalar_steps.hpp) in the same order: the row recurrence in increasing p, then σ² and μ.
///
/// Layouts (all run-major): V is R × cap × n with V[(r·cap + p)·n + j] (VT = double, or float in
/// mixed precision, where every value is rounded once on store and read back exactly); μ, σ² are
/// R × n doubles. Offsets are 64-bit throughout (R·cap·n exceeds 2³¹ at N = 10⁷).
#pragma once

#include <cstddef>

#include "engine/detail/kernel_formula.hpp"
#include "engine/detail/scalar_steps.hpp"

namespace gpb::cuda::kernels {

constexpr int kRowThreads = 256;

/// Appends row t of every run: grid (⌈n/256⌉, R). For run r: x_a = xa[r·d .. r·d+d−1] (the
/// observed candidate's coordinates: on a sharded posterior it may be held by another rank),
/// L row = lrows[r·(t+1) .. r·(t+1)+t] (L[t, 0..t], host-computed, double),
/// v = (k(x_a, x_j) − Σ_{p<t} L[t,p]·V[r,p,j]) / L[t,t], stored to V[r,t,j];
/// σ²[r,j] ← var_step(σ²[r,j], v); μ[r,j] ← mean_step(μ[r,j], alpha[r], v) when alpha ≠ null.
/// The L row is read by every thread of the block at the same address (a broadcast).
template <class VT>
__global__ void __launch_bounds__(kRowThreads)
    append_row(detail::KernelFormula f, const double* __restrict__ points, int d, int n,
               VT* __restrict__ V, int cap, int t, const double* __restrict__ lrows,
               const double* __restrict__ xa_all, const double* __restrict__ alpha,
               double* __restrict__ mu, double* __restrict__ s2) {
  const int j = blockIdx.x * kRowThreads + threadIdx.x;
  if (j >= n) return;  // no block-wide synchronisation below
  const int r = blockIdx.y;
  const std::size_t nn = static_cast<std::size_t>(n);
  const double* l = lrows + static_cast<std::size_t>(r) * (t + 1);
  const double* xa = xa_all + static_cast<std::size_t>(r) * d;
  double acc = f(xa, points + static_cast<std::size_t>(j) * d, d);
  const VT* vp = V + static_cast<std::size_t>(r) * cap * nn + j;
  int p = 0;
  // Four loads in flight before their use; the steps themselves stay in increasing p.
  for (; p + 4 <= t; p += 4) {
    const double v0 = static_cast<double>(vp[(p + 0) * nn]);
    const double v1 = static_cast<double>(vp[(p + 1) * nn]);
    const double v2 = static_cast<double>(vp[(p + 2) * nn]);
    const double v3 = static_cast<double>(vp[(p + 3) * nn]);
    acc = detail::row_step(acc, l[p], v0);
    acc = detail::row_step(acc, l[p + 1], v1);
    acc = detail::row_step(acc, l[p + 2], v2);
    acc = detail::row_step(acc, l[p + 3], v3);
  }
  for (; p < t; ++p) acc = detail::row_step(acc, l[p], static_cast<double>(vp[p * nn]));
  const double v = acc / l[t];
  V[(static_cast<std::size_t>(r) * cap + t) * nn + j] = static_cast<VT>(v);
  // σ², μ take the unrounded v (identical to the stored value in double precision).
  const std::size_t e = static_cast<std::size_t>(r) * nn + j;
  s2[e] = detail::var_step(s2[e], v);
  if (alpha != nullptr) mu[e] = detail::mean_step(mu[e], alpha[r], v);
}

/// μ[r,j] += α_q·V[r,q,j] for q = begin .. begin+count−1 in order, α_q = alphas[r·count + q−begin].
/// Grid (⌈n/256⌉, R).
template <class VT>
__global__ void __launch_bounds__(kRowThreads)
    add_rows_to_mean(int n, const VT* __restrict__ V, int cap, int begin, int count,
                     const double* __restrict__ alphas, double* __restrict__ mu) {
  const int j = blockIdx.x * kRowThreads + threadIdx.x;
  if (j >= n) return;
  const int r = blockIdx.y;
  const std::size_t nn = static_cast<std::size_t>(n);
  const std::size_t e = static_cast<std::size_t>(r) * nn + j;
  double m = mu[e];
  for (int i = 0; i < count; ++i) {
    const double v =
        static_cast<double>(V[(static_cast<std::size_t>(r) * cap + begin + i) * nn + j]);
    m = detail::mean_step(m, alphas[static_cast<std::size_t>(r) * count + i], v);
  }
  mu[e] = m;
}

/// L[t, p] = V[r, p, anchor[r]] for p < t and σ²[r, anchor[r]], gathered into
/// out[r·(t+1) + p] (p < t) and out[r·(t+1) + t]. Grid (⌈(t+1)/256⌉, R).
template <class VT>
__global__ void __launch_bounds__(kRowThreads)
    gather_factor_row(int n, const VT* __restrict__ V, int cap, int t,
                      const int* __restrict__ anchor, const double* __restrict__ s2,
                      double* __restrict__ out) {
  const int p = blockIdx.x * kRowThreads + threadIdx.x;
  if (p > t) return;
  const int r = blockIdx.y;
  const std::size_t nn = static_cast<std::size_t>(n);
  const int a = anchor[r];
  out[static_cast<std::size_t>(r) * (t + 1) + p] =
      p < t ? static_cast<double>(V[(static_cast<std::size_t>(r) * cap + p) * nn + a])
            : s2[static_cast<std::size_t>(r) * nn + a];
}

/// Rows of the recompute kernel held in registers at once (see recompute_chunk).
constexpr int kRecomputeGroup = 16;

/// Recompute mode: μ and σ² of candidates [j0, j0 + len) for every run from the factor alone.
/// Grid (⌈len/256⌉, R). Per run r: hx[(r·t + q)·d ..] = x_{a_q} (the rows' coordinates),
/// alpha[r·t + q], resolved[r·t + q], L packed by
/// rows (row q at lpacked[r·t(t+1)/2 + q(q+1)/2], q+1 entries). Each thread recomputes v_0..v_{t−1}
/// of its candidate, kRecomputeGroup rows at a time in registers: every earlier row v_p is read
/// from the scratch W (R × t × len, W[(r·t + q)·len + jj], coalesced across the warp) once per
/// group, not once per row, and the rows inside the group are solved from registers — t²/(2·16)
/// scratch reads per candidate instead of t²/2. σ² and μ are updated as each v_q is finished, so
/// W is never read back for them, and the last group is not stored at all. The steps each element
/// sees are those of the CPU's column_of_rows in the same order (p ascending, then the division;
/// σ² and μ in row order), so the results agree bit for bit.
__global__ void __launch_bounds__(kRowThreads)
    recompute_chunk(detail::KernelFormula f, const double* __restrict__ points, int d, int n,
                    int j0, int len, int t, const double* __restrict__ hx,
                    const double* __restrict__ lpacked, const double* __restrict__ alpha,
                    const unsigned char* __restrict__ resolved, const double* __restrict__ kdiag,
                    double* __restrict__ W, double* __restrict__ mu, double* __restrict__ s2) {
  const int jj = blockIdx.x * kRowThreads + threadIdx.x;
  if (jj >= len) return;
  const int r = blockIdx.y;
  const int j = j0 + jj;
  const std::size_t tt = static_cast<std::size_t>(t);
  const double* L = lpacked + static_cast<std::size_t>(r) * (tt * (tt + 1) / 2);
  const double* h = hx + static_cast<std::size_t>(r) * tt * d;
  double* w = W + static_cast<std::size_t>(r) * tt * len + jj;
  const double* xj = points + static_cast<std::size_t>(j) * d;
  const std::size_t ll = static_cast<std::size_t>(len);
  double s = kdiag[j];
  double m = 0.0;
  for (int q0 = 0; q0 < t; q0 += kRecomputeGroup) {
    const int g = min(kRecomputeGroup, t - q0);
    const double* lq[kRecomputeGroup];
    double acc[kRecomputeGroup];
#pragma unroll
    for (int k = 0; k < kRecomputeGroup; ++k) {
      if (k < g) {
        const int q = q0 + k;
        lq[k] = L + static_cast<std::size_t>(q) * (q + 1) / 2;
        acc[k] = f(h + static_cast<std::size_t>(q) * d, xj, d);
      }
    }
    for (int p = 0; p < q0; ++p) {  // the rows before the group: one scratch read for all of it
      const double vp = w[p * ll];
#pragma unroll
      for (int k = 0; k < kRecomputeGroup; ++k) {
        if (k < g) acc[k] = detail::row_step(acc[k], lq[k][p], vp);
      }
    }
    const bool store = q0 + g < t;  // later groups read this one
#pragma unroll
    for (int k = 0; k < kRecomputeGroup; ++k) {  // the triangle inside the group, in registers
      if (k < g) {
#pragma unroll
        for (int i = 0; i < k; ++i) acc[k] = detail::row_step(acc[k], lq[k][q0 + i], acc[i]);
        acc[k] /= lq[k][q0 + k];
        if (store) w[(q0 + k) * ll] = acc[k];
        s = detail::var_step(s, acc[k]);
        const std::size_t e = static_cast<std::size_t>(r) * tt + q0 + k;
        if (resolved[e] != 0) m = detail::mean_step(m, alpha[e], acc[k]);
      }
    }
  }
  const std::size_t e = static_cast<std::size_t>(r) * n + j;
  mu[e] = m;
  s2[e] = s;
}

/// σ²[r, j] = kdiag[j] for every run r: the prior variance of all runs in one launch.
/// Grid (⌈n/256⌉, R).
__global__ void __launch_bounds__(kRowThreads)
    fill_runs(const double* __restrict__ kdiag, int n, double* __restrict__ out) {
  const int j = blockIdx.x * kRowThreads + threadIdx.x;
  if (j >= n) return;
  out[static_cast<std::size_t>(blockIdx.y) * n + j] = kdiag[j];
}

/// dst[pos[i]] = val[i] for i < count: the entries of the device exclusion mask that changed.
/// Grid-stride over count (positions distinct).
__global__ void __launch_bounds__(kRowThreads)
    scatter_bytes(const long long* __restrict__ pos, const unsigned char* __restrict__ val,
                  long long count, unsigned char* __restrict__ dst) {
  for (long long i = static_cast<long long>(blockIdx.x) * kRowThreads + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * kRowThreads) {
    dst[pos[i]] = val[i];
  }
}

}  // namespace gpb::cuda::kernels
