// Launchers of the posterior kernels (kernels/posterior_rows.cuh). Grids are (⌈n/256⌉, R): the
// run dimension on y (R ≤ 65535, checked by the caller), candidates on x.
#include <algorithm>

#include "engine/cuda/launch.hpp"
#include "engine/cuda/resources.hpp"
#include "posterior_rows.cuh"

namespace gpb::cuda {

namespace {
dim3 grid_over(int len, int runs) {
  return dim3(static_cast<unsigned>((len + kernels::kRowThreads - 1) / kernels::kRowThreads),
              static_cast<unsigned>(runs));
}
}  // namespace

void launch_append_row(const Context& ctx, const RowArgs& a, void* V, bool mixed, int t,
                       const double* lrows, const double* xa, const double* alpha, double* mu,
                       double* s2) {
  const dim3 grid = grid_over(a.n, a.runs);
  cudaStream_t s = stream_of(ctx);
  if (mixed) {
    kernels::append_row<float><<<grid, kernels::kRowThreads, 0, s>>>(
        a.f, a.points, a.d, a.n, static_cast<float*>(V), a.cap, t, lrows, xa, alpha, mu, s2);
  } else {
    kernels::append_row<double><<<grid, kernels::kRowThreads, 0, s>>>(
        a.f, a.points, a.d, a.n, static_cast<double*>(V), a.cap, t, lrows, xa, alpha, mu, s2);
  }
  check_launch("append_row kernel launch");
}

void launch_add_rows_to_mean(const Context& ctx, const RowArgs& a, const void* V, bool mixed,
                             int begin, int count, const double* alphas, double* mu) {
  if (count == 0) return;
  const dim3 grid = grid_over(a.n, a.runs);
  cudaStream_t s = stream_of(ctx);
  if (mixed) {
    kernels::add_rows_to_mean<float><<<grid, kernels::kRowThreads, 0, s>>>(
        a.n, static_cast<const float*>(V), a.cap, begin, count, alphas, mu);
  } else {
    kernels::add_rows_to_mean<double><<<grid, kernels::kRowThreads, 0, s>>>(
        a.n, static_cast<const double*>(V), a.cap, begin, count, alphas, mu);
  }
  check_launch("add_rows_to_mean kernel launch");
}

void launch_gather_factor_row(const Context& ctx, const RowArgs& a, const void* V, bool mixed,
                              int t, const int* anchor, const double* s2, double* out) {
  const dim3 grid = grid_over(t + 1, a.runs);
  cudaStream_t s = stream_of(ctx);
  if (mixed) {
    kernels::gather_factor_row<float><<<grid, kernels::kRowThreads, 0, s>>>(
        a.n, static_cast<const float*>(V), a.cap, t, anchor, s2, out);
  } else {
    kernels::gather_factor_row<double><<<grid, kernels::kRowThreads, 0, s>>>(
        a.n, static_cast<const double*>(V), a.cap, t, anchor, s2, out);
  }
  check_launch("gather_factor_row kernel launch");
}

void launch_recompute_chunk(const Context& ctx, const RowArgs& a, int j0, int len, int t,
                            const double* hx, const double* lpacked, const double* alpha,
                            const unsigned char* resolved, const double* kdiag, double* W,
                            double* mu, double* s2) {
  if (len == 0) return;
  kernels::recompute_chunk<<<grid_over(len, a.runs), kernels::kRowThreads, 0, stream_of(ctx)>>>(
      a.f, a.points, a.d, a.n, j0, len, t, hx, lpacked, alpha, resolved, kdiag, W, mu, s2);
  check_launch("recompute_chunk kernel launch");
}

void launch_fill_runs(const Context& ctx, const double* kdiag, int n, int runs, double* out) {
  if (n == 0) return;
  kernels::fill_runs<<<grid_over(n, runs), kernels::kRowThreads, 0, stream_of(ctx)>>>(kdiag, n,
                                                                                      out);
  check_launch("fill_runs kernel launch");
}

void launch_scatter_bytes(const Context& ctx, const long long* pos, const unsigned char* val,
                          long long count, unsigned char* dst) {
  if (count == 0) return;
  const long long blocks =
      std::min<long long>((count + kernels::kRowThreads - 1) / kernels::kRowThreads, 1024);
  kernels::
      scatter_bytes<<<static_cast<unsigned>(blocks), kernels::kRowThreads, 0, stream_of(ctx)>>>(
          pos, val, count, dst);
  check_launch("scatter_bytes kernel launch");
}

}  // namespace gpb::cuda
