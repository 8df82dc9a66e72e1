// Bindings of the ask/tell Optimizer (gpbandit/optimizer.hpp): DomainSpec, HyperFit and the core
// object OptimizerCore, which gpbandit.Optimizer (python/gpbandit/optimizer.py) wraps with the
// NumPy-friendly conversions, pickling and minimize(). Long calls release the GIL.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/optimizer/optimizer.hpp"

namespace gpb::python {
namespace {

const char* domain_kind_name(DomainSpec::Kind k) {
  switch (k) {
    case DomainSpec::Kind::Grid:
      return "grid";
    case DomainSpec::Kind::Sobol:
      return "sobol";
    case DomainSpec::Kind::Box:
      return "box";
    case DomainSpec::Kind::Parameters:
      return "parameters";
    case DomainSpec::Kind::Fingerprints:
      return "fingerprints";
    default:
      return "points";
  }
}

std::string spec_repr(const DomainSpec& s) {
  std::string out = "<gpbandit.DomainSpec " + std::string(domain_kind_name(s.kind)) +
                    " d=" + std::to_string(s.dim());
  if (s.kind == DomainSpec::Kind::Sobol || s.kind == DomainSpec::Kind::Box) {
    out += " count=" + std::to_string(s.count);
  }
  if (s.kind == DomainSpec::Kind::Points) out += " N=" + std::to_string(s.points.rows());
  if (s.kind == DomainSpec::Kind::Fingerprints) {
    out += " N=" + std::to_string(s.fingerprints->size()) + " " +
           fingerprint_kind_name(s.fingerprints->kind());
  }
  if (!s.source.empty()) out += " source=" + s.source;
  return out + ">";
}

/// N×d rows from any real array (a 1-D array is N points of dimension 1).
Eigen::MatrixXd rows_arg(const py::handle& a, const char* what) {
  const auto arr = real_arg(a, 0, what);
  if (arr.ndim() == 1) return Eigen::Map<const Eigen::VectorXd>(arr.data(), arr.size());
  if (arr.ndim() != 2) {
    throw InvalidArgument(std::string(what) + ": expected a 2-D array (one point per row), got " +
                          std::to_string(arr.ndim()) + "-D");
  }
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajor>(arr.data(), arr.shape(0), arr.shape(1));
}

void bind_domain_spec(py::module_& m) {
  py::class_<DomainSpec>(m, "DomainSpec",
                         "How an Optimizer's candidate set is given (saved with its state, so "
                         "loading rebuilds the very same candidates)")
      .def_static("grid", &DomainSpec::grid, py::arg("lower"), py::arg("upper"), py::arg("counts"),
                  "A grid over [lower, upper] with counts[i] points on axis i")
      .def_static("sobol", &DomainSpec::sobol, py::arg("lower"), py::arg("upper"), py::arg("count"),
                  py::arg("seed") = 0,
                  "count points of a scrambled Sobol sequence in the box [lower, upper]")
      .def_static(
          "box",
          [](std::vector<double> lower, std::vector<double> upper, int count, std::uint64_t seed,
             std::vector<int> integer, std::vector<std::pair<int, int>> onehot,
             std::vector<int> log_integer) {
            DomainSpec s = DomainSpec::box(std::move(lower), std::move(upper), count, seed);
            s.integer_axes = std::move(integer);
            s.log_integer_axes = std::move(log_integer);
            s.onehot_groups = std::move(onehot);
            s.validate();
            return s;
          },
          py::arg("lower"), py::arg("upper"), py::arg("count") = 4096, py::arg("seed") = 0,
          py::arg("integer") = std::vector<int>{},
          py::arg("onehot") = std::vector<std::pair<int, int>>{},
          py::arg("log_integer") = std::vector<int>{},
          "The continuous box [lower, upper] (suggestions may be any point of it; count Sobol "
          "points are the global step), with integer axes, one-hot groups (first, k) and "
          "log-integer axes (ln v for an integer v)")
      .def_static(
          "from_rows",
          [](const py::handle& rows) { return DomainSpec::from_rows(rows_arg(rows, "rows")); },
          py::arg("rows"), "Explicit candidates, one per row of an N×d array (copied)")
      .def_static(
          "from_fingerprints",
          [](const Domain& d) {
            GPB_EXPECTS(d.is_fingerprint(),
                        "DomainSpec.from_fingerprints: expected a fingerprint Domain "
                        "(Domain.from_fingerprints), got one of coordinates");
            return DomainSpec::from_fingerprints(
                std::make_shared<const Fingerprints>(d.fingerprints_of(0, d.size())));
          },
          py::arg("domain"),
          "The candidates of a fingerprint Domain (Domain.from_fingerprints): the Optimizer "
          "takes the tanimoto (bits) or minmax (counts) kernel and candidates by index")
      .def_static("from_file", &DomainSpec::from_file, py::arg("path"),
                  "Candidates from a .csv (optional header) or .npy file, one per row")
      .def_property_readonly(
          "kind", [](const DomainSpec& s) { return domain_kind_name(s.kind); },
          "'grid', 'sobol', 'box', 'points', 'parameters' or 'fingerprints'")
      .def_property_readonly("continuous", &DomainSpec::continuous,
                             "Whether suggestions may leave the candidate set (a box)")
      .def_readonly("integer_axes", &DomainSpec::integer_axes, "Box: the integer axes")
      .def_readonly("log_integer_axes", &DomainSpec::log_integer_axes,
                    "Box: the log-integer axes (ln v, v an integer)")
      .def_readonly("onehot_groups", &DomainSpec::onehot_groups,
                    "Box: the one-hot groups (first axis, k)")
      .def_property_readonly("dim", &DomainSpec::dim, "Dimension d of the candidates")
      .def_readonly("lower", &DomainSpec::lower, "Box lower corner (grid, sobol)")
      .def_readonly("upper", &DomainSpec::upper, "Box upper corner (grid, sobol)")
      .def_readonly("counts", &DomainSpec::counts, "Grid points per axis")
      .def_readonly("count", &DomainSpec::count, "Sobol, box: number of candidates")
      .def_readonly("seed", &DomainSpec::seed, "Sobol, box: scrambling seed")
      .def_readonly("points", &DomainSpec::points, "Points: the N×d candidates (a copy)")
      .def_readonly("source", &DomainSpec::source, "Points: the file they came from, or ''")
      .def(
          "build", [](const DomainSpec& s) { return s.build(); },
          "The candidate set as a Domain (d×N points)")
      .def("__repr__", &spec_repr);
}

void bind_hyperfit(py::module_& m) {
  py::class_<HyperFit>(m, "HyperFit", "The result of a marginal-likelihood hyperparameter fit")
      .def_property_readonly(
          "lengthscales", [](const HyperFit& h) { return h.theta.lengthscales; },
          "Fitted lengthscales (d values with ARD, else one), in input units")
      .def_property_readonly(
          "signal_variance", [](const HyperFit& h) { return h.theta.signal_variance; },
          "Fitted kernel variance (in the model's units of y)")
      .def_property_readonly(
          "noise_variance", [](const HyperFit& h) { return h.theta.noise_variance; },
          "Fitted noise variance (in the model's units of y)")
      .def_readonly("log_likelihood", &HyperFit::log_likelihood,
                    "Log marginal likelihood at the fit (rows used, standardised inputs)")
      .def_readonly("rows_used", &HyperFit::rows_used, "Observations the fit used")
      .def_readonly("starts_converged", &HyperFit::starts_converged,
                    "L-BFGS-B starts that ended without an optimiser error")
      .def_readonly("evaluations", &HyperFit::evaluations, "Likelihood evaluations, all starts")
      .def("__repr__", [](const HyperFit& h) {
        std::string l;
        for (Eigen::Index i = 0; i < h.theta.lengthscales.size(); ++i) {
          l += (i ? ", " : "") + py::repr(py::float_(h.theta.lengthscales(i))).cast<std::string>();
        }
        return "<gpbandit.HyperFit lengthscales=[" + l + "] signal_variance=" +
               py::repr(py::float_(h.theta.signal_variance)).cast<std::string>() +
               " noise_variance=" +
               py::repr(py::float_(h.theta.noise_variance)).cast<std::string>() + ">";
      });
}

/// v as a T, or a TypeError naming the field and the type it got (pybind's own cast error is a
/// RuntimeError that names neither).
template <class T>
T typed(const py::handle& v, const std::string& field) {
  try {
    return v.cast<T>();
  } catch (const py::cast_error&) {
    const char* want = std::is_same<T, bool>::value ? "a bool"
                       : std::is_integral<T>::value ? "an int"
                                                    : "a number";
    throw py::type_error(field + ": expected " + want + ", got " +
                         py::str(py::type::handle_of(v).attr("__name__")).cast<std::string>());
  }
}

BetaSchedule beta_from_dict(const py::dict& d) {
  BetaSchedule b;
  for (auto item : d) {
    const auto key = item.first.cast<std::string>();
    if (key == "type") {
      b.kind = BetaSchedule::parse_kind(item.second.cast<std::string>());
    } else if (key == "delta") {
      b.delta = typed<double>(item.second, "beta." + key);
    } else if (key == "value") {
      b.value = typed<double>(item.second, "beta." + key);
    } else if (key == "B") {
      b.rkhs_bound = typed<double>(item.second, "beta." + key);
    } else if (key == "R") {
      b.subgaussian = typed<double>(item.second, "beta." + key);
    } else if (key == "scale") {
      b.scale = typed<double>(item.second, "beta." + key);
    } else {
      throw InvalidArgument("beta." + key + ": unknown key (type, delta, value, B, R, scale)");
    }
  }
  b.validate();
  return b;
}

/// An acquisition rule from the Python keywords (the constructor's and set_acquisition's).
AcquisitionOptions acquisition_options(const std::string& acquisition, const py::dict& beta,
                                       double xi, int exact_max, int features) {
  AcquisitionOptions a;
  a.kind = parse_acquisition_kind(acquisition);
  a.beta = beta_from_dict(beta);
  a.xi = xi;
  a.exact_max = exact_max;
  a.features = features;
  return a;
}

void set_fit(FitOptions& f, const py::dict& fit) {
  for (auto item : fit) {
    const auto key = item.first.cast<std::string>();
    const py::handle v = item.second;
    if (key == "every") {
      f.every = typed<int>(v, "fit." + key);
    } else if (key == "min_observations") {
      f.min_observations = typed<int>(v, "fit." + key);
    } else if (key == "ard") {
      f.ard = typed<bool>(v, "fit." + key);
    } else if (key == "restarts") {
      f.restarts = typed<int>(v, "fit." + key);
    } else if (key == "max_rows") {
      f.max_rows = typed<int>(v, "fit." + key);
    } else if (key == "normalize") {
      f.normalize = typed<bool>(v, "fit." + key);
    } else if (key == "unit_inputs") {
      f.unit_inputs = typed<bool>(v, "fit." + key);
    } else if (key == "prior") {
      f.prior = typed<bool>(v, "fit." + key);
    } else if (key == "warp") {
      f.warp = typed<bool>(v, "fit." + key);
    } else if (key == "warp_select") {
      f.warp_select = typed<bool>(v, "fit." + key);
    } else if (key == "warp_knee") {
      f.warp_knee = typed<double>(v, "fit." + key);
    } else if (key == "lengthscale_prior_loc") {
      f.lengthscale_prior_loc = typed<double>(v, "fit." + key);
    } else if (key == "lengthscale_prior_log_d") {
      f.lengthscale_prior_log_d = typed<double>(v, "fit." + key);
    } else if (key == "lengthscale_prior_scale") {
      f.lengthscale_prior_scale = typed<double>(v, "fit." + key);
    } else if (key == "lengthscale_prior_select") {
      f.lengthscale_prior_select = typed<bool>(v, "fit." + key);
    } else if (key == "kernel_select") {
      f.kernel_select = typed<bool>(v, "fit." + key);
    } else if (key == "noise_floor") {
      f.noise_floor = typed<double>(v, "fit." + key);
    } else if (key == "mean_shift") {
      f.mean_shift = typed<double>(v, "fit." + key);
    } else if (key == "warm_start") {
      f.warm_start = typed<bool>(v, "fit." + key);
    } else if (key == "restarts_every") {
      f.restarts_every = typed<int>(v, "fit." + key);
    } else {
      throw InvalidArgument(
          "fit." + key +
          ": unknown key (every, min_observations, ard, restarts, max_rows, "
          "normalize, warp, warp_select, warp_knee, unit_inputs, prior, lengthscale_prior_loc, "
          "lengthscale_prior_log_d, "
          "lengthscale_prior_scale, lengthscale_prior_select, kernel_select, noise_floor, "
          "mean_shift, warm_start, restarts_every)");
    }
  }
}

void set_refine(RefineOptions& r, const py::dict& refine) {
  for (auto item : refine) {
    const auto key = item.first.cast<std::string>();
    const py::handle v = item.second;
    if (key == "enabled") {
      r.enabled = typed<bool>(v, "refine." + key);
    } else if (key == "local_points") {
      r.local_points = typed<int>(v, "refine." + key);
    } else if (key == "centres") {
      r.centres = typed<int>(v, "refine." + key);
    } else if (key == "starts") {
      r.starts = typed<int>(v, "refine." + key);
    } else if (key == "iterations") {
      r.iterations = typed<int>(v, "refine." + key);
    } else if (key == "coordinate_points") {
      r.coordinate_points = typed<int>(v, "refine." + key);
    } else if (key == "face_tolerance") {
      r.face_tolerance = typed<double>(v, "refine." + key);
    } else {
      throw InvalidArgument("refine." + key +
                            ": unknown key (enabled, local_points, centres, starts, iterations, "
                            "coordinate_points, face_tolerance)");
    }
  }
}

/// Everything the Python constructor gathers, as one options struct.
OptimizerOptions make_options(const DomainSpec& domain, const Kernel& kernel, double noise_variance,
                              const std::string& acquisition, const py::dict& beta, double xi,
                              int exact_max, int features, bool minimize, int initial_points,
                              bool distinct, bool random_ties, std::uint64_t seed,
                              const py::dict& fit, const std::string& backend, int threads,
                              std::size_t memory_budget_bytes, int capacity,
                              const std::string& initial_design, const py::dict& refine) {
  OptimizerOptions o;
  o.domain = domain;
  o.kernel = kernel;
  o.noise_variance = noise_variance;
  o.acquisition = acquisition_options(acquisition, beta, xi, exact_max, features);
  o.minimize = minimize;
  o.initial_points = initial_points;
  o.distinct = distinct;
  o.random_ties = random_ties;
  o.seed = seed;
  set_fit(o.fit, fit);
  if (initial_design != "sobol" && initial_design != "random") {
    throw InvalidArgument("initial_design: expected 'sobol' or 'random', got '" + initial_design +
                          "'");
  }
  o.sobol_design = initial_design == "sobol";
  set_refine(o.refine, refine);
  o.context.backend = parse_backend(backend);
  o.context.threads = threads;
  o.context.memory_budget_bytes = memory_budget_bytes;
  o.capacity = capacity;
  return o;
}

std::optional<ContextOptions> context_arg(const std::optional<std::string>& backend) {
  if (!backend) return std::nullopt;
  ContextOptions c;
  c.backend = parse_backend(*backend);
  return c;
}

py::tuple prediction(const Prediction& p) {
  return py::make_tuple(py::cast(p.mean), py::cast(p.variance));
}

std::string optimizer_repr(const Optimizer& o) {
  const auto& opt = o.options();
  return "<gpbandit.OptimizerCore N=" + std::to_string(o.domain().size()) +
         " d=" + std::to_string(o.domain().dim()) + " " +
         acquisition_kind_name(opt.acquisition.kind) +
         " observations=" + std::to_string(o.num_observations()) +
         " pending=" + std::to_string(o.pending().size()) + ">";
}

/// A getter of an Optimizer value, run with the GIL released (it waits for the object's lock).
template <typename R>
auto getter(R (Optimizer::*method)() const) {
  return [method](const Optimizer& o) {
    py::gil_scoped_release release;
    return (o.*method)();
  };
}

void bind_optimizer_calls(py::class_<Optimizer>& c) {
  c.def(
       "ask",
       [](Optimizer& o, int q) {
         const AskResult a = without_gil([&] { return o.ask(q); });
         py::array_t<std::int64_t> index(static_cast<py::ssize_t>(a.indices.size()));
         std::copy(a.indices.begin(), a.indices.end(), index.mutable_data());
         return py::make_tuple(py::cast(a.points), index);
       },
       py::arg("q") = 1, "Chooses q candidates: (q×d points, q int64 indices)")
      .def(
          "tell_indices",
          [](Optimizer& o, const py::handle& index, const py::handle& y, const py::handle& noise) {
            const auto i = index_arg(index, 0, o.domain().size(), "index");
            const auto v = real_arg(y, i.size(), "y");
            std::vector<double> values(v.data(), v.data() + v.size());
            const std::vector<double> lam = noise_arg(noise, i.size());
            without_gil([&] { o.tell(i, values, lam); });
          },
          py::arg("index"), py::arg("y"), py::arg("noise") = py::none(),
          "Tells y[i] observed at candidate index[i], with known noise variances (NaN: not known; "
          "None: none known)")
      .def(
          "tell_points",
          [](Optimizer& o, const py::handle& points, const py::handle& y, const py::handle& noise) {
            const Eigen::MatrixXd x = rows_arg(points, "points");
            const auto v = real_arg(y, static_cast<std::size_t>(x.rows()), "y");
            std::vector<double> values(v.data(), v.data() + v.size());
            const std::vector<double> lam = noise_arg(noise, static_cast<std::size_t>(x.rows()));
            without_gil([&] { o.tell(x, values, lam); });
          },
          py::arg("points"), py::arg("y"), py::arg("noise") = py::none(),
          "Tells y[i] observed at row i of the m×d points (candidates or any other points)")
      .def(
          "tell_failed_points",
          [](Optimizer& o, const py::handle& points) {
            const Eigen::MatrixXd x = rows_arg(points, "points");
            without_gil([&] { o.tell_failed(x); });
          },
          py::arg("points"), "Marks the m×d points as failed evaluations")
      .def(
          "tell_failed_indices",
          [](Optimizer& o, const py::handle& index) {
            const auto i = index_arg(index, 0, o.domain().size(), "index");
            without_gil([&] { o.tell_failed(i); });
          },
          py::arg("index"), "Marks the candidates as failed evaluations")
      .def_property_readonly(
          "failed_points",
          [](const Optimizer& o) { return without_gil([&] { return o.failed_points(); }); },
          "The points marked failed, one per row")
      .def(
          "forget_all", [](Optimizer& o) { return without_gil([&] { return o.forget_all(); }); },
          "Releases every outstanding ask; returns how many")
      .def(
          "forget_indices",
          [](Optimizer& o, const py::handle& index) {
            const auto i = index_arg(index, 0, o.domain().size(), "index");
            return without_gil([&] { return o.forget(i); });
          },
          py::arg("index"),
          "Releases one outstanding ask of each candidate index; returns how many")
      .def(
          "forget_points",
          [](Optimizer& o, const py::handle& points) {
            const Eigen::MatrixXd x = rows_arg(points, "points");
            return without_gil([&] { return o.forget(x); });
          },
          py::arg("points"), "Releases the outstanding asks of the m×d points; returns how many")
      .def(
          "predict",
          [](const Optimizer& o, const py::handle& points) {
            const Eigen::MatrixXd x = rows_arg(points, "X");
            return prediction(without_gil([&] { return o.predict(x); }));
          },
          py::arg("X"), "(mean, variance) of f at the m×d points X")
      .def(
          "predict_candidates",
          [](const Optimizer& o) {
            return prediction(without_gil([&] { return o.predict_candidates(); }));
          },
          "(mean, variance) of f at every candidate")
      .def(
          "fit_hyperparameters",
          [](Optimizer& o) { return without_gil([&] { return o.fit_hyperparameters(); }); },
          "Fits lengthscales, kernel variance and noise by marginal likelihood; rebuilds the "
          "posterior")
      .def(
          "set_acquisition",
          [](Optimizer& o, const std::string& acquisition, const py::dict& beta, double xi,
             int exact_max, int features) {
            const AcquisitionOptions a =
                acquisition_options(acquisition, beta, xi, exact_max, features);
            without_gil([&] { o.set_acquisition(a); });
          },
          py::arg("acquisition"), py::arg("beta"), py::arg("xi"), py::arg("exact_max"),
          py::arg("features"), "Replaces the acquisition rule of later asks")
      .def_property(
          "acquisition_rule", [](const Optimizer& o) { return o.options().acquisition; },
          [](Optimizer& o, const AcquisitionOptions& a) {
            without_gil([&] { o.set_acquisition(a); });
          },
          "The acquisition rule (opaque): read it to restore it later");
}

void bind_optimizer_state(py::class_<Optimizer>& c) {
  c.def_property_readonly("kernel", getter(&Optimizer::kernel),
                          "The current (possibly fitted) kernel")
      .def_property_readonly("noise_variance", getter(&Optimizer::noise_variance),
                             "The current (possibly fitted) noise variance, in the model's units")
      .def_property_readonly(
          "domain", [](const Optimizer& o) { return o.options().domain; },
          "The candidate set's DomainSpec")
      .def_property_readonly(
          "fingerprints", [](const Optimizer& o) { return o.domain().is_fingerprint(); },
          "Whether the candidates are fingerprints (given and suggested by index)")
      .def_property_readonly(
          "candidates",
          [](const Optimizer& o) -> Eigen::MatrixXd { return o.domain().points().transpose(); },
          "The N×d candidates (a copy)")
      .def_property_readonly("streams", &Optimizer::streams,
                             "Whether the parameter space is streamed (its encodings computed "
                             "chunk by chunk, never held; candidates then raises)")
      .def_property_readonly(
          "backend", [](const Optimizer& o) { return o.context().describe(); },
          "The backend the engine runs on")
      .def_property_readonly("num_observations", getter(&Optimizer::num_observations),
                             "Observations told so far")
      .def_property_readonly("observed_points", getter(&Optimizer::observed_points),
                             "The observed points, one per row, in tell order")
      .def_property_readonly("observed_values", getter(&Optimizer::observed_values),
                             "The observed y, as told, in tell order")
      .def_property_readonly("observed_noise", getter(&Optimizer::observed_noise),
                             "The known noise variance of each observation (NaN: not known)")
      .def_property_readonly("observed_indices", getter(&Optimizer::observed_indices),
                             "Candidate index of each observation (-1 off the candidate set)")
      .def_property_readonly("pending", getter(&Optimizer::pending),
                             "Candidates asked for and not yet told, in ask order")
      .def(
          "best",
          [](const Optimizer& o) {
            const BestObservation b = getter(&Optimizer::best)(o);
            return py::make_tuple(py::cast(b.point), b.value, b.index, b.observation);
          },
          "(point, value, index, observation) of the best observation")
      .def_property_readonly("fits", getter(&Optimizer::fits), "Hyperparameter fits done so far")
      .def_property_readonly("last_fit_error", getter(&Optimizer::last_fit_error),
                             "Why the last automatic refit failed ('' when it did not)")
      .def_property_readonly("y_offset", getter(&Optimizer::y_offset),
                             "y = y_offset + y_scale·g maps the model's units g to y's")
      .def_property_readonly("y_scale", getter(&Optimizer::y_scale), "See y_offset")
      .def_property_readonly(
          "minimize", [](const Optimizer& o) { return o.options().minimize; },
          "True when y is minimised")
      .def_property_readonly(
          "exclude_observed", [](const Optimizer& o) { return o.options().exclude_observed; },
          "True when ask() never returns a candidate already told")
      .def_property_readonly(
          "allow_outside", [](const Optimizer& o) { return o.options().allow_outside; },
          "True when told points outside the candidates' bounding box are accepted")
      .def_property_readonly(
          "match_tolerance", [](const Optimizer& o) { return o.options().match_tolerance; },
          "Relative tolerance within which a told point answers an outstanding ask")
      .def(
          "dumps", [](const Optimizer& o) { return without_gil([&] { return o.dumps(); }); },
          "The whole state as JSON text")
      .def(
          "save",
          [](const Optimizer& o, const std::string& path) { without_gil([&] { o.save(path); }); },
          py::arg("path"), "Writes the state atomically (JSON, or .npz when path ends in .npz)")
      .def_static(
          "loads",
          [](const std::string& text, const std::optional<std::string>& backend) {
            const auto ctx = context_arg(backend);
            return without_gil([&] { return Optimizer::loads(text, ctx); });
          },
          py::arg("state"), py::arg("backend") = py::none(),
          "An optimizer from dumps() text (replays the posterior: bit-identical continuation)")
      .def_static(
          "load",
          [](const std::string& path, const std::optional<std::string>& backend) {
            const auto ctx = context_arg(backend);
            return without_gil([&] { return Optimizer::load(path, ctx); });
          },
          py::arg("path"), py::arg("backend") = py::none(), "An optimizer from a saved file")
      .def_static(
          "from_config",
          [](const std::string& path) {
            return without_gil([&] { return Optimizer(load_optimizer_config(path)); });
          },
          py::arg("path"), "An optimizer from a config file (the CLI's `gpbandit init` format)")
      .def("__repr__",
           [](const Optimizer& o) { return without_gil([&] { return optimizer_repr(o); }); });
}

}  // namespace

void bind_optimizer(py::module_& m) {
  bind_domain_spec(m);
  bind_hyperfit(m);
  py::class_<AcquisitionOptions>(
      m, "AcquisitionRule", "An Optimizer's acquisition rule (OptimizerCore.acquisition_rule)");
  py::class_<Optimizer> c(m, "OptimizerCore",
                          "The C++ ask/tell optimizer behind gpbandit.Optimizer (use that)");
  c.def(py::init([](const DomainSpec& domain, const Kernel& kernel, double noise_variance,
                    const std::string& acquisition, const py::dict& beta, double xi, int exact_max,
                    int features, bool minimize, int initial_points, bool distinct,
                    bool random_ties, std::uint64_t seed, const py::dict& fit,
                    const std::string& backend, int threads, std::size_t memory_budget_bytes,
                    int capacity, const std::string& initial_design, const py::dict& refine,
                    bool allow_outside, double match_tolerance, bool exclude_observed) {
          OptimizerOptions o =
              make_options(domain, kernel, noise_variance, acquisition, beta, xi, exact_max,
                           features, minimize, initial_points, distinct, random_ties, seed, fit,
                           backend, threads, memory_budget_bytes, capacity, initial_design, refine);
          o.allow_outside = allow_outside;
          o.match_tolerance = match_tolerance;
          o.exclude_observed = exclude_observed;
          return without_gil([&] { return Optimizer(std::move(o)); });
        }),
        py::arg("domain"), py::arg("kernel"), py::arg("noise_variance"), py::arg("acquisition"),
        py::arg("beta"), py::arg("xi"), py::arg("exact_max"), py::arg("features"),
        py::arg("minimize"), py::arg("initial_points"), py::arg("distinct"), py::arg("random_ties"),
        py::arg("seed"), py::arg("fit"), py::arg("backend"), py::arg("threads"),
        py::arg("memory_budget_bytes"), py::arg("capacity"), py::arg("initial_design") = "sobol",
        py::arg("refine") = py::dict(), py::arg("allow_outside") = false,
        py::arg("match_tolerance") = 1e-5, py::arg("exclude_observed") = false,
        "Every option of gpbandit.Optimizer, validated by the engine");
  bind_optimizer_calls(c);
  bind_optimizer_state(c);
  m.def("config_kind", &config_kind, py::arg("json_text"),
        "What a config is: 'command' (an optimizer config with an objective program), "
        "'optimizer' (one without: Optimizer.from_config) or 'experiment' (a pipeline config)");
}

}  // namespace gpb::python
