// The extension module gpbandit._gpbandit: the exception types, then every part of the API in
// dependency order. The Python package gpbandit (python/gpbandit/) re-exports it with the parts
// written in Python (make_policy, run, one-line argument errors).
#include "bindings.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/comm/mpi_runtime.hpp"
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
  ns["__doc__"] =
      "A rank of a sharded job stopped taking part (died, hung, or fell more than the timeout "
      "behind): raised by every live rank from the collective that timed out. failed_rank: the "
      "rank that stopped responding (-1 when every rank answered); reporter: whether this rank is "
      "the one that should print it (the lowest live rank). The communicator is unusable "
      "afterwards; at exit the module ends the whole job (MPI_Abort) instead of letting "
      "MPI_Finalize wait for the lost rank.";
  static PyObject* rank_failure = type("RankFailure", py::make_tuple(error), ns).release().ptr();
  py::setattr(m, "InvalidArgument", invalid);
  py::setattr(m, "IoError", io);
  py::setattr(m, "RankFailure", rank_failure);
  // Registered last, so tried before the translator of the base class Error.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InvalidArgument& e) {
      PyErr_SetString(invalid, e.what());
    } catch (const IoError& e) {
      PyErr_SetString(io, e.what());
    } catch (const RankFailure& e) {
      py::object exc = py::reinterpret_borrow<py::object>(rank_failure)(e.what());
      exc.attr("failed_rank") = e.failed_rank();
      exc.attr("reporter") = e.reporter();
      PyErr_SetObject(rank_failure, exc.ptr());
    }
  });
  m.def(
      "_abort_if_rank_failed", [] { mpi::abort_if_rank_failed(1); },
      "Ends the whole MPI job (MPI_Abort, exit code 1) if a RankFailure was raised in this "
      "process; registered with atexit by the package, before mpi4py's MPI_Finalize would wait "
      "for the lost rank for ever");
}

}  // namespace

}  // namespace gpb::python

PYBIND11_MODULE(_gpbandit, m) {
  m.doc() = "gpbandit: Gaussian-process bandits over large finite domains (C++ engine)";
  m.attr("__version__") = GPB_VERSION;
  m.attr("HAS_CUDA") = GPB_HAS_CUDA != 0;
  gpb::python::bind_errors(m);
  gpb::python::bind_warnings(m);
  gpb::python::bind_core(m);
  gpb::python::bind_posterior(m);
  gpb::python::bind_policy(m);
  gpb::python::bind_privacy(m);
  gpb::python::bind_experiment(m);
  gpb::python::bind_optimizer(m);
  gpb::python::bind_fingerprint(m);
  gpb::python::bind_space(m);
}
