// Blocked Tanimoto / MinMax kernel values with AVX2 and POPCNT variants (fingerprint_block.hpp).
#include "engine/cpu/fingerprint_block.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gpbandit/error.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GPB_X86 1
#else
#define GPB_X86 0
#endif

namespace gpb::detail {

namespace {

/// X rows per tile: 64 fingerprints of 2048 bits are 16 KiB (L1).
constexpr long long kTile = 64;

/// One kernel value through the scalar formula (the reference every path must equal).
inline double pair_formula(const KernelFormula& f, const double* x, const double* y, int w) {
  return f(x, y, w);
}

#if GPB_X86
/// Scalar path with the POPCNT instruction (the formula, compiled for it).
__attribute__((target("popcnt"))) double pair_popcnt(const KernelFormula& f, const double* x,
                                                     const double* y, int w) {
  return f(x, y, w);
}

/// Bytes of v replaced by their popcounts (0..8), by a 16-entry nibble table.
__attribute__((target("avx2"))) inline __m256i popcount_bytes(__m256i v) {
  const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0f);
  const __m256i lo = _mm256_and_si256(v, low);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
  return _mm256_add_epi8(_mm256_shuffle_epi8(table, lo), _mm256_shuffle_epi8(table, hi));
}

/// Sum of the four 64-bit lanes.
__attribute__((target("avx2"))) inline long long lane_sum(__m256i v) {
  alignas(32) long long t[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(t), v);
  return t[0] + t[1] + t[2] + t[3];
}

/// |x ∧ y| and |x ∨ y| over w words: 4 words per step, byte counters flushed into 64-bit lanes
/// (by SAD against zero) every 31 steps, before a byte can exceed 8·31 = 248.
__attribute__((target("avx2,popcnt"))) void tanimoto_counts_avx2(const double* x, const double* y,
                                                                 int w, long long& both,
                                                                 long long& either) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i sum_and = zero, sum_or = zero;
  int i = 0;
  while (i + 4 <= w) {
    __m256i acc_and = zero, acc_or = zero;
    const int steps = std::min((w - i) / 4, 31);
    for (int s = 0; s < steps; ++s, i += 4) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + i));
      acc_and = _mm256_add_epi8(acc_and, popcount_bytes(_mm256_and_si256(a, b)));
      acc_or = _mm256_add_epi8(acc_or, popcount_bytes(_mm256_or_si256(a, b)));
    }
    sum_and = _mm256_add_epi64(sum_and, _mm256_sad_epu8(acc_and, zero));
    sum_or = _mm256_add_epi64(sum_or, _mm256_sad_epu8(acc_or, zero));
  }
  both = lane_sum(sum_and);
  either = lane_sum(sum_or);
  for (; i < w; ++i) {
    const unsigned long long a = word_bits(x[i]), b = word_bits(y[i]);
    both += _mm_popcnt_u64(a & b);
    either += _mm_popcnt_u64(a | b);
  }
}

/// Σ min and Σ max of the byte counts over w words (SAD sums of 32 bytes per step).
__attribute__((target("avx2"))) void minmax_sums_avx2(const double* x, const double* y, int w,
                                                      long long& lo, long long& hi) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i sum_min = zero, sum_max = zero;
  int i = 0;
  for (; i + 4 <= w; i += 4) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + i));
    sum_min = _mm256_add_epi64(sum_min, _mm256_sad_epu8(_mm256_min_epu8(a, b), zero));
    sum_max = _mm256_add_epi64(sum_max, _mm256_sad_epu8(_mm256_max_epu8(a, b), zero));
  }
  lo = lane_sum(sum_min);
  hi = lane_sum(sum_max);
  for (; i < w; ++i) byte_min_max(word_bits(x[i]), word_bits(y[i]), lo, hi);
}

__attribute__((target("avx2,popcnt"))) double pair_avx2(const KernelFormula& f, const double* x,
                                                        const double* y, int w) {
  long long num = 0, den = 0;
  if (f.type == KernelType::Tanimoto) {
    tanimoto_counts_avx2(x, y, w, num, den);
  } else {
    minmax_sums_avx2(x, y, w, num, den);
  }
  return similarity(f.variance, num, den);
}

/// |x ∧ y| over w words (the AND half of tanimoto_counts_avx2; |x ∨ y| = |x| + |y| − |x ∧ y|).
__attribute__((target("avx2,popcnt"))) long long and_count_avx2(const double* x, const double* y,
                                                                int w) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i sum = zero;
  int i = 0;
  while (i + 4 <= w) {
    __m256i acc = zero;
    const int steps = std::min((w - i) / 4, 31);
    for (int s = 0; s < steps; ++s, i += 4) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + i));
      acc = _mm256_add_epi8(acc, popcount_bytes(_mm256_and_si256(a, b)));
    }
    sum = _mm256_add_epi64(sum, _mm256_sad_epu8(acc, zero));
  }
  long long both = lane_sum(sum);
  for (; i < w; ++i) both += _mm_popcnt_u64(word_bits(x[i]) & word_bits(y[i]));
  return both;
}

__attribute__((target("popcnt"))) long long bit_count(const double* x, int w) {
  long long c = 0;
  for (int i = 0; i < w; ++i) c += _mm_popcnt_u64(word_bits(x[i]));
  return c;
}

/// A Tanimoto tile (X rows [i0, i1) against every Y row) with each row's bit count computed
/// once: one AND popcount per pair instead of AND and OR; the same integers, so the same values.
__attribute__((target("avx2,popcnt"))) void tanimoto_tile_avx2(const KernelFormula& f,
                                                               const double* X, long long i0,
                                                               long long i1, const double* Y,
                                                               long long ny, int w, double* out,
                                                               long long ldo) {
  long long cx[kTile];
  for (long long i = i0; i < i1; ++i) cx[i - i0] = bit_count(X + i * w, w);
  for (long long j = 0; j < ny; ++j) {
    const double* y = Y + j * w;
    const long long cy = bit_count(y, w);
    double* col = out + j * ldo;
    for (long long i = i0; i < i1; ++i) {
      const long long both = and_count_avx2(X + i * w, y, w);
      col[i] = similarity(f.variance, both, cx[i - i0] + cy - both);
    }
  }
}

bool cpu_has(const char* feature) {
  __builtin_cpu_init();
  if (std::strcmp(feature, "avx2") == 0) return __builtin_cpu_supports("avx2");
  return __builtin_cpu_supports("popcnt");
}
#endif

/// The kernel values of one tile: X rows [i0, i1) against every Y row, with `pair`.
template <class Pair>
void tile(const Pair& pair, const KernelFormula& f, const double* X, long long i0, long long i1,
          const double* Y, long long ny, int w, double* out, long long ldo) {
  for (long long j = 0; j < ny; ++j) {
    const double* y = Y + j * w;
    double* col = out + j * ldo;
    for (long long i = i0; i < i1; ++i) col[i] = pair(f, X + i * w, y, w);
  }
}

template <class Pair>
void run_tiles(const Pair& pair, const KernelFormula& f, const double* X, long long nx,
               const double* Y, long long ny, int w, double* out, long long ldo, Threads threads) {
  const long long tiles = (nx + kTile - 1) / kTile;
  const int nt = threads.for_work(static_cast<double>(nx) * static_cast<double>(ny) * (w + 4));
#pragma omp parallel for schedule(dynamic) num_threads(nt)
  for (long long t = 0; t < tiles; ++t) {
    tile(pair, f, X, t * kTile, std::min(nx, (t + 1) * kTile), Y, ny, w, out, ldo);
  }
}

}  // namespace

PopcountPath best_popcount_path() {
#if GPB_X86
  static const PopcountPath best = cpu_has("avx2")     ? PopcountPath::Avx2
                                   : cpu_has("popcnt") ? PopcountPath::Popcnt
                                                       : PopcountPath::Portable;
  return best;
#else
  return PopcountPath::Portable;
#endif
}

void fingerprint_block(const KernelFormula& f, const double* X, long long nx, const double* Y,
                       long long ny, int w, double* out, long long ldo, Threads threads,
                       PopcountPath path) {
  GPB_EXPECTS(f.type == KernelType::Tanimoto || f.type == KernelType::MinMax,
              "fingerprint_block: not a fingerprint kernel");
  if (path == PopcountPath::Auto) path = best_popcount_path();
#if GPB_X86
  if (path == PopcountPath::Avx2 && cpu_has("avx2")) {
    if (f.type == KernelType::Tanimoto) {
      const long long tiles = (nx + kTile - 1) / kTile;
      const int nt = threads.for_work(static_cast<double>(nx) * static_cast<double>(ny) * (w + 4));
#pragma omp parallel for schedule(dynamic) num_threads(nt)
      for (long long t = 0; t < tiles; ++t) {
        tanimoto_tile_avx2(f, X, t * kTile, std::min(nx, (t + 1) * kTile), Y, ny, w, out, ldo);
      }
      return;
    }
    run_tiles(pair_avx2, f, X, nx, Y, ny, w, out, ldo, threads);
    return;
  }
  if (path != PopcountPath::Portable && cpu_has("popcnt")) {
    run_tiles(pair_popcnt, f, X, nx, Y, ny, w, out, ldo, threads);
    return;
  }
#endif
  run_tiles(pair_formula, f, X, nx, Y, ny, w, out, ldo, threads);
}

void fingerprint_row(const KernelFormula& f, const double* y, const double* X, int nx, int w,
                     double* out) {
#if GPB_X86
  if (best_popcount_path() == PopcountPath::Avx2) {
    for (int i = 0; i < nx; ++i) out[i] = pair_avx2(f, X + static_cast<long>(i) * w, y, w);
    return;
  }
#endif
  for (int i = 0; i < nx; ++i) out[i] = f(X + static_cast<long>(i) * w, y, w);
}

}  // namespace gpb::detail
