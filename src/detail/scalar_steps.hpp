/// @file scalar_steps.hpp
/// Per-element arithmetic shared by the CPU posterior (cpu/posterior_rows.hpp), the CPU UCB argmax
/// (cpu/ops_cpu.hpp) and their CUDA twins (kernels/*.cuh): one definition, host and device.
#pragma once

#include <cmath>

#include "gpbandit/detail/host_device.hpp"

namespace gpb::detail {

/// One step of the row recurrence v_t[j] = (k(x_{a_t}, x_j) − Σ_{p<t} L[t,p]·v_p[j]) / L[t,t].
GPB_HD inline double row_step(double acc, double l, double v) {
  return acc - l * v;
}
/// σ² ← max(σ² − v², 0) (a NaN passes through, as std::max(x, 0.0) would).
GPB_HD inline double var_step(double s, double v) {
  const double x = s - v * v;
  return x < 0.0 ? 0.0 : x;
}
/// μ ← μ + α·v.
GPB_HD inline double mean_step(double m, double alpha, double v) {
  return m + alpha * v;
}
/// The fused UCB score μ + width·√max(σ², 0); one definition for every code path.
GPB_HD inline double ucb_score(double mean, double variance, double width) {
  return mean + width * std::sqrt(variance < 0.0 ? 0.0 : variance);
}

}  // namespace gpb::detail
