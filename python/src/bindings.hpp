// Shared declarations of the pybind11 bindings (python/src/*.cpp): one registration function per
// part of the public API, called from module.cpp in dependency order.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <string>

namespace gpb::python {

namespace py = pybind11;

/// A 1-D array of exactly `n` elements converted to T (no copy when it already is contiguous T).
/// @throws InvalidArgument naming `what` when the size differs.
template <typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> vector_arg(const py::handle& a,
                                                                     std::size_t n,
                                                                     const char* what);

/// Marks a NumPy array read-only (views into library buffers).
void set_read_only(py::array& a);

void bind_core(py::module_& m);        // errors, Context, Domain, Kernel, kernel_matrix
void bind_posterior(py::module_& m);   // FinitePosterior
void bind_policy(py::module_& m);      // Policy, make_policy
void bind_privacy(py::module_& m);     // noise sources, clip, Laplace, CTL, PO curator
void bind_experiment(py::module_& m);  // configs, run_experiment, registry

}  // namespace gpb::python
