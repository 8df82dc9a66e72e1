/// @file block_products_impl.hpp
/// The body of the block products (block_products.hpp), built twice: namespace GPB_BLOCK_NS is
/// block_baseline (block_products.cpp) or block_avx2 (block_products_avx2.cpp, where Eigen is
/// renamed so that its instantiations stay apart). Rows of the n×q results are independent, so
/// both products split the candidates into chunks, one Eigen call per chunk, chunks over threads
/// (Eigen's own TRSM runs on one thread).
#include <Eigen/Core>

#include <algorithm>

#include "engine/cpu/block_products.hpp"

namespace gpb::detail::GPB_BLOCK_NS {

namespace {

/// Candidates per chunk: enough rows to amortise packing B, small enough to balance two threads
/// on a loaded machine.
constexpr long kChunkRows = 2048;

using ConstMap = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
using Map = Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

int chunks_of(long n) {
  return static_cast<int>((n + kChunkRows - 1) / kChunkRows);
}

}  // namespace

void sub_product(long n, int t, int q, const double* a, long lda, const double* b, long ldb,
                 double* c, long ldc, int threads) {
  if (n <= 0 || t <= 0 || q <= 0) return;
  const ConstMap B(b, t, q, Eigen::OuterStride<>(ldb));
  const int chunks = chunks_of(n);
  const int nt = std::max(1, std::min(threads, chunks));
#pragma omp parallel for schedule(dynamic) num_threads(nt)
  for (int k = 0; k < chunks; ++k) {
    const long j0 = k * kChunkRows, len = std::min(kChunkRows, n - j0);
    const ConstMap A(a + j0, len, t, Eigen::OuterStride<>(lda));
    Map C(c + j0, len, q, Eigen::OuterStride<>(ldc));
    C.noalias() -= A * B;  // one thread per chunk: Eigen does not nest inside a parallel region
  }
}

void solve_lower_transposed(long n, int q, const double* l, long ldl, double* x, long ldx,
                            int threads) {
  if (n <= 0 || q <= 0) return;
  const ConstMap L(l, q, q, Eigen::OuterStride<>(ldl));
  const int chunks = chunks_of(n);
  const int nt = std::max(1, std::min(threads, chunks));
#pragma omp parallel for schedule(dynamic) num_threads(nt)
  for (int k = 0; k < chunks; ++k) {
    const long j0 = k * kChunkRows, len = std::min(kChunkRows, n - j0);
    Map X(x + j0, len, q, Eigen::OuterStride<>(ldx));
    L.transpose().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(X);
  }
}

}  // namespace gpb::detail::GPB_BLOCK_NS
