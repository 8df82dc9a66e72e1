// `gpbandit run CONFIG.json [--out DIR] [--resume | --force] [--backend B] [--seed S] [--threads N]
// [--quiet]` for an optimizer config whose objective is a user's program: the flags become
// gpb::CommandRunOptions for gpb::run_command_config (include/gpbandit/optimizer/command_run.hpp,
// which Python's gpbandit.run() calls too); this file adds only the signal handling and the lines
// printed at the end.
#include <csignal>
#include <cstdio>
#include <cstring>

#include <unistd.h>

#include "commands.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/objective/command.hpp"
#include "gpbandit/optimizer/command_run.hpp"

namespace gpb::cli {

namespace {

/// SIGINT/SIGTERM: stop the running evaluation too (it runs in its own process group), then die.
char g_interrupt_message[512];
void on_signal(int sig) {
  CommandObjective::signal_running(SIGKILL);
  (void)!::write(2, g_interrupt_message, std::strlen(g_interrupt_message));
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

int run_optimize_command(const CLI::App& cmd, const RunArgs& args) {
  if (args.mpi) throw InvalidArgument("--mpi: a command objective runs on one machine");
  if (cmd.count("--runs") > 0) throw InvalidArgument("--runs: a command objective has one run");
  CommandRunOptions o;
  o.out = args.out;
  o.resume = args.resume;
  o.force = args.force;
  o.quiet = args.quiet;
  if (cmd.count("--seed") > 0) o.seed = parse_seed(args.seed);
  if (cmd.count("--backend") > 0) o.backend = parse_backend(args.backend);
  if (cmd.count("--threads") > 0) o.threads = args.threads;
  o.on_open = [](const std::string& state) {
    std::snprintf(g_interrupt_message, sizeof g_interrupt_message,
                  "\ngpbandit: interrupted; every completed round is saved in %s (continue with "
                  "--resume)\n",
                  state.c_str());
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
  };
  const CommandRunResult r = run_command_config(args.config, args.config_text, o);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::printf("%s\n", r.best_line.c_str());
  std::printf(
      "state.json:       %s/state.json\nevaluations.csv:  %s/evaluations.csv\nsummary.json:     "
      "%s/summary.json\n",
      r.out_dir.c_str(), r.out_dir.c_str(), r.out_dir.c_str());
  return 0;
}

}  // namespace gpb::cli
