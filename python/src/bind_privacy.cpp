// Bindings of the privacy module: noise sources (secure by default), clipping, Laplace samplers,
// the CTL mechanism (vectorised over NumPy arrays) and the PO-GP-UCB curator.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>

#include "bindings.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/privacy/laplace.hpp"
#include "gpbandit/privacy/noise_source.hpp"
#include "gpbandit/privacy/po_curator.hpp"

namespace gpb::python {
namespace {

using namespace gpb::privacy;

LaplaceSampler parse_sampler(const std::string& s) {
  if (s == "snapping") return LaplaceSampler::Snapping;
  if (s == "inverse_cdf") return LaplaceSampler::InverseCdf;
  throw InvalidArgument("sampler: expected snapping or inverse_cdf, got " + s);
}

OmegaForm parse_omega(const std::string& s) {
  if (s == "sqrt_r_log") return OmegaForm::SqrtRLog;
  if (s == "literal") return OmegaForm::Literal;
  throw InvalidArgument("omega_form: expected sqrt_r_log or literal, got " + s);
}

PoCuratorOptions curator_options(double epsilon, double delta, int r, const std::string& form) {
  PoCuratorOptions o;
  o.epsilon = epsilon;
  o.delta = delta;
  o.r = r;
  o.omega_form = parse_omega(form);
  return o;
}

void bind_sources(py::module_& m) {
  py::class_<NoiseSource>(m, "NoiseSource", "Uniform random bits for privacy mechanisms")
      .def("next_u64", &NoiseSource::next_u64, "The next 64 uniform random bits")
      .def("uniform", &NoiseSource::uniform, "A uniform double in the open interval (0, 1)")
      .def_property_readonly("secure", &NoiseSource::secure,
                             "True for the cryptographically secure source")
      .def("describe", &NoiseSource::describe, "One line naming the generator")
      .def("__repr__",
           [](const NoiseSource& s) { return "<gpbandit.NoiseSource " + s.describe() + ">"; });
  m.def("secure_source", &make_secure_source,
        "The cryptographically secure source (getrandom + ChaCha20); the default for privacy");
  m.def("seeded_source", &make_seeded_source, py::arg("seed"), py::arg("run") = 0,
        py::arg("stream") = 0, "Reproducible Philox source for simulation only (NOT private)");
}

void bind_laplace(py::module_& m) {
  m.def("clip", &clip, py::arg("y"), py::arg("bound"), "y clamped to [-bound, bound]");
  m.def("laplace_inverse_cdf", &laplace_inverse_cdf, py::arg("scale"), py::arg("source"),
        "One Laplace(0, scale) draw by the inverse CDF (the textbook sampler: its low-order bits "
        "leak the input; reproduction runs only)");
  m.def("laplace_snapping", &laplace_snapping, py::arg("x"), py::arg("scale"), py::arg("bound"),
        py::arg("source"),
        "Mironov's snapping mechanism: x plus Laplace(scale) noise, rounded and clamped to "
        "[-bound, bound] so the floating-point output does not leak the input's low bits");
  py::class_<CtlMechanism>(m, "CtlMechanism",
                           "Convert-to-Laplace: clip(y, B+R) + Laplace(2(B+R)/ε)")
      .def(py::init([](double B, double R, double epsilon, bool clip, const std::string& sampler) {
             return new CtlMechanism(B, R, epsilon, clip, parse_sampler(sampler));
           }),
           py::arg("B"), py::arg("R"), py::arg("epsilon"), py::arg("clip") = true,
           py::arg("sampler") = "snapping",
           "B bounds |f|, R the noise; sampler 'snapping' (proven for floating point) or "
           "'inverse_cdf' (the paper's sampler, no floating-point guarantee)")
      .def_property_readonly("scale", &CtlMechanism::scale, "Laplace scale 2(B+R)/epsilon")
      .def_property_readonly("epsilon", &CtlMechanism::epsilon, "The nominal epsilon")
      .def_property_readonly("proven_epsilon", &CtlMechanism::proven_epsilon,
                             "The epsilon proven for this floating-point implementation "
                             "(inf for inverse_cdf)")
      .def_property_readonly("output_bound", &CtlMechanism::output_bound,
                             "Bound on |privatize(y)| (inf for inverse_cdf)")
      .def("guarantee", &CtlMechanism::guarantee, "The guarantee of this configuration, in words")
      .def(
          "privatize",
          [](const CtlMechanism& c, const py::handle& y, NoiseSource& source) -> py::object {
            const auto in =
                py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(y);
            if (!in) throw InvalidArgument("y: expected a number or an array of numbers");
            if (in.ndim() == 0) return py::float_(c.privatize(*in.data(), source));
            py::array_t<double> out(std::vector<py::ssize_t>(in.shape(), in.shape() + in.ndim()));
            double* o = out.mutable_data();
            for (py::ssize_t i = 0; i < in.size(); ++i) o[i] = c.privatize(in.data()[i], source);
            return std::move(out);
          },
          py::arg("y"), py::arg("source"),
          "Privatises a number or every element of an array (fresh noise per element)")
      .def("__repr__", [](const CtlMechanism& c) {
        return "<gpbandit.CtlMechanism epsilon=" +
               py::repr(py::float_(c.epsilon())).cast<std::string>() +
               " scale=" + py::repr(py::float_(c.scale())).cast<std::string>() + ">";
      });
}

void bind_curator(py::module_& m) {
  py::class_<PoRelease>(m, "PoRelease", "The PO-GP-UCB curator's output")
      .def_readonly("z", &PoRelease::z, "n×r released rows")
      .def_readonly("m", &PoRelease::m, "d×r Gaussian matrix used")
      .def_readonly("r", &PoRelease::r, "Projection dimension r")
      .def_readonly("omega", &PoRelease::omega, "ω(r, ε, δ) of Algorithm 1")
      .def_readonly("sigma_min", &PoRelease::sigma_min,
                    "Smallest singular value of the centred data")
      .def_property_readonly(
          "branch", [](const PoRelease& p) { return to_string(p.branch); },
          "'IF' (plain projection) or 'ELSE' (the data were perturbed first)")
      .def("__repr__", [](const PoRelease& p) {
        return "<gpbandit.PoRelease r=" + std::to_string(p.r) + " branch=" + to_string(p.branch) +
               " z=" + std::to_string(p.z.rows()) + "x" + std::to_string(p.z.cols()) + ">";
      });
  m.def(
      "po_omega",
      [](int r, double e, double d, const std::string& f) {
        return po_omega(r, e, d, parse_omega(f));
      },
      py::arg("r"), py::arg("epsilon"), py::arg("delta"), py::arg("omega_form") = "sqrt_r_log",
      "PO-GP-UCB's ω(r, ε, δ) (Algorithm 1, line 5)");
  m.def(
      "po_max_r",
      [](double s, double e, double d, int limit, const std::string& f) {
        return po_max_r(s, e, d, limit, parse_omega(f));
      },
      py::arg("sigma_min"), py::arg("epsilon"), py::arg("delta"), py::arg("r_limit"),
      py::arg("omega_form") = "sqrt_r_log",
      "The largest r in [1, r_limit] with ω(r) <= sigma_min (1 when none passes)");
  m.def(
      "po_curate",
      [](const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X, double epsilon,
         double delta, NoiseSource& source, int r, const std::string& form) {
        return po_curate(ctx, X, curator_options(epsilon, delta, r, form), source);
      },
      py::arg("context"), py::arg("X"), py::arg("epsilon"), py::arg("delta"), py::arg("source"),
      py::arg("r") = 0, py::arg("omega_form") = "sqrt_r_log",
      "Algorithm 1 of PO-GP-UCB on the n×d rows X. NOTE: not differentially private when n > d "
      "(see the C++ docs of po_curator.hpp)");
  m.def(
      "po_curate_seeded",
      [](const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X, double epsilon,
         double delta, int r, const std::string& form, std::uint64_t seed, std::uint32_t run,
         std::uint32_t stream) {
        return po_curate_seeded(ctx, X, curator_options(epsilon, delta, r, form), seed, run,
                                stream);
      },
      py::arg("context"), py::arg("X"), py::arg("epsilon"), py::arg("delta"), py::arg("r") = 0,
      py::arg("omega_form") = "sqrt_r_log", py::arg("seed") = 0, py::arg("run") = 0,
      py::arg("stream") = 0,
      "po_curate with the Gaussian matrix drawn from a seeded Philox stream (reproducible "
      "simulation; NOT private)");
}

}  // namespace

void bind_privacy(py::module_& m) {
  bind_sources(m);
  bind_laplace(m);
  bind_curator(m);
}

}  // namespace gpb::python
