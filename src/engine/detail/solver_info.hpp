/// @file solver_info.hpp
/// How the CUDA backend reads a cuSOLVER devInfo. Plain C++ (no CUDA header), so the CPU tests
/// check it (tests/test_gpu_host_logic.cpp).
#pragma once

#include <string>

#include "gpbandit/error.hpp"

namespace gpb::detail {

/// Classifies cuSOLVER's devInfo after `call` (e.g. "cusolverDnDsyevd"): info < 0 means that
/// parameter −info was invalid — a bug in the call, not a property of the data — and throws
/// CudaError naming the call and the parameter; info ≥ 0 is returned (0: success; > 0: the
/// routine's own numerical failure, e.g. the order of a non-positive leading minor, which the
/// caller reports as it must).
/// @throws CudaError when info < 0.
inline int check_solver_info(int info, const char* call) {
  if (info < 0) {
    throw CudaError(std::string(call) + ": parameter " + std::to_string(-info) +
                    " is invalid (devInfo = " + std::to_string(info) + ")");
  }
  return info;
}

}  // namespace gpb::detail
