/// @file kernel_derivative.hpp
/// Engine ops for derivatives of the SE kernel (DESIGN §2, specs/dp-gibo.md §2): the cross blocks
/// a gradient-observing GP needs. CPU implementation in src/engine/cpu/kernel_derivative.cpp, CUDA
/// twin in src/engine/cuda/se_derivative.cu + kernels/se_derivative.cuh; parity test
/// tests/test_cuda_kernel_derivative.cpp.
///
/// For k(x, z) = v·exp(−‖x − z‖²/(2ℓ²)):
///   ∂k/∂x_a       = −(x_a − z_a)/ℓ² · k(x, z)
///   ∂²k/∂x_a∂z_b  = k(x, z)·[δ_ab/ℓ² − (x_a − z_a)(x_b − z_b)/ℓ⁴]
/// and ∂²k/∂x_a∂z_b at x = z is v/ℓ²·δ_ab (the prior covariance of ∇f).
#pragma once

#include <Eigen/Core>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"

namespace gpb {

/// First derivative block: X is d×n, Z is d×m (columns are points, host memory, column-major).
/// Returns the (d·n)×m matrix G with G(a + d·i, j) = ∂k(x_i, z_j)/∂x_{i,a}. For n = 1 this is
/// J(θ, Z) = ∇_θ k(θ, Z) of specs/dp-gibo.md §2 (d×m). O(n·m·d).
/// @throws InvalidArgument if k is not an isotropic SE kernel or X and Z differ in dimension.
Eigen::MatrixXd se_kernel_grad(const Context& ctx, const Kernel& k,
                               const Eigen::Ref<const Eigen::MatrixXd>& X,
                               const Eigen::Ref<const Eigen::MatrixXd>& Z);

/// Mixed second derivative block: returns the (d·n)×(d·m) matrix H with
/// H(a + d·i, b + d·j) = ∂²k(x_i, z_j)/∂x_{i,a}∂z_{j,b} (the covariance of ∂f(x_i)/∂x_a and
/// ∂f(z_j)/∂z_b). O(n·m·d²).
/// @throws InvalidArgument if k is not an isotropic SE kernel or X and Z differ in dimension.
Eigen::MatrixXd se_kernel_grad_grad(const Context& ctx, const Kernel& k,
                                    const Eigen::Ref<const Eigen::MatrixXd>& X,
                                    const Eigen::Ref<const Eigen::MatrixXd>& Z);

/// ∇ₓ k(x, z_j) for every column z_j of the d×m matrix Z (host memory, points as columns): the
/// d×m matrix G with G(a, j) = ∂k(x, z_j)/∂x_a, for an SE, Matérn 3/2 or Matérn 5/2 kernel,
/// isotropic or ARD. With ρ² = Σ_a (x_a − z_a)²/l_a² and k = v·κ(ρ),
///   ∂k/∂x_a = −v·g(ρ)·(x_a − z_a)/l_a²,  g = −κ′(ρ)/ρ:
///   SE e^{−ρ²/2}, Matérn 3/2 3e^{−√3ρ}, Matérn 5/2 (5/3)(1 + √5ρ)e^{−√5ρ}
/// (finite at ρ = 0, where the gradient is 0). Host code like Kernel::operator() (the optimizer
/// calls it on a few points at a time); O(m·d).
/// A composite kernel (Kernel::product / Kernel::sum) of such parts: part p's features get
/// c_p·∂u_p/∂x_a with c_p = v·Π_{o≠p} u_o (product) or v_p (sum).
/// @throws InvalidArgument for another kernel type or part type (Matérn ½ is not differentiable
/// at x = z_j) or when x, Z and an ARD or composite kernel differ in dimension.
Eigen::MatrixXd kernel_gradient(const Kernel& k, const Eigen::Ref<const Eigen::VectorXd>& x,
                                const Eigen::Ref<const Eigen::MatrixXd>& Z);
}  // namespace gpb
