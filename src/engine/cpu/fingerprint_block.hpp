/// @file fingerprint_block.hpp
/// Tanimoto and MinMax kernel values for blocks of packed fingerprints on the CPU (internal): the
/// SIMD twin of the per-element formula (detail/kernel_formula.hpp) that the CUDA kernels
/// evaluate with __popcll. Popcounts are integers, so every variant (AVX2 nibble-table popcount,
/// scalar POPCNT, portable) gives the formula's values bit for bit; tests/test_fingerprint.cpp
/// checks it.
#pragma once

#include "engine/cpu/ops_cpu.hpp"
#include "engine/detail/kernel_formula.hpp"

namespace gpb::detail {

/// Which implementation fingerprint_block runs.
enum class PopcountPath {
  Auto,     ///< AVX2 when the CPU has it, else scalar POPCNT when it has that, else Portable
  Avx2,     ///< 256-bit nibble-table popcount (Mula et al.), byte accumulators, SAD reduction
  Popcnt,   ///< one POPCNT instruction per word
  Portable  ///< the formula as compiled for the baseline x86-64 (no POPCNT)
};

/// The path Auto resolves to on this CPU.
PopcountPath best_popcount_path();

/// out[i + j·ldo] = k(X_i, Y_j) for i < nx, j < ny, where X_i = X + i·w and Y_j = Y + j·w are
/// fingerprints of w words (stored in doubles, bit for bit; Domain::fingerprints) and k is the
/// Tanimoto or MinMax formula `f` (f.type must be one of them). Blocked over tiles of 64 X rows
/// (16 KiB of 2048-bit fingerprints stay in L1 while every Y row streams past), parallel over
/// tiles with up to threads.max OpenMP threads. O(nx·ny·w).
void fingerprint_block(const KernelFormula& f, const double* X, long long nx, const double* Y,
                       long long ny, int w, double* out, long long ldo, Threads threads,
                       PopcountPath path = PopcountPath::Auto);

/// The kernel row k(y, X_i) for i < nx into out[0..nx) on the calling thread (the posterior's
/// per-row updates; AVX2 when available). Same values as fingerprint_block.
void fingerprint_row(const KernelFormula& f, const double* y, const double* X, int nx, int w,
                     double* out);

}  // namespace gpb::detail
