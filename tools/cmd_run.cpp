// `gpbandit run CONFIG.json [--backend B] [--runs R] [--seed S] [--out DIR] [--resume] [--quiet]
// [--no-plot]`: runs an experiment and prints a results table.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "gpbandit/dpgibo/experiment.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment.hpp"
#include "gpbandit/xarmed/experiment.hpp"

namespace gpb::cli {

CLI::App* add_run_command(CLI::App& app, RunArgs& args) {
  CLI::App* cmd = app.add_subcommand("run", "run every policy of an experiment config");
  cmd->add_option("config", args.config, "experiment config (JSON)")->required();
  cmd->add_option("--backend", args.backend, "override the config's backend")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_option("--runs", args.runs, "override the number of runs")
      ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--seed", args.seed, "override the seed");
  cmd->add_option("--threads", args.threads,
                  "CPU threads for the engine ops, 0 = all cores (overrides the config)")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--out", args.out, "output directory (default results/<name>)");
  cmd->add_flag("--resume", args.resume, "continue from the checkpoint in the output directory");
  cmd->add_flag("--quiet", args.quiet, "no progress line on stderr");
  cmd->add_flag("--no-plot", args.no_plot, "do not draw regret.png");
  cmd->add_flag("--mpi", args.mpi, "fed-pne configs: server on rank 0, clients on the others");
  return cmd;
}

namespace {

void print_table(const ExperimentResult& res) {
  std::size_t w = 6;
  for (const auto& p : res.policies) w = std::max(w, p.label.size());
  const int width = static_cast<int>(w);
  std::printf("%-*s  %-30s  %-30s  %9s\n", width, "policy", "cumulative regret (mean ± sd)",
              "simple regret (mean ± sd)", "seconds");
  for (const auto& p : res.policies) {
    char cum[64], simple[64];
    std::snprintf(cum, sizeof cum, "%.4g ± %.3g", p.cumulative_mean, p.cumulative_sd);
    std::snprintf(simple, sizeof simple, "%.4g ± %.3g", p.simple_mean, p.simple_sd);
    // "±" is two bytes in UTF-8 but one column: pad one extra byte.
    std::printf("%-*s  %-30s  %-30s  %9.2f\n", width, p.label.c_str(), cum, simple, p.seconds);
  }
  std::printf("\nbackend:      %s\n", res.backend.c_str());
  std::printf("runs.csv:     %s\n", res.runs_csv.c_str());
  std::printf("summary.json: %s\n", res.summary_json.c_str());
  if (res.plotted) {
    std::printf("regret.png:   %s\n", res.plot_png.c_str());
  } else {
    std::printf("regret.png:   %s\n", res.plot_message.c_str());
  }
}

}  // namespace

RunOptions run_options(const CLI::App& cmd, const RunArgs& args) {
  RunOptions opt;
  opt.out_dir = args.out;
  opt.resume = args.resume;
  opt.progress = !args.quiet;
  opt.plot = !args.no_plot;
  if (cmd.count("--backend") > 0) opt.backend = parse_backend(args.backend);
  if (cmd.count("--runs") > 0) opt.runs = args.runs;
  if (cmd.count("--seed") > 0) opt.seed = args.seed;
  if (cmd.count("--threads") > 0) opt.threads = args.threads;
  return opt;
}

int run_command(const CLI::App& cmd, const RunArgs& args) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(args.config, ec)) {
    throw InvalidArgument(args.config + ": config file not found");
  }
  if (xarmed::is_xarmed_config(args.config)) {  // "experiment": "fed-pne"
    xarmed::XRunOptions xo;
    xo.out_dir = args.out;
    xo.plot = !args.no_plot;
    xo.progress = !args.quiet;
    xo.mpi = args.mpi;
    if (args.resume)
      throw InvalidArgument("--resume: fed-pne runs are not checkpointed; run again");
    if (cmd.count("--runs") > 0) xo.runs = args.runs;
    if (cmd.count("--seed") > 0) xo.seed = args.seed;
    if (cmd.count("--threads") > 0) xo.threads = args.threads;
    return xarmed::run_xarmed_command(args.config, xo);
  }
  if (args.mpi) throw InvalidArgument("--mpi: only for configs with \"experiment\": \"fed-pne\"");
  if (dpgibo::is_dpgibo_config(args.config)) return run_dpgibo_command(cmd, args);
  const ExperimentConfig config = load_experiment_config(args.config);
  const RunOptions opt = run_options(cmd, args);
  const ExperimentResult res = run_experiment(config, opt);
  print_table(res);
  return 0;
}

}  // namespace gpb::cli
