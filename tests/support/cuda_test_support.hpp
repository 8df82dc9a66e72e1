// Helpers of the CUDA parity tests (tests/test_cuda_*.cpp): skip without a device, contexts of
// both backends, relative errors.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <memory>

#include "gpbandit/engine/context.hpp"

namespace gpb::test {

/// Skips the current test unless a CUDA device can be used.
#define GPB_REQUIRE_CUDA_DEVICE()                                                     \
  do {                                                                                \
    if (!::gpb::Context::cuda_compiled() || ::gpb::Context::cuda_device_count() == 0) \
      GTEST_SKIP() << "no CUDA device (cuda_device_count() == 0)";                    \
  } while (0)

inline std::unique_ptr<Context> cuda_context(Precision precision = Precision::Double,
                                             std::size_t budget = std::size_t{4} << 30) {
  ContextOptions o;
  o.backend = Backend::Cuda;
  o.precision = precision;
  o.memory_budget_bytes = budget;
  return std::make_unique<Context>(o);
}

inline std::unique_ptr<Context> cpu_context(std::size_t budget = std::size_t{4} << 30) {
  ContextOptions o;
  o.backend = Backend::Cpu;
  o.memory_budget_bytes = budget;
  return std::make_unique<Context>(o);
}

/// max |a − b| / max(max |b|, tiny): the relative error of a against the reference b.
inline double rel_err(const Eigen::Ref<const Eigen::MatrixXd>& a,
                      const Eigen::Ref<const Eigen::MatrixXd>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  if (a.size() == 0) return 0.0;
  if (!a.allFinite()) return INFINITY;
  const double scale = std::max(b.cwiseAbs().maxCoeff(), 1e-300);
  return (a - b).cwiseAbs().maxCoeff() / scale;
}

}  // namespace gpb::test
