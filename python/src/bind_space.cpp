// Bindings of the parameter space (gpbandit/engine/parameter_space.hpp): Parameter, Constraint,
// ParameterSpace (the engine objects behind gpbandit.params), DomainSpec.parameters and
// Domain.from_space.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/engine/space_kernel.hpp"
#include "gpbandit/engine/space_values.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/optimizer/optimizer.hpp"

namespace gpb::python {
namespace {

KernelType parse_kernel_combine(const std::string& combine) {
  if (combine == "product") return KernelType::Product;
  if (combine == "sum") return KernelType::Sum;
  throw InvalidArgument("kernel.combine must be \"product\" or \"sum\", got \"" + combine + "\"");
}

const char* parameter_type_name(Parameter::Type t) {
  switch (t) {
    case Parameter::Type::NumericDiscrete:
      return "numerical";
    case Parameter::Type::Integer:
      return "integer";
    case Parameter::Type::Categorical:
      return "categorical";
    default:
      return "continuous";
  }
}

/// Per encoded feature, max − min over the levels of its parameter (the others held at level 0).
Eigen::VectorXd feature_widths(const ParameterSpace& s) {
  const auto& ps = s.parameters();
  std::vector<int> lv(ps.size(), 0);
  Eigen::VectorXd lo = Eigen::VectorXd::Constant(s.encoded_dim(), 1e300), hi = -lo;
  Eigen::VectorXd x(s.encoded_dim());
  for (std::size_t p = 0; p < ps.size(); ++p) {
    for (int l = 0; l < ps[p].size(); ++l) {
      lv[p] = l;
      s.encode_levels(lv.data(), x.data());
      lo = lo.cwiseMin(x);
      hi = hi.cwiseMax(x);
    }
    lv[p] = 0;
  }
  return hi - lo;
}

}  // namespace

void bind_space(py::module_& m) {
  py::class_<Parameter>(m, "Parameter", "One parameter of a ParameterSpace (engine object)")
      .def_static("numerical_discrete", &Parameter::numerical_discrete, py::arg("name"),
                  py::arg("values"), "A parameter taking the given numbers")
      .def_static("integer", &Parameter::integer, py::arg("name"), py::arg("lower"),
                  py::arg("upper"), py::arg("step") = 1, "Integers lower, lower + step, … ≤ upper")
      .def_static(
          "categorical",
          [](std::string name, std::vector<std::string> labels) {
            return Parameter::categorical(std::move(name), std::move(labels));
          },
          py::arg("name"), py::arg("labels"), "Labels encoded one-hot")
      .def_static(
          "categorical_descriptors",
          [](std::string name, std::vector<std::string> labels, Eigen::MatrixXd table) {
            return Parameter::categorical(std::move(name), std::move(labels), std::move(table));
          },
          py::arg("name"), py::arg("labels"), py::arg("table"),
          "Labels encoded by the rows of table (one row per label, standardised per column)")
      .def_static("continuous", &Parameter::continuous, py::arg("name"), py::arg("lower"),
                  py::arg("upper"), py::arg("count"),
                  "The box [lower, upper] represented by count grid values")
      .def_readonly("name", &Parameter::name, "The name")
      .def_property_readonly(
          "type", [](const Parameter& p) { return parameter_type_name(p.type); },
          "'numerical', 'integer', 'categorical' or 'continuous'")
      .def_readonly("values", &Parameter::values, "Numeric: the value of each level")
      .def_readonly("labels", &Parameter::labels, "Categorical: the label of each level")
      .def_readonly("descriptors", &Parameter::descriptors, "Categorical: the raw table, or empty")
      .def_readonly("lower", &Parameter::lower, "Smallest value (continuous: the box)")
      .def_readonly("upper", &Parameter::upper, "Largest value (continuous: the box)")
      .def_property_readonly("size", &Parameter::size, "Number of levels")
      .def_property_readonly("encoded_dim", &Parameter::encoded_dim, "Encoded features");

  py::class_<Constraint>(m, "Constraint", "A constraint over parameters (by index)")
      .def_static("linear", &Constraint::linear, py::arg("params"), py::arg("coefs"),
                  py::arg("rhs"), py::arg("tol") = 1e-9, "Σ coefs·values ≤ rhs (+ tol)")
      .def_static("mixture", &Constraint::mixture, py::arg("params"), py::arg("total") = 1.0,
                  py::arg("tol") = 1e-6, "Σ values = total within tol")
      .def_static("exclusion", &Constraint::exclusion, py::arg("params"), py::arg("levels"),
                  "Forbidden when every params[i] has a level in levels[i]")
      .def_static("distinct", &Constraint::distinct, py::arg("params"),
                  "No two of the categorical params share a label");

  py::class_<ParameterSpace, std::shared_ptr<ParameterSpace>>(
      m, "ParameterSpaceCore",
      "The engine's parameter space: feasible combinations of parameters, by index, never "
      "materialised (see gpbandit.params.ParameterSpace)")
      .def(py::init([](std::vector<Parameter> params, std::vector<Constraint> constraints) {
             return std::make_shared<ParameterSpace>(std::move(params), std::move(constraints));
           }),
           py::arg("params"), py::arg("constraints") = std::vector<Constraint>{},
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("size", &ParameterSpace::size, "Feasible combinations")
      .def_property_readonly("raw_size", &ParameterSpace::raw_size, "Unconstrained combinations")
      .def_property_readonly("encoded_dim", &ParameterSpace::encoded_dim, "Encoded dimension d")
      .def_property_readonly("index_bytes", &ParameterSpace::index_bytes,
                             "Bytes of the feasible index")
      .def_property_readonly("parameters", &ParameterSpace::parameters, "The parameters")
      .def("combination", &ParameterSpace::combination, py::arg("k"),
           "Levels of feasible combination k")
      .def("raw_of", &ParameterSpace::raw_of, py::arg("k"), "Raw index of combination k")
      .def("feasible_of", &ParameterSpace::feasible_of, py::arg("raw"),
           "Feasible index of a raw index (-1 if infeasible)")
      .def("raw_of_levels", &ParameterSpace::raw_of_levels, py::arg("levels"),
           "Raw index of the levels")
      .def(
          "feasible_levels",
          [](const ParameterSpace& s, const std::vector<int>& lv) {
            GPB_EXPECTS(lv.size() == s.parameters().size(), "levels: expected one per parameter");
            return s.feasible(lv.data());
          },
          py::arg("levels"), "Whether the levels satisfy every constraint")
      .def("encode", &ParameterSpace::encode, py::arg("k"), "Encoded features of combination k")
      .def(
          "encode_levels",
          [](const ParameterSpace& s, const std::vector<int>& lv) {
            GPB_EXPECTS(lv.size() == s.parameters().size(), "levels: expected one per parameter");
            Eigen::VectorXd x(s.encoded_dim());
            s.encode_levels(lv.data(), x.data());
            return x;
          },
          py::arg("levels"), "Encoded features of the levels")
      .def(
          "encode_range",
          [](const ParameterSpace& s, long long b, long long e) {
            py::gil_scoped_release release;
            return Eigen::MatrixXd(s.encode_range(b, e).transpose());
          },
          py::arg("begin"), py::arg("end"),
          "(end − begin) × d encodings of the feasible combinations [begin, end)")
      .def(
          "decode",
          [](const ParameterSpace& s, const Eigen::VectorXd& x) {
            GPB_EXPECTS(x.size() == s.encoded_dim(),
                        "decode: expected " << s.encoded_dim() << " features");
            return s.decode(x.data());
          },
          py::arg("x"), "Levels whose encoding is nearest to x")
      .def(
          "encode_value",
          [](const ParameterSpace& s, int p, double v) { return encode_value(s, p, v); },
          py::arg("p"), py::arg("value"),
          "Encoded feature of a value of numeric parameter p, also one off its list")
      .def(
          "value_of",
          [](const ParameterSpace& s, int p, double f) { return value_of_feature(s, p, f); },
          py::arg("p"), py::arg("feature"),
          "Value of numeric parameter p whose encoded feature is `feature`")
      .def(
          "feature_offset", [](const ParameterSpace& s, int p) { return feature_offset(s, p); },
          py::arg("p"), "Offset of parameter p's features within an encoding");

  auto spec = py::reinterpret_borrow<py::class_<DomainSpec>>(m.attr("DomainSpec"));
  spec.def_property_readonly(
      "feature_widths",
      [](const DomainSpec& s) {
        GPB_EXPECTS(s.kind == DomainSpec::Kind::Parameters && s.space,
                    "feature_widths: only for a parameters domain");
        return feature_widths(*s.space);
      },
      "Parameters: the extent of each encoded feature over the levels (computed per parameter, "
      "not from the candidates)");
  spec.def_static(
      "parameters",
      [](std::shared_ptr<ParameterSpace> s) { return DomainSpec::parameters(std::move(s)); },
      py::arg("space"), "The feasible combinations of a ParameterSpaceCore (encoded)");
  auto domain = py::reinterpret_borrow<py::class_<Domain>>(m.attr("Domain"));
  domain.def_static(
      "from_space",
      [](std::shared_ptr<ParameterSpace> s) { return Domain::from_space(std::move(s)); },
      py::arg("space"), "The encoded feasible combinations of a ParameterSpaceCore");
  // parts: (names, type, lengthscales (empty: 1), variance (0: default), ard (1, 0, -1)).
  using PartTuple = std::tuple<std::vector<std::string>, std::string, Eigen::VectorXd, double, int>;
  m.def(
      "space_kernel",
      [](const ParameterSpace& s, const std::string& combine, const std::vector<PartTuple>& parts,
         const std::string& type, double variance) {
        std::vector<SpaceKernelPart> sp;
        for (const PartTuple& t : parts) {
          SpaceKernelPart p;
          p.parameters = std::get<0>(t);
          p.type = parse_kernel_type(std::get<1>(t));
          p.lengthscales = std::get<2>(t);
          p.variance = std::get<3>(t);
          p.ard = std::get<4>(t);
          sp.push_back(std::move(p));
        }
        return space_kernel(s, parse_kernel_combine(combine), sp, parse_kernel_type(type),
                            variance);
      },
      py::arg("space"), py::arg("combine"), py::arg("parts"), py::arg("type"), py::arg("variance"),
      "Per-parameter kernel on a ParameterSpaceCore (gpbandit/engine/space_kernel.hpp); parts "
      "are (names, type, lengthscales, variance, ard) tuples");
}

}  // namespace gpb::python
