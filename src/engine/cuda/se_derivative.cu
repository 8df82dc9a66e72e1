// CUDA SE derivative blocks: upload the points, launch kernels/se_derivative.cuh, download.
#include <algorithm>

#include "engine/cuda/device_buffer.hpp"
#include "engine/cuda/resources.hpp"
#include "engine/cuda/se_derivative_cuda.hpp"
#include "se_derivative.cuh"

namespace gpb::cuda {

namespace {
int blocks_for(const Context& ctx, long items) {
  const long b = (items + 255) / 256;
  const long cap = static_cast<long>(resources(ctx).sm_count) * 16;
  return static_cast<int>(std::max(1L, std::min(b, cap)));
}

struct Uploaded {
  DeviceBuffer<double> x, z;
};

Uploaded upload_pair(const Eigen::Ref<const Eigen::MatrixXd>& X,
                     const Eigen::Ref<const Eigen::MatrixXd>& Z, cudaStream_t s) {
  const Eigen::MatrixXd Xc = X, Zc = Z;  // dense column stride d
  Uploaded u;
  u.x = upload(Xc.data(), static_cast<std::size_t>(Xc.size()), s);
  u.z = upload(Zc.data(), static_cast<std::size_t>(Zc.size()), s);
  return u;
}
}  // namespace

Eigen::MatrixXd se_kernel_grad(const Context& ctx, const Kernel& k,
                               const Eigen::Ref<const Eigen::MatrixXd>& X,
                               const Eigen::Ref<const Eigen::MatrixXd>& Z) {
  set_device(ctx);
  cudaStream_t s = stream_of(ctx);
  const int d = static_cast<int>(X.rows()), n = static_cast<int>(X.cols()),
            m = static_cast<int>(Z.cols());
  Eigen::MatrixXd G(static_cast<Eigen::Index>(d) * n, m);
  if (G.size() == 0) return G;
  const Uploaded u = upload_pair(X, Z, s);
  DeviceBuffer<double> out(static_cast<std::size_t>(G.size()));
  const double inv_l2 = 1.0 / (k.lengthscale() * k.lengthscale());
  kernels::se_grad_block<<<blocks_for(ctx, static_cast<long>(n) * m), 256, 0, s>>>(
      u.x.data(), n, u.z.data(), m, d, inv_l2, k.variance(), out.data());
  check_launch("se_grad_block kernel launch");
  copy_to_host(G.data(), out.data(), out.size(), s);
  return G;
}

Eigen::MatrixXd se_kernel_grad_grad(const Context& ctx, const Kernel& k,
                                    const Eigen::Ref<const Eigen::MatrixXd>& X,
                                    const Eigen::Ref<const Eigen::MatrixXd>& Z) {
  set_device(ctx);
  cudaStream_t s = stream_of(ctx);
  const int d = static_cast<int>(X.rows()), n = static_cast<int>(X.cols()),
            m = static_cast<int>(Z.cols());
  Eigen::MatrixXd H(static_cast<Eigen::Index>(d) * n, static_cast<Eigen::Index>(d) * m);
  if (H.size() == 0) return H;
  const Uploaded u = upload_pair(X, Z, s);
  DeviceBuffer<double> out(static_cast<std::size_t>(H.size()));
  const double inv_l2 = 1.0 / (k.lengthscale() * k.lengthscale());
  kernels::se_grad_grad_block<<<blocks_for(ctx, static_cast<long>(n) * m), 256, 0, s>>>(
      u.x.data(), n, u.z.data(), m, d, inv_l2, k.variance(), out.data());
  check_launch("se_grad_grad_block kernel launch");
  copy_to_host(H.data(), out.data(), out.size(), s);
  return H;
}

}  // namespace gpb::cuda
