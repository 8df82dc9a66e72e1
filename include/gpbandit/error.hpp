/// @file error.hpp
/// Typed exceptions and the GPB_EXPECTS precondition macro.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace gpb {

/// Base class of every exception gpbandit throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A caller-supplied value is out of range, of the wrong shape, or inconsistent.
/// The message names the offending field (config path such as `policies[1].q`, or `file:line`).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// A numerical procedure failed (e.g. Cholesky not positive definite after every jitter tried).
class NumericalError : public Error {
 public:
  using Error::Error;
};

/// A CUDA, cuBLAS or cuSOLVER call failed (a cuSOLVER devInfo < 0 included: an invalid
/// parameter); the message carries the call text and status.
class CudaError : public Error {
 public:
  using Error::Error;
};

/// Backend::Cuda was requested from a build compiled without CUDA.
class NoCudaBuildError : public Error {
 public:
  using Error::Error;
};

/// A file could not be read or written (missing, unwritable, disk full).
class IoError : public Error {
 public:
  using Error::Error;
};

namespace detail {
[[noreturn]] inline void throw_invalid(const char* cond, const std::string& msg) {
  std::ostringstream os;
  os << msg;
  if (msg.empty()) os << "precondition failed: " << cond;
  throw InvalidArgument(os.str());
}
}  // namespace detail

}  // namespace gpb

/// Checks a precondition; throws gpb::InvalidArgument with the streamed message when it fails.
/// Usage: `GPB_EXPECTS(n > 0, "N must be positive, got " << n);`
#define GPB_EXPECTS(cond, msg)                                    \
  do {                                                            \
    if (!(cond)) {                                                \
      std::ostringstream gpb_expects_os_;                         \
      gpb_expects_os_ << msg;                                     \
      ::gpb::detail::throw_invalid(#cond, gpb_expects_os_.str()); \
    }                                                             \
  } while (0)
