/// @file space_kernel.hpp
/// Per-parameter kernels on a ParameterSpace: a product or sum of stationary parts, each on the
/// encoded features of one parameter or of a group of adjacent parameters (Kernel::product,
/// Kernel::sum on those feature ranges).
#pragma once

#include <Eigen/Core>

#include <string>
#include <vector>

#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/parameter_space.hpp"

namespace gpb {

/// One part of a per-parameter kernel: a stationary kernel on the features of `parameters`.
struct SpaceKernelPart {
  /// Names of the parameters the part sees; they must be adjacent in the space's order (their
  /// encodings are then one contiguous range of features), in any order here.
  std::vector<std::string> parameters;
  KernelType type = KernelType::Matern52;  ///< SE, Matern12, Matern32 or Matern52
  /// One value (isotropic) or one per encoded feature of the part; empty: 1.
  Eigen::VectorXd lengthscales;
  /// The part's variance in a sum (> 0); 0: 1 / (number of parts). Must stay 0 (or 1) in a product.
  double variance = 0.0;
  /// ARD within the part for the hyperparameter fit: 1 yes, 0 no, −1 the default (no for a part
  /// of one-hot categoricals only, whose features are exchangeable labels; yes otherwise).
  int ard = -1;
};

/// The product (combine = KernelType::Product, overall variance `variance`) or the sum
/// (KernelType::Sum) of `parts` on the encodings of `space`; every parameter no part names gets a
/// part of its own, of type `default_type`, appended after the given ones.
/// @throws InvalidArgument naming the field: "kernel.parts" when empty or combine is neither
/// product nor sum, "kernel.parts[i].parameters[j]" for an unknown parameter or one already in
/// another part, "kernel.parts[i].parameters" when empty or not adjacent, and the engine's
/// messages (Kernel::product) for types, lengthscales and variances.
Kernel space_kernel(const ParameterSpace& space, KernelType combine,
                    const std::vector<SpaceKernelPart>& parts,
                    KernelType default_type = KernelType::Matern52, double variance = 1.0);

}  // namespace gpb
