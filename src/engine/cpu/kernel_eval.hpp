/// @file kernel_eval.hpp
/// The one scalar evaluation of k(x, y) shared by every CPU code path (Kernel::operator(),
/// kernel_matrix, kernel_diag, the posterior's incremental and recompute modes), so that each path
/// performs the same floating-point operations in the same order and agrees bit for bit. The
/// formula itself lives in detail/kernel_formula.hpp, which the CUDA kernels evaluate too.
#pragma once

#include "engine/detail/kernel_formula.hpp"
#include "gpbandit/engine/kernel.hpp"

namespace gpb::detail {

/// KernelFormula filled from a Kernel; precomputed matrices and ARD inverse lengthscales are read
/// from the Kernel's host memory (shared, never moved), which must outlive this object.
struct KernelEval : KernelFormula {
  explicit KernelEval(const Kernel& k) {
    type = k.type();
    inv_lengthscale = k.inverse_lengthscales()[0];
    if (k.is_ard()) inv_lengthscales = k.inverse_lengthscales().data();
    variance = k.variance();
    offset = k.offset();
    degree = k.degree();
    if (k.program() != nullptr) program = k.program()->data();
    if (k.matrix() != nullptr) {
      matrix = k.matrix()->data();
      n = static_cast<long>(k.matrix()->rows());
    }
  }
};

}  // namespace gpb::detail
