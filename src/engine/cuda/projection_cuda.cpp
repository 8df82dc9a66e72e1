// CUDA projection ops: Philox fills (kernels/philox.cuh), Z = scale·X M by cuBLAS DGEMM, and the
// singular spectrum from cuBLAS DSYRK (XᵀX) + cuSOLVER DSYEVD. All on the Context's stream.
#include <algorithm>
#include <cmath>

#include "engine/cuda/launch.hpp"
#include "engine/cuda/resources.hpp"
#include "engine/detail/projection_backend.hpp"
#include "engine/detail/solver_info.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {

namespace {
/// Dense device copy (leading dimension rows) of a column-major host block.
cuda::DeviceBuffer<double> upload_dense(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                        cudaStream_t s) {
  const std::size_t rows = static_cast<std::size_t>(X.rows()),
                    cols = static_cast<std::size_t>(X.cols());
  cuda::DeviceBuffer<double> buf(rows * cols);
  if (rows * cols == 0) return buf;
  if (static_cast<std::size_t>(X.outerStride()) == rows) {
    cuda::copy_to_device(buf.data(), X.data(), rows * cols, s);
  } else {
    GPB_CUDA_TRY(cudaMemcpy2DAsync(buf.data(), rows * sizeof(double), X.data(),
                                   static_cast<std::size_t>(X.outerStride()) * sizeof(double),
                                   rows * sizeof(double), cols, cudaMemcpyHostToDevice, s));
  }
  return buf;
}
}  // namespace

std::vector<double> random_uniform_cuda(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                                        std::uint32_t stream, std::uint64_t start,
                                        std::size_t count) {
  cuda::set_device(ctx);
  std::vector<double> out(count);
  if (count == 0) return out;
  cuda::DeviceBuffer<double> d(count);
  cuda::launch_philox_uniform(ctx, seed, run, stream, start, count, d.data());
  cuda::copy_to_host(out.data(), d.data(), count, cuda::stream_of(ctx));
  return out;
}

std::vector<double> random_normal_cuda(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                                       std::uint32_t stream, std::uint64_t start,
                                       std::size_t count) {
  cuda::set_device(ctx);
  std::vector<double> out(count);
  if (count == 0) return out;
  cuda::DeviceBuffer<double> d(count);
  cuda::launch_philox_normal(ctx, seed, run, stream, start, count, d.data());
  cuda::copy_to_host(out.data(), d.data(), count, cuda::stream_of(ctx));
  return out;
}

Eigen::MatrixXd project_cuda(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                             const Eigen::Ref<const Eigen::MatrixXd>& M, double scale) {
  cuda::set_device(ctx);
  cudaStream_t s = cuda::stream_of(ctx);
  const int n = static_cast<int>(X.rows()), d = static_cast<int>(X.cols());
  const int r = static_cast<int>(M.cols());
  Eigen::MatrixXd Z(n, r);
  if (Z.size() == 0) return Z;
  if (d == 0) return Eigen::MatrixXd::Zero(n, r);
  const cuda::DeviceBuffer<double> x = upload_dense(X, s), m = upload_dense(M, s);
  cuda::DeviceBuffer<double> z(static_cast<std::size_t>(n) * static_cast<std::size_t>(r));
  const double zero = 0.0;
  GPB_CUBLAS_TRY(cublasDgemm(cuda::resources(ctx).cublas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, r, d,
                             &scale, x.data(), n, m.data(), d, &zero, z.data(), n));
  cuda::copy_to_host(Z.data(), z.data(), z.size(), s);
  return Z;
}

SingularSpectrum singular_spectrum_cuda(const Context& ctx,
                                        const Eigen::Ref<const Eigen::MatrixXd>& X) {
  cuda::set_device(ctx);
  detail::CudaResources& res = cuda::resources(ctx);
  cudaStream_t s = res.stream.get();
  const int n = static_cast<int>(X.rows()), d = static_cast<int>(X.cols());
  const int p = std::min(n, d);
  const cuda::DeviceBuffer<double> x = upload_dense(X, s);
  cuda::DeviceBuffer<double> g(static_cast<std::size_t>(d) * d), w(static_cast<std::size_t>(d));
  const double one = 1.0, zero = 0.0;
  // Lower triangle of G = XᵀX.
  GPB_CUBLAS_TRY(cublasDsyrk(res.cublas.get(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, d, n, &one,
                             x.data(), n, &zero, g.data(), d));
  int lwork = 0;
  GPB_CUSOLVER_TRY(cusolverDnDsyevd_bufferSize(res.cusolver.get(), CUSOLVER_EIG_MODE_VECTOR,
                                               CUBLAS_FILL_MODE_LOWER, d, g.data(), d, w.data(),
                                               &lwork));
  double* work = cuda::workspace(ctx, static_cast<std::size_t>(std::max(lwork, 1)));
  GPB_CUSOLVER_TRY(cusolverDnDsyevd(res.cusolver.get(), CUSOLVER_EIG_MODE_VECTOR,
                                    CUBLAS_FILL_MODE_LOWER, d, g.data(), d, w.data(), work, lwork,
                                    res.info.data()));
  int info = 0;
  cuda::copy_to_host(&info, res.info.data(), 1, s);
  if (check_solver_info(info, "cusolverDnDsyevd") != 0) {
    throw NumericalError("singular_spectrum: cusolverDnDsyevd failed on the " + std::to_string(d) +
                         "x" + std::to_string(d) +
                         " Gram matrix (devInfo = " + std::to_string(info) + ")");
  }
  Eigen::VectorXd eval(d);
  Eigen::MatrixXd evec(d, d);
  GPB_CUDA_TRY(
      cudaMemcpyAsync(eval.data(), w.data(), sizeof(double) * d, cudaMemcpyDeviceToHost, s));
  cuda::copy_to_host(evec.data(), g.data(), g.size(), s);
  SingularSpectrum out;  // syevd: ascending eigenvalues, eigenvectors in the columns of g
  out.values.resize(p);
  out.right.resize(d, p);
  for (int k = 0; k < p; ++k) {
    const int src = d - 1 - k;
    out.values[k] = std::sqrt(std::max(eval[src], 0.0));
    out.right.col(k) = evec.col(src);
  }
  return out;
}

}  // namespace gpb::detail
