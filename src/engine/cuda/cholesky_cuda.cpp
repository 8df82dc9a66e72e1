// CUDA side of gpb::Cholesky: cuSOLVER potrf with devInfo checks, cuBLAS trsv for the O(t²)
// append, cuBLAS trsm for the triangular solves. The device copy is column-major with leading
// dimension `cap` (only the lower triangle of the leading n×n block is meaningful).
#include <algorithm>
#include <string>

#include "engine/cuda/resources.hpp"
#include "engine/detail/cholesky_backend.hpp"
#include "engine/detail/solver_info.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {

struct CholeskyDevice {
  cuda::DeviceBuffer<double> L;  // cap × cap
  int cap = 0;
  int n = 0;  // rows/columns valid on the device
};

namespace {
/// A device copy of the leading n×n block of the host factor, with room for `cap` ≥ n.
std::shared_ptr<CholeskyDevice> upload_factor(const Context& ctx, const Eigen::MatrixXd& L, int n,
                                              int cap) {
  auto dev = std::make_shared<CholeskyDevice>();
  dev->cap = std::max(cap, 1);
  dev->L.allocate(static_cast<std::size_t>(dev->cap) * dev->cap);
  dev->n = n;
  if (n > 0) {
    GPB_CUBLAS_TRY(cublasSetMatrixAsync(n, n, sizeof(double), L.data(), static_cast<int>(L.rows()),
                                        dev->L.data(), dev->cap, cuda::stream_of(ctx)));
  }
  return dev;
}

void ensure(const Context& ctx, std::shared_ptr<CholeskyDevice>& dev, const Eigen::MatrixXd& L,
            int n) {
  if (!dev || dev->n < n) dev = upload_factor(ctx, L, n, static_cast<int>(L.rows()));
}
}  // namespace

bool cholesky_potrf_cuda(const Context& ctx, std::shared_ptr<CholeskyDevice>& dev,
                         Eigen::MatrixXd& work) {
  cuda::set_device(ctx);
  CudaResources& res = cuda::resources(ctx);
  cudaStream_t s = res.stream.get();
  const int n = static_cast<int>(work.rows());
  auto fresh = std::make_shared<CholeskyDevice>();
  fresh->cap = std::max(n, 1);
  fresh->n = n;
  fresh->L.allocate(static_cast<std::size_t>(fresh->cap) * fresh->cap);
  if (n > 0) {
    cuda::copy_to_device(fresh->L.data(), work.data(), static_cast<std::size_t>(n) * n, s);
    int lwork = 0;
    GPB_CUSOLVER_TRY(cusolverDnDpotrf_bufferSize(res.cusolver.get(), CUBLAS_FILL_MODE_LOWER, n,
                                                 fresh->L.data(), n, &lwork));
    double* ws = cuda::workspace(ctx, static_cast<std::size_t>(std::max(lwork, 1)));
    GPB_CUSOLVER_TRY(cusolverDnDpotrf(res.cusolver.get(), CUBLAS_FILL_MODE_LOWER, n,
                                      fresh->L.data(), n, ws, lwork, res.info.data()));
    int info = 0;
    cuda::copy_to_host(&info, res.info.data(), 1, s);
    // info > 0: the leading minor of order info is not positive definite.
    if (check_solver_info(info, "cusolverDnDpotrf") > 0) return false;
    cuda::copy_to_host(work.data(), fresh->L.data(), static_cast<std::size_t>(n) * n, s);
  }
  dev = std::move(fresh);
  return true;
}

void cholesky_trsv_cuda(const Context& ctx, std::shared_ptr<CholeskyDevice>& dev,
                        const Eigen::MatrixXd& L, int n, double* w) {
  if (n == 0) return;
  cuda::set_device(ctx);
  CudaResources& res = cuda::resources(ctx);
  cudaStream_t s = res.stream.get();
  ensure(ctx, dev, L, n);
  cuda::DeviceBuffer<double> x = cuda::upload(w, static_cast<std::size_t>(n), s);
  GPB_CUBLAS_TRY(cublasDtrsv(res.cublas.get(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, n, dev->L.data(), dev->cap, x.data(), 1));
  cuda::copy_to_host(w, x.data(), static_cast<std::size_t>(n), s);
}

void cholesky_set_row_cuda(const Context& ctx, std::shared_ptr<CholeskyDevice>& dev,
                           const Eigen::MatrixXd& L, int row) {
  cuda::set_device(ctx);
  if (!dev || dev.use_count() > 1 || dev->n < row || dev->cap < row + 1) {
    // Missing, shared with a copy of this Cholesky, or full: rebuild from the host factor
    // (geometric capacity, so O(t²) amortised per append).
    dev = upload_factor(ctx, L, row + 1, std::max(static_cast<int>(L.rows()), 2 * (row + 1)));
    return;
  }
  // Row `row` of a column-major matrix: stride cap on the device, L.rows() on the host.
  GPB_CUBLAS_TRY(cublasSetVectorAsync(row + 1, sizeof(double), L.data() + row,
                                      static_cast<int>(L.rows()), dev->L.data() + row, dev->cap,
                                      cuda::stream_of(ctx)));
  // The host row may be overwritten by the next append only after this copy has read it.
  GPB_CUDA_TRY(cudaStreamSynchronize(cuda::stream_of(ctx)));
  dev->n = row + 1;
}

void cholesky_solve_cuda(const Context& ctx, std::shared_ptr<CholeskyDevice>& dev,
                         const Eigen::MatrixXd& L, int n, double* B, long ldb, int cols,
                         bool transpose) {
  if (n == 0 || cols == 0) return;
  cuda::set_device(ctx);
  CudaResources& res = cuda::resources(ctx);
  cudaStream_t s = res.stream.get();
  ensure(ctx, dev, L, n);
  cuda::DeviceBuffer<double> b(static_cast<std::size_t>(n) * cols);
  GPB_CUBLAS_TRY(
      cublasSetMatrixAsync(n, cols, sizeof(double), B, static_cast<int>(ldb), b.data(), n, s));
  const double one = 1.0;
  GPB_CUBLAS_TRY(cublasDtrsm(res.cublas.get(), CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
                             transpose ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, cols,
                             &one, dev->L.data(), dev->cap, b.data(), n));
  GPB_CUBLAS_TRY(
      cublasGetMatrixAsync(n, cols, sizeof(double), b.data(), n, B, static_cast<int>(ldb), s));
  GPB_CUDA_TRY(cudaStreamSynchronize(s));
}

}  // namespace gpb::detail
