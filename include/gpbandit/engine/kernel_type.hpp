/// @file kernel_type.hpp
/// The kernel family tag, on its own so that device code can use it without Eigen.
#pragma once

namespace gpb {

/// Kernel families (see Kernel in kernel.hpp for the formulas). Tanimoto and MinMax take packed
/// fingerprints (fingerprint.hpp), not coordinates. Product and Sum are composite kernels:
/// stationary parts, each on a contiguous range of features (Kernel::product, Kernel::sum).
enum class KernelType {
  SE,
  Matern12,
  Matern32,
  Matern52,
  Linear,
  Polynomial,
  Precomputed,
  Tanimoto,
  MinMax,
  Product,
  Sum
};

}  // namespace gpb
