// The catch-up kernel of the CPU posterior, cloned for AVX2 (see posterior_rows.hpp).
#include "engine/cpu/posterior_rows.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GPB_SIMD_CLONES __attribute__((target_clones("avx2", "default"), flatten))
#else
#define GPB_SIMD_CLONES
#endif

namespace gpb::detail {

GPB_SIMD_CLONES void catch_up_rows(const KernelEval& eval, const double* points, int d,
                                   const RunRows& run, int done, int upto, int j0, int len,
                                   double* const* rows, double* acc, double* s2, double* m) {
  catch_up_rows_t(eval, points, d, run, done, upto, j0, len, rows, acc, s2, m);
}

GPB_SIMD_CLONES void catch_up_rows(const KernelEval& eval, const double* points, int d,
                                   const RunRows& run, int done, int upto, int j0, int len,
                                   float* const* rows, double* acc, double* s2, double* m) {
  catch_up_rows_t(eval, points, d, run, done, upto, j0, len, rows, acc, s2, m);
}

}  // namespace gpb::detail
