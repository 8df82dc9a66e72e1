/// @file se_derivative_formula.hpp
/// The scalar formulas of the SE kernel's derivative blocks, shared by the CPU ops and the CUDA
/// kernels (kernels/se_derivative.cuh) so both evaluate the same operations in the same order.
#pragma once

#include <cmath>

#include "gpbandit/detail/host_device.hpp"

namespace gpb::detail {

/// v·exp(−½‖x − z‖²/ℓ²) for points with coordinates x[a·sx], z[a·sz].
GPB_HD inline double se_value(const double* x, const double* z, int d, double inv_l2,
                              double variance) {
  double r2 = 0;
  for (int a = 0; a < d; ++a) {
    const double t = x[a] - z[a];
    r2 += t * t;
  }
  return variance * exp(-0.5 * r2 * inv_l2);
}

/// out[a] = ∂k(x, z)/∂x_a = −(x_a − z_a)·inv_l2·k(x, z), a < d (out has stride `so`).
GPB_HD inline void se_grad(const double* x, const double* z, int d, double inv_l2, double variance,
                           double* out, long so) {
  const double kv = se_value(x, z, d, inv_l2, variance);
  for (int a = 0; a < d; ++a) out[a * so] = -(x[a] - z[a]) * inv_l2 * kv;
}

/// out[a + b·ld] = ∂²k/∂x_a∂z_b = k·(δ_ab·inv_l2 − (x_a − z_a)(x_b − z_b)·inv_l2²), a, b < d.
GPB_HD inline void se_grad_grad(const double* x, const double* z, int d, double inv_l2,
                                double variance, double* out, long ld) {
  const double kv = se_value(x, z, d, inv_l2, variance);
  for (int b = 0; b < d; ++b) {
    const double db = x[b] - z[b];
    for (int a = 0; a < d; ++a) {
      const double da = x[a] - z[a];
      out[a + b * ld] = kv * ((a == b ? inv_l2 : 0.0) - da * db * inv_l2 * inv_l2);
    }
  }
}

}  // namespace gpb::detail
