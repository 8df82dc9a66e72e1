/// @file launch.hpp
/// Host-callable launchers of the kernels in kernels/*.cuh (defined in src/engine/cuda/*.cu). Plain
/// C++: device pointers are raw pointers, and every launcher runs on the Context's stream, checks
/// the launch and throws CudaError on failure. Internal to the CUDA backend.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/detail/kernel_formula.hpp"
#include "gpbandit/engine/context.hpp"

namespace gpb::cuda {

// ---------------------------------------------------------------- kernel matrix (kernel_matrix.cu)

/// K[i + j·ldk] = f(A[:, i], B[:, j]) for i < n, j < m (all device pointers; f.matrix, when set,
/// is a device pointer). Shared-memory tiles for d ≤ 64, a global-memory kernel above.
void launch_kernel_matrix(const Context& ctx, const detail::KernelFormula& f, const double* A,
                          long lda, int n, const double* B, long ldb, int m, int d, double* K,
                          long ldk);
/// out[j] = f(x_j, x_j) for the n columns of X (device pointers).
void launch_kernel_diag(const Context& ctx, const detail::KernelFormula& f, const double* X,
                        long ldx, int n, int d, double* out);

// ---------------------------------------------------------------- Philox (philox.cu)

/// out[i] = the i-th Rng(seed, run, stream, start).uniform() (device pointer, count values).
void launch_philox_uniform(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                           std::uint32_t stream, std::uint64_t start, std::size_t count,
                           double* out);
/// out[i] = the i-th Rng(seed, run, stream, start).normal() (device pointer, count values).
void launch_philox_normal(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                          std::uint32_t stream, std::uint64_t start, std::size_t count,
                          double* out);

// ---------------------------------------------------------------- UCB argmax (ucb_argmax.cu)

/// One run's result of the device argmax (before the random tie-break).
struct DeviceBest {
  double score = 0;
  int index = -1;  ///< −1: every candidate excluded
  int ties = 0;
  int nan_index = -1;  ///< lowest candidate with a NaN score, −1 if none
};

/// Fused UCB argmax for R runs over device arrays mean/var (R×n run-major), width (R doubles,
/// device), excluded (R×n bytes, device, may be null). Returns R results on the host.
/// Two stages of block reductions (CUB), then one synchronisation.
void device_ucb_argmax(const Context& ctx, const double* mean, const double* var, int n, int runs,
                       const double* width, const std::uint8_t* excluded, DeviceBest* out);

/// For the `count` runs listed in runs_h (host), finds the rank_h[k]-th candidate (0-based, index
/// order) whose score equals target_h[k] exactly; writes the indices to chosen_h (host).
void device_select_ties(const Context& ctx, const double* mean, const double* var, int n,
                        const double* width, const std::uint8_t* excluded, int count,
                        const int* runs_h, const double* target_h, const int* rank_h,
                        int* chosen_h);

// ---------------------------------------------------------------- posterior (posterior_kernels.cu)

/// Device-side arguments of the posterior kernels (see kernels/posterior_rows.cuh for layouts).
struct RowArgs {
  detail::KernelFormula f;
  const double* points = nullptr;  ///< d×n device
  int d = 0;
  int n = 0;
  int runs = 0;
  int cap = 0;  ///< rows V has room for
};

/// append_row<double|float> over every run: xa (R × d, device) holds each run's observed
/// candidate's coordinates. alpha may be null (pending row).
void launch_append_row(const Context& ctx, const RowArgs& a, void* V, bool mixed, int t,
                       const double* lrows, const double* xa, const double* alpha, double* mu,
                       double* s2);
/// add_rows_to_mean for rows [begin, begin+count) with alphas R×count (device).
void launch_add_rows_to_mean(const Context& ctx, const RowArgs& a, const void* V, bool mixed,
                             int begin, int count, const double* alphas, double* mu);
/// gather_factor_row: out (R×(t+1), device) = V[r, 0..t−1, anchor[r]] and σ²[r, anchor[r]].
void launch_gather_factor_row(const Context& ctx, const RowArgs& a, const void* V, bool mixed,
                              int t, const int* anchor, const double* s2, double* out);
/// recompute_chunk over candidates [j0, j0+len) for every run; hx (R × t × d, device) holds the
/// rows' coordinates; W holds R·t·len doubles (only the rows before the last group of
/// kernels::kRecomputeGroup are written).
void launch_recompute_chunk(const Context& ctx, const RowArgs& a, int j0, int len, int t,
                            const double* hx, const double* lpacked, const double* alpha,
                            const unsigned char* resolved, const double* kdiag, double* W,
                            double* mu, double* s2);
/// out[r·n + j] = kdiag[j] for every run r < runs (device pointers): σ² of all runs at the prior.
void launch_fill_runs(const Context& ctx, const double* kdiag, int n, int runs, double* out);
/// dst[pos[i]] = val[i] for i < count (device pointers, positions distinct).
void launch_scatter_bytes(const Context& ctx, const long long* pos, const unsigned char* val,
                          long long count, unsigned char* dst);

}  // namespace gpb::cuda
