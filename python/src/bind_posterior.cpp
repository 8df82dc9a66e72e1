// Bindings of FinitePosterior: NumPy arrays in (no copy of float64 rewards; indices of any integer
// dtype, range-checked), mean and variance out as copies or as read-only views into the
// posterior's own buffers.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
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

std::string posterior_repr(const FinitePosterior& p) {
  return "<gpbandit.FinitePosterior runs=" + std::to_string(p.runs()) +
         " N=" + std::to_string(p.size()) + " rows=" + std::to_string(p.rows()) +
         " pending=" + std::to_string(p.pending()) +
         (p.recompute_mode() ? " recompute" : " incremental") + ">";
}

FinitePosterior* make_posterior(const Context& ctx, const Kernel& kernel, const Domain& domain,
                                int runs, double noise_variance, int capacity,
                                const std::string& mode, int chunk, bool lazy) {
  PosteriorOptions o;
  o.noise_variance = noise_variance;
  o.capacity = capacity;
  o.mode = parse_mode(mode);
  o.chunk = chunk;
  o.lazy = lazy;
  WarningCollector warnings;  // a posterior in recompute mode says so
  auto p = std::make_unique<FinitePosterior>(ctx, kernel, domain, runs, o);
  warnings.emit();
  return p.release();
}

py::tuple ucb_argmax(const FinitePosterior& p, const py::handle& width, const py::object& excluded,
                     std::optional<std::uint64_t> seed) {
  const auto runs = static_cast<std::size_t>(p.runs());
  const auto w = real_arg(width, runs, "width");
  py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> ex;
  if (!excluded.is_none()) {
    ex = mask_arg(excluded, runs * static_cast<std::size_t>(p.size()), "excluded (R×N)");
  }
  std::vector<Rng> rngs;
  if (seed) {
    for (std::size_t r = 0; r < runs; ++r)
      rngs.emplace_back(*seed, static_cast<std::uint32_t>(r), 0);
  }
  const auto choices =
      p.ucb_argmax(w.data(), excluded.is_none() ? nullptr : ex.data(), seed ? &rngs : nullptr);
  py::array_t<int> index(static_cast<py::ssize_t>(runs));
  py::array_t<double> score(static_cast<py::ssize_t>(runs));
  for (std::size_t r = 0; r < runs; ++r) {
    index.mutable_at(r) = choices[r].index;
    score.mutable_at(r) = choices[r].score;
  }
  return py::make_tuple(index, score);
}

}  // namespace

void bind_posterior(py::module_& m) {
  py::class_<FinitePosterior>(m, "FinitePosterior",
                              "Exact GP posterior over a finite domain for R runs in lockstep")
      .def(py::init(&make_posterior), py::arg("context"), py::arg("kernel"), py::arg("domain"),
           py::arg("runs") = 1, py::arg("noise_variance") = 1e-2, py::arg("capacity") = 256,
           py::arg("mode") = "auto", py::arg("chunk") = 2048, py::arg("lazy") = true,
           py::keep_alive<1, 2>(),
           "Prior GP(0, kernel), Gaussian noise of variance noise_variance; capacity rows per run "
           "size the incremental buffers (mode auto: incremental when they fit the context's "
           "budget, else recompute); the posterior keeps its own copy of the domain's points")
      .def_property_readonly("runs", &FinitePosterior::runs, "R, the runs advanced in lockstep")
      .def_property_readonly("size", &FinitePosterior::size, "N, the number of candidates")
      .def_property_readonly("rows", &FinitePosterior::rows,
                             "Rows per run so far (observed + pending)")
      .def_property_readonly("pending", &FinitePosterior::pending,
                             "Pending (hallucinated, not yet resolved) rows per run")
      .def_property_readonly("recompute_mode", &FinitePosterior::recompute_mode,
                             "True when the posterior recomputes and streams instead of keeping V")
      .def_property_readonly("noise_variance", &FinitePosterior::noise_variance,
                             "λ, the Gaussian noise variance of the model")
      .def(
          "observe",
          [](FinitePosterior& p, const py::handle& index, const py::handle& y,
             const py::handle& noise) {
            const auto runs = static_cast<std::size_t>(p.runs());
            const auto i = index_arg(index, runs, p.size(), "index");
            const auto v = real_arg(y, runs, "y");
            const std::vector<double> lam = noise_arg(noise, runs);
            p.observe(i.data(), v.data(), lam.empty() ? nullptr : lam.data());
          },
          py::arg("index"), py::arg("y"), py::arg("noise") = py::none(),
          "Observes y[r] at candidate index[r] for every run r (length-R arrays, or scalars for "
          "R = 1); index must have an integer dtype and lie in [0, N). noise: each row's known "
          "noise variance (> 0), or None for λ")
      .def(
          "observe_batch",
          [](FinitePosterior& p, const py::handle& index, const py::handle& y,
             const py::handle& noise) {
            const py::array ia = py::array::ensure(index);
            if (!ia || ia.ndim() < 1 || ia.ndim() > 2) {
              throw InvalidArgument("index: expected an R×q (or length-q for R = 1) array");
            }
            const auto q = static_cast<std::size_t>(ia.shape(ia.ndim() - 1));
            const auto total = q * static_cast<std::size_t>(p.runs());
            const auto i = index_arg(index, total, p.size(), "index");
            const auto v = real_arg(y, total, "y");
            const std::vector<double> lam = noise_arg(noise, total);
            p.observe_batch(static_cast<int>(q), i.data(), v.data(),
                            lam.empty() ? nullptr : lam.data());
          },
          py::arg("index"), py::arg("y"), py::arg("noise") = py::none(),
          "Observes q rewards per run as one block update (GEMM + triangular solve): index, y and "
          "noise (known noise variances, or None for λ) are R×q (run r's batch in row r; length-q "
          "arrays for R = 1)")
      .def("rows_at", &FinitePosterior::rows_at, py::arg("run"), py::arg("candidates"),
           "t×m: the stored rows v_p at the given candidates (Cov = k − VᵀV)")
      .def("apply_rows", &FinitePosterior::apply_rows, py::arg("run"), py::arg("B"),
           "Vᵀ B over the candidates (N×b) for a t×b matrix B")
      .def(
          "add_pending",
          [](FinitePosterior& p, const py::handle& index, const py::handle& noise) {
            const auto runs = static_cast<std::size_t>(p.runs());
            const auto i = index_arg(index, runs, p.size(), "index");
            const std::vector<double> lam = noise_arg(noise, runs);
            p.add_pending(i.data(), lam.empty() ? nullptr : lam.data());
          },
          py::arg("index"), py::arg("noise") = py::none(),
          "Hallucinates candidate index[r] for every run (variance update only), as GP-BUCB does; "
          "noise: the rows' noise variances, or None for λ")
      .def(
          "resolve_pending",
          [](FinitePosterior& p, const py::handle& y) {
            const auto n =
                static_cast<std::size_t>(p.runs()) * static_cast<std::size_t>(p.pending());
            const auto v = real_arg(y, n, "y (R×P, run-major)");
            p.resolve_pending(v.data());
          },
          py::arg("y"),
          "Resolves every pending row with its reward: y is R×P run-major, in the order the rows "
          "were added")
      .def(
          "mean",
          [](const py::object& self, int run, bool copy) {
            const auto& p = self.cast<const FinitePosterior&>();
            check_run(p, run);
            return over_domain(p, p.mean(run), copy, self);
          },
          py::arg("run") = 0, py::arg("copy") = true,
          "Posterior mean over the domain (length N). copy=False: a read-only view, valid only "
          "until the next update. In recompute mode (CPU) it is K(D, X_t)·β, O(N·t), without "
          "rebuilding V: mode='recompute' gives a greedy batch from scratch without the O(N·t²) "
          "of σ²")
      .def(
          "variance",
          [](const py::object& self, int run, bool copy) {
            const auto& p = self.cast<const FinitePosterior&>();
            check_run(p, run);
            return over_domain(p, p.variance(run), copy, self);
          },
          py::arg("run") = 0, py::arg("copy") = true,
          "Posterior variance over the domain (length N, clamped at 0); copy=False as in mean")
      .def("ucb_argmax", &ucb_argmax, py::arg("width"), py::arg("excluded") = py::none(),
           py::arg("seed") = py::none(),
           "UCB argmax per run: returns (index[R], score[R]); width[r] multiplies sigma; "
           "excluded is an R×N mask (bool or integer dtype); seed breaks exact ties at random "
           "(lowest index without)")
      .def("info_gain", &FinitePosterior::info_gain, py::arg("run") = 0,
           "γ̂ = ½ ln|I + K_t/λ| over every row of the run (pending included)")
      .def(
          "history",
          [](const FinitePosterior& p, int run) {
            check_run(p, run);
            const auto& h = p.history(run);
            return py::array_t<int>(static_cast<py::ssize_t>(h.size()), h.data());
          },
          py::arg("run") = 0, "Candidate indices of the run's rows, in order (a copy)")
      .def("__repr__", &posterior_repr)
      .def_static("incremental_bytes", &FinitePosterior::incremental_bytes, py::arg("runs"),
                  py::arg("n"), py::arg("capacity"),
                  "Bytes V takes in incremental mode for R runs, N candidates and capacity rows");
}

}  // namespace gpb::python
