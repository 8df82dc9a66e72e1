// Bindings of FinitePosterior: NumPy arrays in (no copy when already contiguous int32 / float64),
// mean and variance out as copies or as read-only views into the posterior's own buffers.
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "bindings.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::python {
namespace {

PosteriorMode parse_mode(const std::string& mode) {
  if (mode == "auto") return PosteriorMode::Auto;
  if (mode == "incremental") return PosteriorMode::Incremental;
  if (mode == "recompute") return PosteriorMode::Recompute;
  throw InvalidArgument("mode: expected auto, incremental or recompute, got " + mode);
}

void check_run(const FinitePosterior& p, int run) {
  GPB_EXPECTS(run >= 0 && run < p.runs(), "run: must be in [0, " << p.runs() << "), got " << run);
}

/// Length-N array over run r's buffer: a copy, or a read-only view kept alive by `owner`.
py::array over_domain(const FinitePosterior& p, const double* data, bool copy,
                      const py::object& owner) {
  if (copy) return py::array_t<double>(p.size(), data);
  py::array view(py::dtype::of<double>(), {p.size()}, {sizeof(double)}, data, owner);
  set_read_only(view);
  return view;
}

}  // namespace

void bind_posterior(py::module_& m) {
  py::class_<FinitePosterior>(m, "FinitePosterior",
                              "Exact GP posterior over a finite domain for R runs in lockstep")
      .def(py::init([](const Context& ctx, const Kernel& kernel, const Domain& domain, int runs,
                       double noise_variance, int capacity, const std::string& mode, int chunk,
                       bool lazy) {
             PosteriorOptions o;
             o.noise_variance = noise_variance;
             o.capacity = capacity;
             o.mode = parse_mode(mode);
             o.chunk = chunk;
             o.lazy = lazy;
             return new FinitePosterior(ctx, kernel, domain, runs, o);
           }),
           py::arg("context"), py::arg("kernel"), py::arg("domain"), py::arg("runs") = 1,
           py::arg("noise_variance") = 1e-2, py::arg("capacity") = 256, py::arg("mode") = "auto",
           py::arg("chunk") = 2048, py::arg("lazy") = true, py::keep_alive<1, 2>())
      .def_property_readonly("runs", &FinitePosterior::runs)
      .def_property_readonly("size", &FinitePosterior::size)
      .def_property_readonly("rows", &FinitePosterior::rows)
      .def_property_readonly("pending", &FinitePosterior::pending)
      .def_property_readonly("recompute_mode", &FinitePosterior::recompute_mode)
      .def_property_readonly("noise_variance", &FinitePosterior::noise_variance)
      .def(
          "observe",
          [](FinitePosterior& p, const py::handle& index, const py::handle& y) {
            const auto runs = static_cast<std::size_t>(p.runs());
            const auto i = vector_arg<int>(index, runs, "index");
            const auto v = vector_arg<double>(y, runs, "y");
            p.observe(i.data(), v.data());
          },
          py::arg("index"), py::arg("y"),
          "Observes y[r] at candidate index[r] for every run r (length-R arrays or scalars for "
          "R=1)")
      .def(
          "add_pending",
          [](FinitePosterior& p, const py::handle& index) {
            const auto i = vector_arg<int>(index, static_cast<std::size_t>(p.runs()), "index");
            p.add_pending(i.data());
          },
          py::arg("index"))
      .def(
          "resolve_pending",
          [](FinitePosterior& p, const py::handle& y) {
            const auto n =
                static_cast<std::size_t>(p.runs()) * static_cast<std::size_t>(p.pending());
            const auto v = vector_arg<double>(y, n, "y (R×P, run-major)");
            p.resolve_pending(v.data());
          },
          py::arg("y"))
      .def(
          "mean",
          [](const py::object& self, int run, bool copy) {
            const auto& p = self.cast<const FinitePosterior&>();
            check_run(p, run);
            return over_domain(p, p.mean(run), copy, self);
          },
          py::arg("run") = 0, py::arg("copy") = true,
          "Posterior mean over the domain (length N). copy=False: a read-only view, valid only "
          "until the next update")
      .def(
          "variance",
          [](const py::object& self, int run, bool copy) {
            const auto& p = self.cast<const FinitePosterior&>();
            check_run(p, run);
            return over_domain(p, p.variance(run), copy, self);
          },
          py::arg("run") = 0, py::arg("copy") = true)
      .def(
          "ucb_argmax",
          [](const FinitePosterior& p, const py::handle& width, const py::object& excluded,
             std::optional<std::uint64_t> seed) {
            const auto runs = static_cast<std::size_t>(p.runs());
            const auto w = vector_arg<double>(width, runs, "width");
            py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> ex;
            if (!excluded.is_none()) {
              ex = vector_arg<std::uint8_t>(excluded, runs * static_cast<std::size_t>(p.size()),
                                            "excluded (R×N)");
            }
            std::vector<Rng> rngs;
            if (seed) {
              for (std::size_t r = 0; r < runs; ++r) {
                rngs.emplace_back(*seed, static_cast<std::uint32_t>(r), 0);
              }
            }
            const auto choices = p.ucb_argmax(w.data(), excluded.is_none() ? nullptr : ex.data(),
                                              seed ? &rngs : nullptr);
            py::array_t<int> index(static_cast<py::ssize_t>(runs));
            py::array_t<double> score(static_cast<py::ssize_t>(runs));
            for (std::size_t r = 0; r < runs; ++r) {
              index.mutable_at(r) = choices[r].index;
              score.mutable_at(r) = choices[r].score;
            }
            return py::make_tuple(index, score);
          },
          py::arg("width"), py::arg("excluded") = py::none(), py::arg("seed") = py::none(),
          "UCB argmax per run: returns (index[R], score[R]); width[r] multiplies sigma; "
          "excluded is an R×N mask; seed breaks exact ties at random (lowest index without)")
      .def("info_gain", &FinitePosterior::info_gain, py::arg("run") = 0)
      .def(
          "history",
          [](const FinitePosterior& p, int run) {
            check_run(p, run);
            const auto& h = p.history(run);
            return py::array_t<int>(static_cast<py::ssize_t>(h.size()), h.data());
          },
          py::arg("run") = 0)
      .def_static("incremental_bytes", &FinitePosterior::incremental_bytes, py::arg("runs"),
                  py::arg("n"), py::arg("capacity"));
}

}  // namespace gpb::python
