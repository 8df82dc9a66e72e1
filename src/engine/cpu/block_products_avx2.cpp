// The block products built with AVX2 and FMA (CMakeLists.txt gives this file -mavx2 -mfma and
// GPB_BLOCK_AVX2 on x86-64), called only when the CPU has both (block_products.cpp). Eigen is
// renamed here so that none of its instantiations, compiled for AVX2, can stand in for the
// baseline ones the rest of the library uses (the linker keeps one copy of each inline template);
// this file includes nothing else that uses Eigen.
#if defined(GPB_BLOCK_AVX2)
#define Eigen gpb_eigen_avx2
#define GPB_BLOCK_NS block_avx2
#include "engine/cpu/block_products_impl.hpp"
#else
#include "engine/cpu/block_products.hpp"

namespace gpb::detail::block_avx2 {  // never called: block_products_avx2() is false

void sub_product(long n, int t, int q, const double* a, long lda, const double* b, long ldb,
                 double* c, long ldc, int threads) {
  block_baseline::sub_product(n, t, q, a, lda, b, ldb, c, ldc, threads);
}

void sub_product(long n, int t, int q, const float* a, long lda, const float* b, long ldb, float* c,
                 long ldc, int threads) {
  block_baseline::sub_product(n, t, q, a, lda, b, ldb, c, ldc, threads);
}

void solve_lower_transposed(long n, int q, const double* l, long ldl, double* x, long ldx,
                            int threads) {
  block_baseline::solve_lower_transposed(n, q, l, ldl, x, ldx, threads);
}

void solve_lower_transposed(long n, int q, const float* l, long ldl, float* x, long ldx,
                            int threads) {
  block_baseline::solve_lower_transposed(n, q, l, ldl, x, ldx, threads);
}

}  // namespace gpb::detail::block_avx2
#endif
