// Shared declarations of the pybind11 bindings (python/src/*.cpp): one registration function per
// part of the public API, called from module.cpp in dependency order.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpbandit/io/log.hpp"

namespace gpb::python {

namespace py = pybind11;

/// Collects the library's warnings raised on this thread while it lives (bind_warnings.cpp), so
/// that they are issued as Python warnings once the C++ call is done and the GIL is held again,
/// attributed to the innermost Python frame outside the gpbandit package (the user's line that
/// called the public function or method, however many of gpbandit's own frames are between).
class WarningCollector {
 public:
  WarningCollector();
  ~WarningCollector();
  WarningCollector(const WarningCollector&) = delete;
  WarningCollector& operator=(const WarningCollector&) = delete;
  /// Records one warning (called by the handler).
  void record(WarningKind kind, const std::string& text);
  /// Issues the recorded warnings (GIL held); stops collecting. @throws py::error_already_set
  /// when a warnings filter turned one into an error.
  void emit();

 private:
  WarningCollector* previous_;
  bool active_ = true;
  std::vector<std::pair<WarningKind, std::string>> recorded_;
};

/// Calls f() with the GIL released, collecting the library's warnings, then issues them.
template <typename F>
auto without_gil(F&& f) {
  WarningCollector warnings;
  if constexpr (std::is_void_v<decltype(f())>) {
    {
      py::gil_scoped_release release;
      f();
    }
    warnings.emit();
  } else {
    auto result = [&] {
      py::gil_scoped_release release;
      return f();
    }();
    warnings.emit();
    return result;
  }
}

/// A 1-D array of exactly `n` elements (any size when n = 0) converted to T (no copy when it
/// already is contiguous T).
/// @throws py::type_error naming `what` when `a` is not numeric; InvalidArgument when the size
/// differs.
template <typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> vector_arg(const py::handle& a,
                                                                     std::size_t n,
                                                                     const char* what);

/// Candidate indices: a Python int or an array of integer dtype with `n` elements (any when
/// n = 0), each in [0, bound), checked in 64 bits before narrowing to int.
/// @throws py::type_error naming `what` for bool, float or any other non-integer input;
/// InvalidArgument naming `what[i]`, its value and the bound when out of range, or on a size
/// mismatch.
std::vector<int> index_arg(const py::handle& a, std::size_t n, std::int64_t bound,
                           const char* what);

/// Real values as float64 (`n` elements, any when n = 0): float or integer dtype; bool, complex,
/// strings and objects raise py::type_error naming `what`. No copy when already float64.
py::array_t<double, py::array::c_style | py::array::forcecast> real_arg(const py::handle& a,
                                                                        std::size_t n,
                                                                        const char* what);

/// Known noise variances: None gives an empty vector (none known), else real_arg(a, n, "noise")
/// as a vector (the engine checks the values).
std::vector<double> noise_arg(const py::handle& a, std::size_t n);

/// A mask of `n` elements from bool or integer dtype (nonzero = set) as uint8.
/// @throws py::type_error naming `what` for other dtypes; InvalidArgument on a size mismatch.
py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> mask_arg(const py::handle& a,
                                                                              std::size_t n,
                                                                              const char* what);

/// Marks a NumPy array read-only (views into library buffers).
void set_read_only(py::array& a);

void bind_core(py::module_& m);         // errors, Context, Domain, Kernel, kernel_matrix
void bind_posterior(py::module_& m);    // FinitePosterior
void bind_policy(py::module_& m);       // Policy, make_policy
void bind_privacy(py::module_& m);      // noise sources, clip, Laplace, CTL, PO curator
void bind_experiment(py::module_& m);   // configs, run_experiment, registry
void bind_optimizer(py::module_& m);    // DomainSpec, HyperFit, OptimizerCore
void bind_warnings(py::module_& m);     // PerformanceWarning, ModelWarning, the warning handler
void bind_fingerprint(py::module_& m);  // fingerprint domains, kernels, features, caches
void bind_space(py::module_& m);        // parameter spaces, DomainSpec.parameters

}  // namespace gpb::python
