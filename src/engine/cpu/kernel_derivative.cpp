// SE kernel derivative blocks on the CPU, and the public entry points that dispatch on the backend.
#include "gpbandit/engine/kernel_derivative.hpp"

#include <cmath>
#include <vector>

#include "engine/detail/kernel_formula.hpp"
#include "engine/detail/se_derivative_formula.hpp"

#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"
#if GPB_HAS_CUDA
#include "engine/cuda/se_derivative_cuda.hpp"
#endif

namespace gpb {

namespace {
void check_inputs(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& X,
                  const Eigen::Ref<const Eigen::MatrixXd>& Z, const char* op) {
  GPB_EXPECTS(k.type() == KernelType::SE,
              op << ": only the SE kernel has derivative blocks, got " << k.describe());
  GPB_EXPECTS(!k.is_ard(), op << ": the derivative blocks take an isotropic SE kernel (one "
                                 "lengthscale), got the ARD kernel "
                              << k.describe());
  GPB_EXPECTS(X.rows() == Z.rows(),
              op << ": X has dimension " << X.rows() << " but Z has dimension " << Z.rows());
  GPB_EXPECTS(X.rows() >= 1, op << ": points must have dimension >= 1");
}
}  // namespace

Eigen::MatrixXd se_kernel_grad(const Context& ctx, const Kernel& k,
                               const Eigen::Ref<const Eigen::MatrixXd>& X,
                               const Eigen::Ref<const Eigen::MatrixXd>& Z) {
  check_inputs(k, X, Z, "se_kernel_grad");
#if GPB_HAS_CUDA
  if (ctx.backend() == Backend::Cuda) return cuda::se_kernel_grad(ctx, k, X, Z);
#endif
  const int d = static_cast<int>(X.rows());
  const Eigen::Index n = X.cols(), m = Z.cols();
  const Eigen::MatrixXd Xc = X, Zc = Z;  // dense copies (column stride d)
  const double inv_l2 = 1.0 / (k.lengthscale() * k.lengthscale());
  Eigen::MatrixXd G(d * n, m);
  const int nt = ctx.threads_for(static_cast<double>(n) * static_cast<double>(m) * (3.0 * d + 8));
#pragma omp parallel for num_threads(nt) schedule(static)
  for (Eigen::Index j = 0; j < m; ++j) {
    for (Eigen::Index i = 0; i < n; ++i) {
      detail::se_grad(Xc.col(i).data(), Zc.col(j).data(), d, inv_l2, k.variance(),
                      G.data() + j * G.rows() + i * d, 1);
    }
  }
  return G;
}

Eigen::MatrixXd se_kernel_grad_grad(const Context& ctx, const Kernel& k,
                                    const Eigen::Ref<const Eigen::MatrixXd>& X,
                                    const Eigen::Ref<const Eigen::MatrixXd>& Z) {
  check_inputs(k, X, Z, "se_kernel_grad_grad");
#if GPB_HAS_CUDA
  if (ctx.backend() == Backend::Cuda) return cuda::se_kernel_grad_grad(ctx, k, X, Z);
#endif
  const int d = static_cast<int>(X.rows());
  const Eigen::Index n = X.cols(), m = Z.cols();
  const Eigen::MatrixXd Xc = X, Zc = Z;
  const double inv_l2 = 1.0 / (k.lengthscale() * k.lengthscale());
  Eigen::MatrixXd H(d * n, d * m);
  const int nt =
      ctx.threads_for(static_cast<double>(n) * static_cast<double>(m) * (2.0 * d * d + 8));
#pragma omp parallel for num_threads(nt) schedule(static)
  for (Eigen::Index j = 0; j < m; ++j) {
    for (Eigen::Index i = 0; i < n; ++i) {
      detail::se_grad_grad(Xc.col(i).data(), Zc.col(j).data(), d, inv_l2, k.variance(),
                           H.data() + (j * d) * H.rows() + i * d, H.rows());
    }
  }
  return H;
}

namespace {

/// Composite kernels: ∂k/∂x_a for a in part p is c_p·∂u_p/∂x_a, with c_p = v·Π_{o≠p} u_o
/// (product) or v_p (sum), ∂u_p/∂x_a = −g_p(ρ_p)·(x_a − z_a)/l_a².
Eigen::MatrixXd composite_gradient(const Kernel& k, const Eigen::Ref<const Eigen::VectorXd>& x,
                                   const Eigen::Ref<const Eigen::MatrixXd>& Z) {
  const std::vector<KernelPart>& parts = k.parts();
  for (const KernelPart& p : parts) {
    GPB_EXPECTS(
        p.type == KernelType::SE || p.type == KernelType::Matern32 ||
            p.type == KernelType::Matern52,
        "kernel_gradient: every part must be se, matern32 or matern52, got " << k.describe());
  }
  const Eigen::Index d = x.size(), m = Z.cols();
  GPB_EXPECTS(Z.rows() == d && d == k.input_dim(), "kernel_gradient: x has dimension "
                                                       << d << ", Z " << Z.rows() << ", the kernel "
                                                       << k.describe() << " " << k.input_dim());
  const bool sum = k.type() == KernelType::Sum;
  const Eigen::ArrayXd inv2 = k.inverse_lengthscales().array().square();
  const std::size_t P = parts.size();
  std::vector<double> u(P), g(P);
  Eigen::MatrixXd G(d, m);
  for (Eigen::Index j = 0; j < m; ++j) {
    const Eigen::ArrayXd diff = x.array() - Z.col(j).array();
    for (std::size_t p = 0; p < P; ++p) {
      const KernelPart& kp = parts[p];
      const double rho2 =
          (diff.segment(kp.begin, kp.size).square() * inv2.segment(kp.begin, kp.size)).sum();
      u[p] = detail::stationary_shape(kp.type, rho2, 1.0, &g[p]);
    }
    for (std::size_t p = 0; p < P; ++p) {
      const KernelPart& kp = parts[p];
      double c = sum ? kp.variance : k.variance();
      if (!sum) {
        for (std::size_t o = 0; o < P; ++o) {
          if (o != p) c *= u[o];
        }
      }
      G.col(j).segment(kp.begin, kp.size) =
          (-c * g[p]) *
          (diff.segment(kp.begin, kp.size) * inv2.segment(kp.begin, kp.size)).matrix();
    }
  }
  return G;
}

}  // namespace

Eigen::MatrixXd kernel_gradient(const Kernel& k, const Eigen::Ref<const Eigen::VectorXd>& x,
                                const Eigen::Ref<const Eigen::MatrixXd>& Z) {
  if (k.composite()) return composite_gradient(k, x, Z);
  const KernelType type = k.type();
  GPB_EXPECTS(
      type == KernelType::SE || type == KernelType::Matern32 || type == KernelType::Matern52,
      "kernel_gradient: the kernel must be se, matern32 or matern52, got " << k.describe());
  const Eigen::Index d = x.size(), m = Z.cols();
  GPB_EXPECTS(Z.rows() == d,
              "kernel_gradient: x has dimension " << d << " but Z has dimension " << Z.rows());
  GPB_EXPECTS(!k.is_ard() || k.ard_dim() == d,
              "kernel_gradient: dimension " << d << " does not match the kernel " << k.describe());
  const Eigen::VectorXd& inv = k.inverse_lengthscales();
  Eigen::ArrayXd inv2(d);
  for (Eigen::Index a = 0; a < d; ++a) {
    const double il = inv[k.is_ard() ? a : 0];
    inv2[a] = il * il;
  }
  Eigen::MatrixXd G(d, m);
  for (Eigen::Index j = 0; j < m; ++j) {
    const Eigen::ArrayXd diff = x.array() - Z.col(j).array();
    const double rho2 = (diff.square() * inv2).sum();
    double g = 0;
    detail::stationary_shape(type, rho2, 1.0, &g);
    G.col(j) = (-k.variance() * g) * (diff * inv2).matrix();
  }
  return G;
}

}  // namespace gpb
