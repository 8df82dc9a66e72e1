// Bindings of experiments: configs from a file or JSON text, run_experiment (the GIL is released
// while it runs), the run of a command-objective config (gpbandit.run; the CLI's code) and the
// registry that `gpbandit list` prints.
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/optimizer/command_run.hpp"

namespace gpb::python {

void bind_experiment(py::module_& m) {
  py::class_<PolicySpec>(m, "PolicySpec", "One policy entry of a config")
      .def_readonly("type", &PolicySpec::type, "Registered policy type, e.g. gp_ucb")
      .def_readonly("label", &PolicySpec::label, "Label in outputs (unique within a config)")
      .def_readonly("params_json", &PolicySpec::params_json, "The entry's parameters as JSON")
      .def("__repr__", [](const PolicySpec& p) {
        return "<gpbandit.PolicySpec " + p.type + " '" + p.label + "'>";
      });
  py::class_<ExperimentConfig>(m, "ExperimentConfig", "A parsed and validated experiment config")
      .def_readonly("name", &ExperimentConfig::name, "Output folder name")
      .def_readonly("seed", &ExperimentConfig::seed, "Master seed")
      .def_readonly("runs", &ExperimentConfig::runs, "Independent runs per policy")
      .def_readonly("horizon", &ExperimentConfig::horizon, "T, evaluations per run")
      .def_readonly("domain", &ExperimentConfig::domain, "The candidate set")
      .def_readonly("kernel", &ExperimentConfig::kernel, "The surrogate's kernel")
      .def_readonly("policies", &ExperimentConfig::policies, "The policies (PolicySpec list)")
      .def_readonly("config_json", &ExperimentConfig::config_json, "The config as JSON text")
      .def("__repr__", [](const ExperimentConfig& c) {
        return "<gpbandit.ExperimentConfig '" + c.name + "' runs=" + std::to_string(c.runs) +
               " T=" + std::to_string(c.horizon) +
               " policies=" + std::to_string(c.policies.size()) + ">";
      });
  // One process, the whole domain (sharding over MPI ranks is the C++ API's and the CLI's).
  m.def(
      "load_config", [](const std::string& path) { return load_experiment_config(path); },
      py::arg("path"),
      "Reads and validates a config file (the CLI's JSON format); errors name file and field");
  m.def(
      "parse_config",
      [](const std::string& text, const std::string& source, const std::string& base) {
        return parse_experiment_config(text, source, base);
      },
      py::arg("json_text"), py::arg("source") = "<python>", py::arg("base_dir") = ".",
      "Validates config JSON text; relative paths resolve against base_dir");

  py::class_<PolicySummary>(m, "PolicySummary", "Final regret statistics of one policy")
      .def_readonly("label", &PolicySummary::label, "The policy's label")
      .def_readonly("cumulative_mean", &PolicySummary::cumulative_mean,
                    "Mean final cumulative regret R_T over the runs")
      .def_readonly("cumulative_sd", &PolicySummary::cumulative_sd,
                    "Sample sd of the final cumulative regret")
      .def_readonly("simple_mean", &PolicySummary::simple_mean, "Mean final simple regret")
      .def_readonly("simple_sd", &PolicySummary::simple_sd, "Sample sd of the simple regret")
      .def_readonly("seconds", &PolicySummary::seconds, "Wall time of the policy's runs")
      .def("__repr__", [](const PolicySummary& s) {
        return "<gpbandit.PolicySummary " + s.label +
               ": R_T = " + std::to_string(s.cumulative_mean) + " ± " +
               std::to_string(s.cumulative_sd) + ">";
      });
  py::class_<ExperimentResult>(m, "ExperimentResult", "Where the outputs went and the summaries")
      .def_readonly("policies", &ExperimentResult::policies, "PolicySummary per policy")
      .def_readonly("out_dir", &ExperimentResult::out_dir, "The output folder")
      .def_readonly("runs_csv", &ExperimentResult::runs_csv, "Path of runs.csv")
      .def_readonly("summary_json", &ExperimentResult::summary_json, "Path of summary.json")
      .def_readonly("plot_png", &ExperimentResult::plot_png, "Path of the plot")
      .def_readonly("plotted", &ExperimentResult::plotted, "Whether the plot was drawn")
      .def_readonly("plot_message", &ExperimentResult::plot_message,
                    "Why the plot was not drawn (empty when it was)")
      .def_readonly("backend", &ExperimentResult::backend, "The backend the runs used")
      .def_readonly("family", &ExperimentResult::family, "finite, dp-gibo or fed-pne")
      .def_readonly("report", &ExperimentResult::report, "The results table the CLI prints")
      .def_readonly("already_finished", &ExperimentResult::already_finished,
                    "True when resume found the run already complete")
      .def_readonly("lockstep", &ExperimentResult::lockstep, "Runs advanced together")
      .def("__repr__", [](const ExperimentResult& r) {
        return "<gpbandit.ExperimentResult " + r.family + " " + r.out_dir +
               " policies=" + std::to_string(r.policies.size()) + ">";
      });
  py::class_<Experiment>(m, "Experiment", "A validated experiment of any family")
      .def_property_readonly(
          "family", [](const Experiment& e) { return e.settings().family; },
          "finite, dp-gibo or fed-pne")
      .def_property_readonly(
          "name", [](const Experiment& e) { return e.settings().name; }, "Output folder name")
      .def_property_readonly(
          "runs", [](const Experiment& e) { return e.settings().runs; },
          "Independent runs per policy")
      .def_property_readonly(
          "seed", [](const Experiment& e) { return e.settings().seed; }, "Master seed")
      .def("__repr__", [](const Experiment& e) {
        return "<gpbandit.Experiment " + e.settings().family + " '" + e.settings().name +
               "' runs=" + std::to_string(e.settings().runs) + ">";
      });
  m.def(
      "load_experiment", [](const std::string& path) { return load_experiment(path); },
      py::arg("path"), "Reads and validates a config of any family (finite, dp-gibo, fed-pne)");
  m.def(
      "parse_experiment",
      [](const std::string& text, const std::string& source, const std::string& base) {
        return parse_experiment(text, source, base);
      },
      py::arg("json_text"), py::arg("source") = "<python>", py::arg("base_dir") = ".",
      "Validates config JSON text of any family; relative paths resolve against base_dir");
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
        return without_gil([&] { return run_experiment(config, o); });
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
        return without_gil([&] { return run_experiment(e, o); });
      },
      py::arg("experiment"), py::arg("out_dir") = "", py::arg("resume") = false,
      py::arg("force") = false, py::arg("progress") = false, py::arg("plot") = false,
      py::arg("backend") = py::none(), py::arg("runs") = py::none(), py::arg("seed") = py::none(),
      doc);

  py::class_<ParamDoc>(m, "ParamDoc", "One parameter of a registry entry")
      .def_readonly("name", &ParamDoc::name, "Parameter name")
      .def_readonly("type", &ParamDoc::type, "Type in words")
      .def_readonly("default", &ParamDoc::default_value, "Default as JSON, or (required)")
      .def_readonly("doc", &ParamDoc::doc, "What it does")
      .def("__repr__", [](const ParamDoc& p) {
        return "<gpbandit.ParamDoc " + p.name + ": " + p.type + " = " + p.default_value + ">";
      });
  py::class_<RegistryEntry>(m, "RegistryEntry",
                            "A policy, objective, kernel, noise model or domain type")
      .def_readonly("kind", &RegistryEntry::kind, "policy, objective, kernel, noise or domain")
      .def_readonly("name", &RegistryEntry::name, "The type name used in configs")
      .def_readonly("doc", &RegistryEntry::doc, "What it is")
      .def_readonly("params", &RegistryEntry::params, "Its parameters (ParamDoc list)")
      .def("__repr__", [](const RegistryEntry& e) {
        return "<gpbandit.RegistryEntry " + e.kind + " " + e.name + ">";
      });
  m.def("registry", &registry, "Every policy, objective, kernel, noise model and domain type");
  // gpbandit.run() of a command-objective config: the very function `gpbandit run` calls. Ctrl-C
  // is noticed between rounds (the round in progress finishes and is saved first).
  m.def(
      "_run_command_config",
      [](const std::string& text, const std::string& source, const std::string& base_dir,
         const std::string& out_dir, bool resume, bool force, bool progress,
         std::optional<std::string> backend, std::optional<std::uint64_t> seed,
         std::optional<int> threads) {
        if (resume && force) {
          throw InvalidArgument("resume and force exclude each other (continue, or start over)");
        }
        CommandRunOptions o;
        o.out = out_dir;
        o.resume = resume;
        o.force = force;
        o.quiet = !progress;
        if (backend) o.backend = parse_backend(*backend);
        o.seed = seed;
        o.threads = threads;
        o.between_rounds = [] {
          py::gil_scoped_acquire gil;
          if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        };
        const CommandRunResult r =
            without_gil([&] { return run_command_config(source, text, o, base_dir); });
        return py::make_tuple(r.out_dir, r.summary_json);
      },
      py::arg("json_text"), py::arg("source"), py::arg("base_dir"), py::arg("out_dir"),
      py::arg("resume"), py::arg("force"), py::arg("progress"), py::arg("backend"), py::arg("seed"),
      py::arg("threads"));
}

}  // namespace gpb::python
