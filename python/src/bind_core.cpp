// Bindings of Context, Domain, Kernel and kernel_matrix.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"

namespace gpb::python {
namespace {

/// The communicator of an mpi4py communicator (anything with py2f(): its Fortran handle), so that
/// the module needs no mpi4py to build or import.
Communicator communicator_arg(const py::object& comm, double timeout_s) {
  if (!py::hasattr(comm, "py2f")) {
    throw InvalidArgument("comm: expected an mpi4py communicator (e.g. MPI.COMM_WORLD), got " +
                          std::string(py::str(py::type::of(comm).attr("__name__"))));
  }
  return Communicator::from_fortran(comm.attr("py2f")().cast<std::int64_t>(), timeout_s);
}

Context* make_context(const std::string& backend, std::size_t budget, int threads,
                      const std::string& precision, int device, const py::object& comm,
                      double comm_timeout) {
  ContextOptions o;
  if (!comm.is_none()) o.communicator = communicator_arg(comm, comm_timeout);
  o.backend = parse_backend(backend);
  o.memory_budget_bytes = budget;
  o.threads = threads;
  if (precision != "double" && precision != "mixed") {
    throw InvalidArgument("precision: expected double or mixed, got " + precision);
  }
  o.precision = precision == "mixed" ? Precision::Mixed : Precision::Double;
  o.device = device;
  return new Context(o);
}

void bind_context(py::module_& m) {
  py::class_<Context>(m, "Context",
                      "Where the engine runs: backend (cpu | cuda | auto), memory budget for the "
                      "posterior buffers, CPU threads, precision and CUDA device")
      .def(
          py::init(&make_context), py::arg("backend") = "auto",
          py::arg("memory_budget_bytes") = std::size_t{0}, py::arg("threads") = 0,
          py::arg("precision") = "double", py::arg("device") = 0, py::arg("comm") = py::none(),
          py::arg("comm_timeout") = Communicator::kDefaultTimeout,
          "backend 'cuda' raises NoCudaBuildError in a CPU build and CudaError (saying what is "
          "missing) without a driver or GPU; threads = 0 uses every core; precision 'mixed' "
          "stores the CUDA posterior in float with double accumulation; memory_budget_bytes = 0 is "
          "automatic: 75% of the available host memory on the CPU (MemAvailable, within the cgroup "
          "limit), 75% of "
          "the free device memory on CUDA. comm: an mpi4py "
          "communicator (under mpirun): every FinitePosterior on this context is sharded over its "
          "ranks (rank q holds candidates [N·q/K, N·(q+1)/K)); every rank must then call the "
          "posterior's methods in the same order with the same arguments, and gets the same "
          "results as one process. A collective waits at most comm_timeout seconds, then raises "
          "naming the rank that stopped responding")
      .def_property_readonly(
          "backend", [](const Context& c) { return backend_name(c.backend()); },
          "The backend in use: 'cpu' or 'cuda' (auto resolved)")
      .def_property_readonly("threads", &Context::threads, "CPU threads of the engine ops")
      .def_property_readonly(
          "rank", [](const Context& c) { return c.communicator().rank(); },
          "This process's rank among the ranks the posteriors are sharded over (0 without comm)")
      .def_property_readonly(
          "ranks", [](const Context& c) { return c.communicator().size(); },
          "Number of ranks the posteriors are sharded over (1 without comm)")
      .def_property_readonly("memory_budget_bytes", &Context::memory_budget_bytes,
                             "Bytes the posterior may hold before switching to recompute mode")
      .def("describe", &Context::describe, "One line: backend, device or threads")
      .def("__repr__", [](const Context& c) { return "<gpbandit.Context " + c.describe() + ">"; })
      .def_static("cuda_compiled", &Context::cuda_compiled,
                  "True when this build has the CUDA backend")
      .def_static("cuda_device_count", &Context::cuda_device_count,
                  "Number of CUDA devices visible (0 without a driver or in a CPU build)");
}

/// Domain from an N×d array (one row per candidate): a C-ordered float64 N×d buffer is the same
/// memory as the d×N column-major matrix the domain keeps, so it is copied once, straight into the
/// domain (no transposed intermediate).
Domain domain_from_rows(const py::handle& rows) {
  const auto arr = real_arg(rows, 0, "rows");
  if (arr.ndim() != 2) {
    throw InvalidArgument("rows: expected a 2-D array (N candidates × d coordinates), got " +
                          std::to_string(arr.ndim()) + "-D" +
                          (arr.ndim() == 1 ? " (use rows[:, None] for d = 1)" : ""));
  }
  const Eigen::Index n = arr.shape(0), d = arr.shape(1);
  Eigen::MatrixXd points = Eigen::Map<const Eigen::MatrixXd>(arr.data(), d, n);
  return Domain::from_points(std::move(points));
}

std::string domain_repr(const Domain& d) {
  return "<gpbandit.Domain N=" + std::to_string(d.size()) + " d=" + std::to_string(d.dim()) + ">";
}

void bind_domain(py::module_& m) {
  py::class_<Domain>(m, "Domain",
                     "A finite set of N candidates in d dimensions, kept as a d×N float64 matrix "
                     "(column j = candidate j) that the domain owns")
      .def_static("grid", &Domain::grid, py::arg("lower"), py::arg("upper"), py::arg("counts"),
                  "Cartesian grid over the box [lower, upper] with counts[i] points on axis i "
                  "(endpoints included; axis 0 varies fastest)")
      .def_static("from_rows", &domain_from_rows, py::arg("rows"),
                  "Candidates from an N×d array (one row per candidate). The points are copied "
                  "once into the domain, which owns them: the engine caches kernel rows computed "
                  "from them, so they must not change behind its back")
      .def_static("from_csv", &Domain::from_csv, py::arg("path"),
                  "Candidates from a CSV file (optional header, one candidate per row); errors "
                  "name file:line")
      .def_static("indices", &Domain::indices, py::arg("n"),
                  "The n index points 0..n-1, for a precomputed kernel")
      .def_property_readonly("size", &Domain::size, "Number of candidates N")
      .def_property_readonly("dim", &Domain::dim, "Dimension d of a candidate")
      .def_property_readonly("points", &Domain::points, py::return_value_policy::reference_internal,
                             "d×N read-only view of the points (no copy; column j = candidate j)")
      .def_property_readonly("lower", &Domain::lower, py::return_value_policy::reference_internal,
                             "Lower corner of the box (a grid's bounds, else the points' bounding "
                             "box); read-only view")
      .def_property_readonly("upper", &Domain::upper, py::return_value_policy::reference_internal,
                             "Upper corner of the box (see lower); read-only view")
      .def("__len__", &Domain::size, "Number of candidates N")
      .def("__repr__", &domain_repr);
}

/// An isotropic kernel for one lengthscale, an ARD kernel (one per axis) for an array of them.
Kernel stationary_kernel(KernelType type, const py::handle& lengthscale, double variance) {
  const auto l = real_arg(lengthscale, 0, "lengthscale");
  if (l.ndim() > 1) throw InvalidArgument("lengthscale: expected a number or a 1-D array");
  if (l.ndim() == 1 && l.size() != 1) {
    return Kernel::ard(type, Eigen::Map<const Eigen::VectorXd>(l.data(), l.size()), variance);
  }
  if (l.size() != 1) throw InvalidArgument("lengthscale: expected at least one value");
  return Kernel::matern(type, l.data()[0], variance);
}

KernelType matern_type(double nu) {
  if (nu == 0.5) return KernelType::Matern12;
  if (nu == 1.5) return KernelType::Matern32;
  if (nu == 2.5) return KernelType::Matern52;
  throw InvalidArgument("nu: expected 0.5, 1.5 or 2.5, got " + std::to_string(nu));
}

/// `lengthscale`: a float for isotropic kernels, the per-axis array for ARD ones.
py::object kernel_lengthscale(const Kernel& k) {
  if (!k.is_ard() && !k.composite()) return py::float_(k.lengthscale());
  const auto& l = k.lengthscales();
  return py::array_t<double>(l.size(), l.data());
}

/// Pickling: (type, lengthscales, variance, offset, degree, matrix or None).
py::tuple kernel_state(const Kernel& k) {
  py::object matrix = py::none();
  if (k.matrix() != nullptr) matrix = py::cast(*k.matrix());
  if (k.composite()) {  // the parts in the matrix's place: (type, begin, size, l, v, ard) each
    py::list parts;
    for (const KernelPart& p : k.parts()) {
      parts.append(py::make_tuple(kernel_type_name(p.type), p.begin, p.size, p.lengthscales,
                                  p.variance, p.ard));
    }
    matrix = parts;
  }
  const auto& l = k.lengthscales();
  return py::make_tuple(kernel_type_name(k.type()), py::array_t<double>(l.size(), l.data()),
                        k.variance(), k.offset(), k.degree(), matrix);
}

Kernel kernel_from_state(const py::tuple& t) {
  GPB_EXPECTS(t.size() == 6, "Kernel state: expected 6 fields, got " << t.size());
  const auto name = t[0].cast<std::string>();
  if (name == "product" || name == "sum") {
    std::vector<KernelPart> parts;
    for (const py::handle& h : t[5].cast<py::list>()) {
      const auto pt = h.cast<py::tuple>();
      KernelPart p;
      p.type = parse_kernel_type(pt[0].cast<std::string>());
      p.begin = pt[1].cast<int>();
      p.size = pt[2].cast<int>();
      p.lengthscales = pt[3].cast<Eigen::VectorXd>();
      p.variance = pt[4].cast<double>();
      p.ard = pt[5].cast<bool>();
      parts.push_back(std::move(p));
    }
    return name == "sum" ? Kernel::sum(std::move(parts))
                         : Kernel::product(std::move(parts), t[2].cast<double>());
  }
  const KernelType type = parse_kernel_type(name);
  const auto v = t[2].cast<double>();
  switch (type) {
    case KernelType::Linear:
      return Kernel::linear(v, t[3].cast<double>());
    case KernelType::Polynomial:
      return Kernel::polynomial(t[4].cast<int>(), v, t[3].cast<double>());
    case KernelType::Precomputed:
      return Kernel::precomputed(t[5].cast<Eigen::MatrixXd>());
    case KernelType::Tanimoto:
      return Kernel::tanimoto(v);
    case KernelType::MinMax:
      return Kernel::minmax(v);
    default:
      return Kernel::ard(type, t[1].cast<Eigen::VectorXd>(), v);
  }
}

/// KernelParts from Python dicts (Kernel.product / Kernel.sum); errors name kernel.parts[i].
std::vector<KernelPart> kernel_parts(const py::list& parts, bool sum) {
  std::vector<KernelPart> out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string where = "kernel.parts[" + std::to_string(i) + "]";
    if (!py::isinstance<py::dict>(parts[i])) throw py::type_error(where + ": expected a dict");
    const auto d = parts[i].cast<py::dict>();
    for (const auto& kv : d) {
      const auto key = kv.first.cast<std::string>();
      if (key != "features" && key != "type" && key != "lengthscale" && key != "variance" &&
          key != "ard") {
        throw InvalidArgument(where + "." + key +
                              ": unknown key (features, type, lengthscale, variance, ard)");
      }
    }
    if (!d.contains("features")) throw InvalidArgument(where + ".features: required");
    const auto f = d["features"].cast<std::vector<int>>();
    if (f.size() != 2) throw InvalidArgument(where + ".features: expected (begin, end)");
    KernelPart p;
    p.begin = f[0];
    p.size = f[1] - f[0];
    if (d.contains("type")) p.type = parse_kernel_type(d["type"].cast<std::string>());
    if (d.contains("lengthscale")) {
      const auto l = py::array_t<double, py::array::forcecast>::ensure(d["lengthscale"]);
      if (!l) throw py::type_error(where + ".lengthscale: expected a number or numbers");
      p.lengthscales = Eigen::Map<const Eigen::VectorXd>(l.data(), l.size());
    }
    p.variance = d.contains("variance") ? d["variance"].cast<double>()
                 : sum                  ? 1.0 / static_cast<double>(parts.size())
                                        : 1.0;
    if (d.contains("ard")) p.ard = d["ard"].cast<bool>();
    out.push_back(std::move(p));
  }
  return out;
}

double kernel_call(const Kernel& k, const py::handle& x, const py::handle& y) {
  const auto a = real_arg(x, 0, "x");
  const auto b = real_arg(y, static_cast<std::size_t>(a.size()), "y");
  return k(a.data(), b.data(), static_cast<int>(a.size()));
}

void bind_kernel(py::module_& m) {
  py::class_<Kernel>(m, "Kernel", "A covariance kernel (SE, Matérn, linear, polynomial, matrix)")
      .def_static(
          "se",
          [](const py::handle& l, double v) { return stationary_kernel(KernelType::SE, l, v); },
          py::arg("lengthscale"), py::arg("variance") = 1.0,
          "Squared exponential v·exp(-s²/2), s = ‖(x-x')/l‖; lengthscale: a number (isotropic) or "
          "one per axis (ARD)")
      .def_static(
          "matern",
          [](double nu, const py::handle& l, double v) {
            return stationary_kernel(matern_type(nu), l, v);
          },
          py::arg("nu"), py::arg("lengthscale"), py::arg("variance") = 1.0,
          "Matérn kernel with nu in {0.5, 1.5, 2.5}; lengthscale: a number or one per axis (ARD)")
      .def_static(
          "product",
          [](const py::list& parts, double variance) {
            return Kernel::product(kernel_parts(parts, false), variance);
          },
          py::arg("parts"), py::arg("variance") = 1.0,
          "v·Π_p u_p: parts are dicts {features: (begin, end), type: se|matern12|matern32|"
          "matern52, lengthscale: a number or one per feature (default 1), ard: bool (default "
          "True)} covering every feature once")
      .def_static(
          "sum", [](const py::list& parts) { return Kernel::sum(kernel_parts(parts, true)); },
          py::arg("parts"),
          "Σ_p v_p·u_p: parts as for product() plus variance (default 1 / number of parts)")
      .def_static("linear", &Kernel::linear, py::arg("variance") = 1.0, py::arg("offset") = 0.0,
                  "Linear kernel v·(x·x' + offset)")
      .def_static("polynomial", &Kernel::polynomial, py::arg("degree"), py::arg("variance") = 1.0,
                  py::arg("offset") = 1.0, "Polynomial kernel v·(x·x' + offset)^degree")
      .def_static(
          "precomputed",
          [](Eigen::MatrixXd matrix, bool check_psd) {
            Kernel k = Kernel::precomputed(std::move(matrix));
            if (check_psd) {
              py::gil_scoped_release release;  // O(N³)
              check_positive_semidefinite(*k.matrix(), "matrix");
            }
            return k;
          },
          py::arg("matrix"), py::arg("check_psd") = true,
          "A given symmetric N×N matrix; points are candidate indices (Domain.indices). "
          "It must be positive semi-definite, as a covariance: checked (one O(N³) Cholesky "
          "factorisation, as the config reader does) unless check_psd=False")
      .def_property_readonly(
          "type", [](const Kernel& k) { return kernel_type_name(k.type()); },
          "The family: se, matern12, matern32, matern52, linear, polynomial or precomputed")
      .def_property_readonly("lengthscale", &kernel_lengthscale,
                             "Lengthscale of SE and Matérn kernels: a float (isotropic; 1 for the "
                             "other kernels) or the per-axis array (ARD)")
      .def_property_readonly(
          "lengthscales",
          [](const Kernel& k) {
            return py::array_t<double>(k.lengthscales().size(), k.lengthscales().data());
          },
          "Lengthscales as an array: d values (ARD) or the single isotropic one")
      .def_property_readonly("ard", &Kernel::is_ard, "True for one lengthscale per axis (ARD)")
      .def_property_readonly(
          "parts",
          [](const Kernel& k) {
            py::list out;
            for (const KernelPart& p : k.parts()) {
              py::dict d;
              d["features"] = py::make_tuple(p.begin, p.begin + p.size);
              d["type"] = kernel_type_name(p.type);
              d["lengthscale"] = py::array_t<double>(p.lengthscales.size(), p.lengthscales.data());
              d["variance"] = p.variance;
              d["ard"] = p.ard;
              out.append(d);
            }
            return out;
          },
          "A product or sum kernel's parts (dicts: features (begin, end), type, lengthscale, "
          "variance, ard); [] otherwise")
      .def_property_readonly("variance", &Kernel::variance, "Variance (scale factor) v")
      .def_property_readonly("offset", &Kernel::offset, "Offset of dot-product kernels")
      .def_property_readonly("degree", &Kernel::degree, "Degree of the polynomial kernel")
      .def_property_readonly("stationary", &Kernel::stationary,
                             "True for SE and Matérn kernels (functions of ‖x - x'‖ only)")
      .def("__call__", &kernel_call, py::arg("x"), py::arg("y"),
           "k(x, y) for two points of the same dimension")
      .def("describe", &Kernel::describe, "One line, e.g. se(l=0.2, v=1)")
      .def(py::pickle(&kernel_state, &kernel_from_state))
      .def("__repr__", [](const Kernel& k) { return "<gpbandit.Kernel " + k.describe() + ">"; });

  m.def("kernel_matrix", &kernel_matrix, py::arg("context"), py::arg("kernel"), py::arg("A"),
        py::arg("B"),
        "K(A, B) for d×n A and d×m B (columns are points); returns n×m. No copy of A or B when "
        "they are Fortran-ordered float64.");
}

}  // namespace

void bind_core(py::module_& m) {
  bind_context(m);
  bind_domain(m);
  bind_kernel(m);
}

}  // namespace gpb::python
