// CUDA engine ops on host data: kernel matrix, kernel diagonal, UCB argmax (host side; the kernels
// are in kernels/, launched through src/engine/cuda/launch.hpp).
#include "engine/cuda/ops_cuda.hpp"

#include <cmath>

#include "engine/cpu/kernel_eval.hpp"
#include "engine/cuda/launch.hpp"
#include "engine/cuda/matrix_cache.hpp"
#include "engine/cuda/resources.hpp"
#include "gpbandit/error.hpp"

namespace gpb::cuda {

DeviceKernel upload_kernel(const Context& ctx, const Kernel& k, cudaStream_t stream) {
  DeviceKernel dk;
  dk.formula = detail::KernelEval(k);
  dk.matrix = device_matrix(ctx, k);
  if (k.is_ard()) {
    const Eigen::VectorXd& inv = k.inverse_lengthscales();
    dk.inv_lengthscales = upload(inv.data(), static_cast<std::size_t>(inv.size()), stream);
  }
  if (k.program() != nullptr) {  // a composite kernel's parts (kernel_formula.hpp evaluates them)
    const Eigen::VectorXd& prog = *k.program();
    dk.program = upload(prog.data(), static_cast<std::size_t>(prog.size()), stream);
  }
  dk.formula.program = k.program() != nullptr ? dk.program.data() : nullptr;
  dk.formula.matrix = dk.matrix ? dk.matrix->data() : nullptr;
  dk.formula.inv_lengthscales = k.is_ard() ? dk.inv_lengthscales.data() : nullptr;
  return dk;
}

namespace {
/// Device copy of a d×n Ref (columns may be spaced outerStride() apart; copied densely).
DeviceBuffer<double> upload_points(const Eigen::Ref<const Eigen::MatrixXd>& X, cudaStream_t s) {
  const std::size_t d = static_cast<std::size_t>(X.rows()), n = static_cast<std::size_t>(X.cols());
  DeviceBuffer<double> buf(d * n);
  if (d * n == 0) return buf;
  if (static_cast<std::size_t>(X.outerStride()) == d) {
    copy_to_device(buf.data(), X.data(), d * n, s);
    return buf;
  }
  GPB_CUDA_TRY(cudaMemcpy2DAsync(buf.data(), d * sizeof(double), X.data(),
                                 static_cast<std::size_t>(X.outerStride()) * sizeof(double),
                                 d * sizeof(double), n, cudaMemcpyHostToDevice, s));
  return buf;
}
}  // namespace

Eigen::MatrixXd kernel_matrix(const Context& ctx, const Kernel& k,
                              const Eigen::Ref<const Eigen::MatrixXd>& A,
                              const Eigen::Ref<const Eigen::MatrixXd>& B) {
  set_device(ctx);
  cudaStream_t s = stream_of(ctx);
  const int d = static_cast<int>(A.rows());
  const int n = static_cast<int>(A.cols()), m = static_cast<int>(B.cols());
  Eigen::MatrixXd K(n, m);
  if (n == 0 || m == 0) return K;
  const DeviceBuffer<double> a = upload_points(A, s), b = upload_points(B, s);
  const DeviceKernel dk = upload_kernel(ctx, k, s);
  DeviceBuffer<double> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(m));
  launch_kernel_matrix(ctx, dk.formula, a.data(), d, n, b.data(), d, m, d, out.data(), n);
  copy_to_host(K.data(), out.data(), out.size(), s);
  return K;
}

Eigen::VectorXd kernel_diag(const Context& ctx, const Kernel& k,
                            const Eigen::Ref<const Eigen::MatrixXd>& points) {
  set_device(ctx);
  cudaStream_t s = stream_of(ctx);
  const int d = static_cast<int>(points.rows()), n = static_cast<int>(points.cols());
  Eigen::VectorXd diag(n);
  if (n == 0) return diag;
  const DeviceBuffer<double> x = upload_points(points, s);
  const DeviceKernel dk = upload_kernel(ctx, k, s);
  DeviceBuffer<double> out(static_cast<std::size_t>(n));
  launch_kernel_diag(ctx, dk.formula, x.data(), d, n, d, out.data());
  copy_to_host(diag.data(), out.data(), out.size(), s);
  return diag;
}

std::vector<UcbChoice> ucb_choices(const Context& ctx, const double* mean, const double* var, int n,
                                   int runs, const double* width_device, const double* width_host,
                                   const std::uint8_t* excluded,
                                   const std::vector<Rng*>& tiebreak) {
  cudaStream_t s = stream_of(ctx);
  std::vector<DeviceBest> best(static_cast<std::size_t>(runs));
  device_ucb_argmax(ctx, mean, var, n, runs, width_device, excluded, best.data());
  std::vector<UcbChoice> out(static_cast<std::size_t>(runs));
  std::vector<int> tie_runs, tie_rank, tie_pos;
  std::vector<double> tie_target;
  for (int r = 0; r < runs; ++r) {
    const DeviceBest& b = best[static_cast<std::size_t>(r)];
    if (b.nan_index >= 0) {  // the CPU reports the lowest NaN candidate with its inputs
      const std::size_t e = static_cast<std::size_t>(r) * n + b.nan_index;
      double m = 0, v = 0;
      copy_to_host(&m, mean + e, 1, s);
      copy_to_host(&v, var + e, 1, s);
      GPB_EXPECTS(false, "ucb_argmax: the UCB score of candidate "
                             << b.nan_index << " is NaN (mean " << m << ", variance " << v
                             << ", width " << width_host[r] << ")");
    }
    GPB_EXPECTS(b.index >= 0, "ucb_argmax: every one of the " << n << " candidates is excluded");
    out[static_cast<std::size_t>(r)] = UcbChoice{b.index, b.score, b.ties};
    Rng* tb = tiebreak.empty() ? nullptr : tiebreak[static_cast<std::size_t>(r)];
    if (b.ties > 1 && tb != nullptr) {
      // The same draw and rank as ucb_argmax_cpu; rank 0 is the lowest-index tie already found.
      int k = static_cast<int>(std::floor(tb->uniform() * b.ties));
      if (k >= b.ties) k = b.ties - 1;
      if (k > 0) {
        tie_runs.push_back(r);
        tie_rank.push_back(k);
        tie_target.push_back(b.score);
      }
    }
  }
  if (!tie_runs.empty()) {
    const int count = static_cast<int>(tie_runs.size());
    std::vector<int> chosen(tie_runs.size(), -1);
    device_select_ties(ctx, mean, var, n, width_device, excluded, count, tie_runs.data(),
                       tie_target.data(), tie_rank.data(), chosen.data());
    for (int i = 0; i < count; ++i) {
      out[static_cast<std::size_t>(tie_runs[static_cast<std::size_t>(i)])].index =
          chosen[static_cast<std::size_t>(i)];
    }
  }
  return out;
}

UcbChoice ucb_argmax(const Context& ctx, const double* mean, const double* variance, int n,
                     double width, const std::uint8_t* excluded, Rng* tiebreak) {
  set_device(ctx);
  cudaStream_t s = stream_of(ctx);
  const std::size_t nn = static_cast<std::size_t>(n);
  const DeviceBuffer<double> m = upload(mean, nn, s), v = upload(variance, nn, s);
  const DeviceBuffer<double> w = upload(&width, 1, s);
  DeviceBuffer<std::uint8_t> ex;
  if (excluded != nullptr) ex = upload(excluded, nn, s);
  const std::vector<Rng*> tb{tiebreak};
  return ucb_choices(ctx, m.data(), v.data(), n, 1, w.data(), &width,
                     excluded != nullptr ? ex.data() : nullptr, tb)[0];
}

}  // namespace gpb::cuda
