// The extension module gpbandit._gpbandit: the exception types, then every part of the API in
// dependency order. The Python package gpbandit (python/gpbandit/) re-exports it with the parts
// written in Python (make_policy, run, one-line argument errors).
#include "bindings.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"

namespace gpb::python {
namespace {

void bind_errors(py::module_& m) {
  auto& error = py::register_exception<Error>(m, "Error");
  error.attr("__doc__") = "Base class of every gpbandit error";
  py::register_exception<NumericalError>(m, "NumericalError", error.ptr()).attr("__doc__") =
      "A numerical failure the engine reports instead of a silent NaN (e.g. a Cholesky factor "
      "that stays indefinite at the largest jitter)";
  py::register_exception<CudaError>(m, "CudaError", error.ptr()).attr("__doc__") =
      "A CUDA runtime, cuBLAS or cuSOLVER failure, or no usable device";
  py::register_exception<NoCudaBuildError>(m, "NoCudaBuildError", error.ptr()).attr("__doc__") =
      "The CUDA backend was requested from a build without CUDA";
  // InvalidArgument is also a ValueError and IoError also an OSError, so idiomatic handlers work.
  // The two types live as long as the interpreter (deliberately never released).
  const py::object type = py::module_::import("builtins").attr("type");
  const py::object builtins = py::module_::import("builtins");
  py::dict ns;
  ns["__module__"] = "gpbandit";
  ns["__doc__"] = "A bad argument or input value; the message names the field (also a ValueError)";
  static PyObject* invalid =
      type("InvalidArgument", py::make_tuple(error, builtins.attr("ValueError")), ns)
          .release()
          .ptr();
  ns["__doc__"] = "A file that cannot be read or written (also an OSError)";
  static PyObject* io =
      type("IoError", py::make_tuple(error, builtins.attr("OSError")), ns).release().ptr();
  py::setattr(m, "InvalidArgument", invalid);
  py::setattr(m, "IoError", io);
  // Registered last, so tried before the translator of the base class Error.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InvalidArgument& e) {
      PyErr_SetString(invalid, e.what());
    } catch (const IoError& e) {
      PyErr_SetString(io, e.what());
    }
  });
}

}  // namespace

}  // namespace gpb::python

PYBIND11_MODULE(_gpbandit, m) {
  m.doc() = "gpbandit: Gaussian-process bandits over large finite domains (C++ engine)";
  m.attr("__version__") = GPB_VERSION;
  m.attr("HAS_CUDA") = GPB_HAS_CUDA != 0;
  gpb::python::bind_errors(m);
  gpb::python::bind_core(m);
  gpb::python::bind_posterior(m);
  gpb::python::bind_policy(m);
  gpb::python::bind_privacy(m);
  gpb::python::bind_experiment(m);
  gpb::python::bind_optimizer(m);
  gpb::python::bind_fingerprint(m);
}
