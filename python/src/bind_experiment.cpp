// Bindings of experiments: configs from a file or JSON text, run_experiment (the GIL is released
// while it runs), and the registry that `gpbandit list` prints.
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "gpbandit/experiment.hpp"

namespace gpb::python {

void bind_experiment(py::module_& m) {
  py::class_<PolicySpec>(m, "PolicySpec")
      .def_readonly("type", &PolicySpec::type)
      .def_readonly("label", &PolicySpec::label)
      .def_readonly("params_json", &PolicySpec::params_json);
  py::class_<ExperimentConfig>(m, "ExperimentConfig", "A parsed and validated experiment config")
      .def_readonly("name", &ExperimentConfig::name)
      .def_readonly("seed", &ExperimentConfig::seed)
      .def_readonly("runs", &ExperimentConfig::runs)
      .def_readonly("horizon", &ExperimentConfig::horizon)
      .def_readonly("domain", &ExperimentConfig::domain)
      .def_readonly("kernel", &ExperimentConfig::kernel)
      .def_readonly("policies", &ExperimentConfig::policies)
      .def_readonly("config_json", &ExperimentConfig::config_json);
  m.def("load_config", &load_experiment_config, py::arg("path"));
  m.def("parse_config", &parse_experiment_config, py::arg("json_text"),
        py::arg("source") = "<python>", py::arg("base_dir") = ".");

  py::class_<PolicySummary>(m, "PolicySummary", "Final regret statistics of one policy")
      .def_readonly("label", &PolicySummary::label)
      .def_readonly("cumulative_mean", &PolicySummary::cumulative_mean)
      .def_readonly("cumulative_sd", &PolicySummary::cumulative_sd)
      .def_readonly("simple_mean", &PolicySummary::simple_mean)
      .def_readonly("simple_sd", &PolicySummary::simple_sd)
      .def_readonly("seconds", &PolicySummary::seconds)
      .def("__repr__", [](const PolicySummary& s) {
        return "<PolicySummary " + s.label + ": R_T = " + std::to_string(s.cumulative_mean) +
               " ± " + std::to_string(s.cumulative_sd) + ">";
      });
  py::class_<ExperimentResult>(m, "ExperimentResult", "Where the outputs went and the summaries")
      .def_readonly("policies", &ExperimentResult::policies)
      .def_readonly("out_dir", &ExperimentResult::out_dir)
      .def_readonly("runs_csv", &ExperimentResult::runs_csv)
      .def_readonly("summary_json", &ExperimentResult::summary_json)
      .def_readonly("plot_png", &ExperimentResult::plot_png)
      .def_readonly("plotted", &ExperimentResult::plotted)
      .def_readonly("plot_message", &ExperimentResult::plot_message)
      .def_readonly("backend", &ExperimentResult::backend)
      .def_readonly("family", &ExperimentResult::family)
      .def_readonly("report", &ExperimentResult::report)
      .def_readonly("already_finished", &ExperimentResult::already_finished)
      .def_readonly("lockstep", &ExperimentResult::lockstep);
  py::class_<Experiment>(m, "Experiment", "A validated experiment of any family")
      .def_property_readonly("family", [](const Experiment& e) { return e.settings().family; })
      .def_property_readonly("name", [](const Experiment& e) { return e.settings().name; })
      .def_property_readonly("runs", [](const Experiment& e) { return e.settings().runs; })
      .def_property_readonly("seed", [](const Experiment& e) { return e.settings().seed; });
  m.def("load_experiment", &load_experiment, py::arg("path"),
        "Reads and validates a config of any family (finite, dp-gibo, fed-pne)");
  m.def("parse_experiment", &parse_experiment, py::arg("json_text"), py::arg("source") = "<python>",
        py::arg("base_dir") = ".");
  const auto options = [](const std::string& out_dir, bool resume, bool force, bool progress,
                          bool plot, std::optional<std::string> backend, std::optional<int> runs,
                          std::optional<std::uint64_t> seed) {
    RunOptions o;
    o.out_dir = out_dir;
    o.resume = resume;
    o.force = force;
    o.progress = progress;
    o.plot = plot;
    if (backend) o.backend = parse_backend(*backend);
    o.runs = runs;
    o.seed = seed;
    return o;
  };
  const char* doc =
      "Runs every policy of the experiment through the pipeline; writes runs.csv and "
      "summary.json (and the plot with plot=True) into out_dir (default results/<name>). "
      "force=True deletes an unfinished run's checkpoint there; resume=True continues it";
  m.def(
      "run_experiment",
      [options](const ExperimentConfig& config, const std::string& out_dir, bool resume, bool force,
                bool progress, bool plot, std::optional<std::string> backend,
                std::optional<int> runs, std::optional<std::uint64_t> seed) {
        const RunOptions o = options(out_dir, resume, force, progress, plot, backend, runs, seed);
        py::gil_scoped_release release;
        return run_experiment(config, o);
      },
      py::arg("config"), py::arg("out_dir") = "", py::arg("resume") = false,
      py::arg("force") = false, py::arg("progress") = false, py::arg("plot") = false,
      py::arg("backend") = py::none(), py::arg("runs") = py::none(), py::arg("seed") = py::none(),
      doc);
  m.def(
      "run_experiment",
      [options](const Experiment& e, const std::string& out_dir, bool resume, bool force,
                bool progress, bool plot, std::optional<std::string> backend,
                std::optional<int> runs, std::optional<std::uint64_t> seed) {
        const RunOptions o = options(out_dir, resume, force, progress, plot, backend, runs, seed);
        py::gil_scoped_release release;
        return run_experiment(e, o);
      },
      py::arg("experiment"), py::arg("out_dir") = "", py::arg("resume") = false,
      py::arg("force") = false, py::arg("progress") = false, py::arg("plot") = false,
      py::arg("backend") = py::none(), py::arg("runs") = py::none(), py::arg("seed") = py::none(),
      doc);

  py::class_<ParamDoc>(m, "ParamDoc")
      .def_readonly("name", &ParamDoc::name)
      .def_readonly("type", &ParamDoc::type)
      .def_readonly("default", &ParamDoc::default_value)
      .def_readonly("doc", &ParamDoc::doc);
  py::class_<RegistryEntry>(m, "RegistryEntry")
      .def_readonly("kind", &RegistryEntry::kind)
      .def_readonly("name", &RegistryEntry::name)
      .def_readonly("doc", &RegistryEntry::doc)
      .def_readonly("params", &RegistryEntry::params);
  m.def("registry", &registry, "Every policy, objective, kernel, noise model and domain type");
}

}  // namespace gpb::python
