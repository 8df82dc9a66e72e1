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
/// L[t,t] = √max(λ + σ²_{t−1}[a], 10^{-10}·k(x_a, x_a)): the posterior's jitter escalation (λ is
/// its jitter; the floor binds only when λ + σ² < 10^{-10}·k(x_a, x_a)). Below that floor
/// (λ → 0 with a repeated or fully explained candidate) rounding errors of size ε_mach·k(x_a, x_a)
/// would be divided by √(λ + σ²) and overflow μ and σ² to ±inf or NaN.
GPB_HD inline double pivot(double lambda, double s, double prior) {
  const double p = lambda + s;
  const double floor = 1e-10 * prior;
  return std::sqrt(p < floor ? floor : p);
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
