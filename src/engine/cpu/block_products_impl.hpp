/// @file block_products_impl.hpp
/// The body of the block products (block_products.hpp), built twice: namespace GPB_BLOCK_NS is
/// block_baseline (block_products.cpp) or block_avx2 (block_products_avx2.cpp, where Eigen is
/// renamed so that its instantiations stay apart). Rows of the n×q results are independent, so
/// both products split the candidates into chunks, one Eigen call per chunk, chunks over threads
/// (Eigen's own TRSM runs on one thread). Each product exists in double and in float (the block
/// update of a posterior whose V is stored in float, Precision::Mixed).
#include <Eigen/Core>

#include <algorithm>

#include "engine/cpu/block_products.hpp"

namespace gpb::detail::GPB_BLOCK_NS {

namespace {

/// Candidates per chunk: enough rows to amortise packing B, small enough to balance two threads
/// on a loaded machine.
constexpr long kChunkRows = 2048;

template <class T>
using ConstMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;
template <class T>
using Map = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;

int chunks_of(long n) {
  return static_cast<int>((n + kChunkRows - 1) / kChunkRows);
}

template <class T>
void sub_product_t(long n, int t, int q, const T* a, long lda, const T* b, long ldb, T* c, long ldc,
                   int threads) {
  if (n <= 0 || t <= 0 || q <= 0) return;
  const ConstMap<T> B(b, t, q, Eigen::OuterStride<>(ldb));
  const int chunks = chunks_of(n);
  const int nt = std::max(1, std::min(threads, chunks));
#pragma omp parallel for schedule(dynamic) num_threads(nt)
  for (int k = 0; k < chunks; ++k) {
    const long j0 = k * kChunkRows, len = std::min(kChunkRows, n - j0);
    const ConstMap<T> A(a + j0, len, t, Eigen::OuterStride<>(lda));
    Map<T> C(c + j0, len, q, Eigen::OuterStride<>(ldc));
    C.noalias() -= A * B;  // one thread per chunk: Eigen does not nest inside a parallel region
  }
}

template <class T>
void solve_lower_transposed_t(long n, int q, const T* l, long ldl, T* x, long ldx, int threads) {
  if (n <= 0 || q <= 0) return;
  const ConstMap<T> L(l, q, q, Eigen::OuterStride<>(ldl));
  const int chunks = chunks_of(n);
  const int nt = std::max(1, std::min(threads, chunks));
#pragma omp parallel for schedule(dynamic) num_threads(nt)
  for (int k = 0; k < chunks; ++k) {
    const long j0 = k * kChunkRows, len = std::min(kChunkRows, n - j0);
    Map<T> X(x + j0, len, q, Eigen::OuterStride<>(ldx));
    L.transpose().template triangularView<Eigen::Upper>().template solveInPlace<Eigen::OnTheRight>(
        X);
  }
}

}  // namespace

void sub_product(long n, int t, int q, const double* a, long lda, const double* b, long ldb,
                 double* c, long ldc, int threads) {
  sub_product_t(n, t, q, a, lda, b, ldb, c, ldc, threads);
}

void sub_product(long n, int t, int q, const float* a, long lda, const float* b, long ldb, float* c,
                 long ldc, int threads) {
  sub_product_t(n, t, q, a, lda, b, ldb, c, ldc, threads);
}

void solve_lower_transposed(long n, int q, const double* l, long ldl, double* x, long ldx,
                            int threads) {
  solve_lower_transposed_t(n, q, l, ldl, x, ldx, threads);
}

void solve_lower_transposed(long n, int q, const float* l, long ldl, float* x, long ldx,
                            int threads) {
  solve_lower_transposed_t(n, q, l, ldl, x, ldx, threads);
}

}  // namespace gpb::detail::GPB_BLOCK_NS
