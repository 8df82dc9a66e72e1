// The block products at the baseline ISA, and the dispatch to the AVX2 + FMA build
// (block_products.hpp).
#define GPB_BLOCK_NS block_baseline
#include "engine/cpu/block_products_impl.hpp"

namespace gpb::detail {

bool block_products_avx2() {
#if defined(GPB_BLOCK_AVX2)
  static const bool yes = [] {
    __builtin_cpu_init();  // safe before libgcc's own initialisation (static initialisers)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return yes;
#else
  return false;
#endif
}

namespace {

template <class T>
void sub_product_dispatch(long n, int t, int q, const T* a, long lda, const T* b, long ldb, T* c,
                          long ldc, int threads) {
  if (block_products_avx2()) {
    block_avx2::sub_product(n, t, q, a, lda, b, ldb, c, ldc, threads);
  } else {
    block_baseline::sub_product(n, t, q, a, lda, b, ldb, c, ldc, threads);
  }
}

template <class T>
void solve_dispatch(long n, int q, const T* l, long ldl, T* x, long ldx, int threads) {
  if (block_products_avx2()) {
    block_avx2::solve_lower_transposed(n, q, l, ldl, x, ldx, threads);
  } else {
    block_baseline::solve_lower_transposed(n, q, l, ldl, x, ldx, threads);
  }
}

}  // namespace

void block_sub_product(long n, int t, int q, const double* a, long lda, const double* b, long ldb,
                       double* c, long ldc, int threads) {
  sub_product_dispatch(n, t, q, a, lda, b, ldb, c, ldc, threads);
}

void block_sub_product(long n, int t, int q, const float* a, long lda, const float* b, long ldb,
                       float* c, long ldc, int threads) {
  sub_product_dispatch(n, t, q, a, lda, b, ldb, c, ldc, threads);
}

void block_solve_lower_transposed(long n, int q, const double* l, long ldl, double* x, long ldx,
                                  int threads) {
  solve_dispatch(n, q, l, ldl, x, ldx, threads);
}

void block_solve_lower_transposed(long n, int q, const float* l, long ldl, float* x, long ldx,
                                  int threads) {
  solve_dispatch(n, q, l, ldl, x, ldx, threads);
}

}  // namespace gpb::detail
