// A KernelPart in one call, for the tests of composite kernels.
#pragma once

#include <Eigen/Core>

#include <vector>

#include "gpbandit/engine/kernel.hpp"

namespace gpb::test {

/// A part of type t on features [begin, begin + size) with lengthscales l (one, or one per
/// feature) and variance v (a sum's parts; a product's must be 1).
inline KernelPart kernel_part(KernelType t, int begin, int size, std::vector<double> l,
                              double v = 1.0) {
  KernelPart p;
  p.type = t;
  p.begin = begin;
  p.size = size;
  p.lengthscales = Eigen::Map<Eigen::VectorXd>(l.data(), static_cast<Eigen::Index>(l.size()));
  p.variance = v;
  return p;
}

}  // namespace gpb::test
