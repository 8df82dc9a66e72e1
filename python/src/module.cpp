// The extension module gpbandit._gpbandit. The Python package gpbandit (python/gpbandit/)
// re-exports it with a few conveniences written in Python.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cstdint>

#include "bindings.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/context.hpp"
#include "gpbandit/domain.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/kernel.hpp"
#include "gpbandit/ops.hpp"

namespace gpb::python {

template <typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> vector_arg(const py::handle& a,
                                                                     std::size_t n,
                                                                     const char* what) {
  auto arr = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!arr) throw InvalidArgument(std::string(what) + ": expected an array of numbers");
  if (static_cast<std::size_t>(arr.size()) != n) {
    throw InvalidArgument(std::string(what) + ": expected " + std::to_string(n) +
                          " elements, got " + std::to_string(arr.size()));
  }
  return arr;
}
template py::array_t<int, py::array::c_style | py::array::forcecast> vector_arg<int>(
    const py::handle&, std::size_t, const char*);
template py::array_t<double, py::array::c_style | py::array::forcecast> vector_arg<double>(
    const py::handle&, std::size_t, const char*);
template py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>
vector_arg<std::uint8_t>(const py::handle&, std::size_t, const char*);

void set_read_only(py::array& a) {
  a.attr("setflags")(py::arg("write") = false);
}

namespace {

void bind_errors(py::module_& m) {
  auto& error = py::register_exception<Error>(m, "Error");
  py::register_exception<NumericalError>(m, "NumericalError", error.ptr());
  py::register_exception<CudaError>(m, "CudaError", error.ptr());
  py::register_exception<NoCudaBuildError>(m, "NoCudaBuildError", error.ptr());
  // InvalidArgument is also a ValueError and IoError also an OSError, so idiomatic handlers work.
  // The two types live as long as the interpreter (deliberately never released).
  const py::object type = py::module_::import("builtins").attr("type");
  const py::object builtins = py::module_::import("builtins");
  py::dict ns;
  ns["__module__"] = "gpbandit";
  static PyObject* invalid =
      type("InvalidArgument", py::make_tuple(error, builtins.attr("ValueError")), ns)
          .release()
          .ptr();
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

void bind_context(py::module_& m) {
  py::class_<Context>(m, "Context", "Backend (cpu | cuda), memory budget and threads of the engine")
      .def(py::init([](const std::string& backend, std::size_t budget, int threads,
                       const std::string& precision, int device) {
             ContextOptions o;
             o.backend = parse_backend(backend);
             o.memory_budget_bytes = budget;
             o.threads = threads;
             if (precision != "double" && precision != "mixed") {
               throw InvalidArgument("precision: expected double or mixed, got " + precision);
             }
             o.precision = precision == "mixed" ? Precision::Mixed : Precision::Double;
             o.device = device;
             return new Context(o);
           }),
           py::arg("backend") = "auto", py::arg("memory_budget_bytes") = std::size_t{0},
           py::arg("threads") = 0, py::arg("precision") = "double", py::arg("device") = 0)
      .def_property_readonly("backend", [](const Context& c) { return backend_name(c.backend()); })
      .def_property_readonly("threads", &Context::threads)
      .def_property_readonly("memory_budget_bytes", &Context::memory_budget_bytes)
      .def("describe", &Context::describe)
      .def("__repr__", [](const Context& c) { return "<gpbandit.Context " + c.describe() + ">"; })
      .def_static("cuda_compiled", &Context::cuda_compiled)
      .def_static("cuda_device_count", &Context::cuda_device_count);
}

void bind_domain(py::module_& m) {
  py::class_<Domain>(m, "Domain", "A finite set of N candidates in d dimensions (d×N points)")
      .def_static("grid", &Domain::grid, py::arg("lower"), py::arg("upper"), py::arg("counts"))
      .def_static("from_rows", &Domain::from_rows, py::arg("rows"),
                  "Candidates from an N×d array (one row per candidate)")
      .def_static("from_csv", &Domain::from_csv, py::arg("path"))
      .def_static("indices", &Domain::indices, py::arg("n"))
      .def_property_readonly("size", &Domain::size)
      .def_property_readonly("dim", &Domain::dim)
      .def_property_readonly("points", &Domain::points, py::return_value_policy::reference_internal,
                             "d×N read-only view of the points (no copy; column j = candidate j)")
      .def_property_readonly("lower", &Domain::lower, py::return_value_policy::reference_internal)
      .def_property_readonly("upper", &Domain::upper, py::return_value_policy::reference_internal)
      .def("__len__", &Domain::size)
      .def("__repr__", [](const Domain& d) {
        return "<gpbandit.Domain N=" + std::to_string(d.size()) + " d=" + std::to_string(d.dim()) +
               ">";
      });
}

void bind_kernel(py::module_& m) {
  py::class_<Kernel>(m, "Kernel", "A covariance kernel (SE, Matérn, linear, polynomial, matrix)")
      .def_static("se", &Kernel::se, py::arg("lengthscale"), py::arg("variance") = 1.0)
      .def_static(
          "matern",
          [](double nu, double l, double v) {
            if (nu == 0.5) return Kernel::matern(KernelType::Matern12, l, v);
            if (nu == 1.5) return Kernel::matern(KernelType::Matern32, l, v);
            if (nu == 2.5) return Kernel::matern(KernelType::Matern52, l, v);
            throw InvalidArgument("nu: expected 0.5, 1.5 or 2.5, got " + std::to_string(nu));
          },
          py::arg("nu"), py::arg("lengthscale"), py::arg("variance") = 1.0)
      .def_static("linear", &Kernel::linear, py::arg("variance") = 1.0, py::arg("offset") = 0.0)
      .def_static("polynomial", &Kernel::polynomial, py::arg("degree"), py::arg("variance") = 1.0,
                  py::arg("offset") = 1.0)
      .def_static("precomputed", &Kernel::precomputed, py::arg("matrix"))
      .def_property_readonly("type", [](const Kernel& k) { return kernel_type_name(k.type()); })
      .def_property_readonly("lengthscale", &Kernel::lengthscale)
      .def_property_readonly("variance", &Kernel::variance)
      .def_property_readonly("offset", &Kernel::offset)
      .def_property_readonly("degree", &Kernel::degree)
      .def_property_readonly("stationary", &Kernel::stationary)
      .def(
          "__call__",
          [](const Kernel& k, const py::handle& x, const py::handle& y) {
            const auto a =
                py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(x);
            if (!a) throw InvalidArgument("x: expected an array of numbers");
            const auto b = vector_arg<double>(y, static_cast<std::size_t>(a.size()), "y");
            return k(a.data(), b.data(), static_cast<int>(a.size()));
          },
          py::arg("x"), py::arg("y"))
      .def("describe", &Kernel::describe)
      .def("__repr__", [](const Kernel& k) { return "<gpbandit.Kernel " + k.describe() + ">"; });

  m.def("kernel_matrix", &kernel_matrix, py::arg("context"), py::arg("kernel"), py::arg("A"),
        py::arg("B"),
        "K(A, B) for d×n A and d×m B (columns are points); returns n×m. No copy of A or B when "
        "they are Fortran-ordered float64.");
}

}  // namespace

void bind_core(py::module_& m) {
  bind_errors(m);
  bind_context(m);
  bind_domain(m);
  bind_kernel(m);
}

}  // namespace gpb::python

PYBIND11_MODULE(_gpbandit, m) {
  m.doc() = "gpbandit: Gaussian-process bandits over large finite domains (C++ engine)";
  m.attr("__version__") = GPB_VERSION;
  m.attr("HAS_CUDA") = GPB_HAS_CUDA != 0;
  gpb::python::bind_core(m);
  gpb::python::bind_posterior(m);
  gpb::python::bind_policy(m);
  gpb::python::bind_privacy(m);
  gpb::python::bind_experiment(m);
}
