/// @file block_products.hpp
/// The two dense products of the CPU block update (posterior_block.cpp), over the candidates'
/// rows in parallel: C −= A·B and X ← X·L⁻ᵀ (internal), in double and in float (V stored in float).
/// Column-major raw pointers only, so that block_products_avx2.cpp can build them with AVX2 and FMA
/// (and a renamed Eigen) without sharing any Eigen instantiation with the rest of the library; the
/// dispatcher (block_products.cpp) calls that build when the CPU has both.
#pragma once

namespace gpb::detail {

/// C (n×q, leading dimension ldc) −= A (n×t, lda) · B (t×q, ldb), rows split over `threads`.
void block_sub_product(long n, int t, int q, const double* a, long lda, const double* b, long ldb,
                       double* c, long ldc, int threads);
/// The same in single precision (float inputs, float accumulation: Eigen's float GEMM).
void block_sub_product(long n, int t, int q, const float* a, long lda, const float* b, long ldb,
                       float* c, long ldc, int threads);

/// X (n×q, ldx) ← X · L⁻ᵀ for the lower-triangular L (q×q, ldl): row j of the result solves
/// L·xⱼᵀ = (row j of X)ᵀ. Rows split over `threads`.
void block_solve_lower_transposed(long n, int q, const double* l, long ldl, double* x, long ldx,
                                  int threads);
/// The same in single precision.
void block_solve_lower_transposed(long n, int q, const float* l, long ldl, float* x, long ldx,
                                  int threads);

/// True when the products run the AVX2 + FMA build (the CPU has both and the build made it).
bool block_products_avx2();

/// The two builds of the products: the baseline ISA and AVX2 + FMA (block_products_impl.hpp).
namespace block_baseline {
void sub_product(long n, int t, int q, const double* a, long lda, const double* b, long ldb,
                 double* c, long ldc, int threads);
void sub_product(long n, int t, int q, const float* a, long lda, const float* b, long ldb, float* c,
                 long ldc, int threads);
void solve_lower_transposed(long n, int q, const double* l, long ldl, double* x, long ldx,
                            int threads);
void solve_lower_transposed(long n, int q, const float* l, long ldl, float* x, long ldx,
                            int threads);
}  // namespace block_baseline
namespace block_avx2 {
void sub_product(long n, int t, int q, const double* a, long lda, const double* b, long ldb,
                 double* c, long ldc, int threads);
void sub_product(long n, int t, int q, const float* a, long lda, const float* b, long ldb, float* c,
                 long ldc, int threads);
void solve_lower_transposed(long n, int q, const double* l, long ldl, double* x, long ldx,
                            int threads);
void solve_lower_transposed(long n, int q, const float* l, long ldl, float* x, long ldx,
                            int threads);
}  // namespace block_avx2

}  // namespace gpb::detail
