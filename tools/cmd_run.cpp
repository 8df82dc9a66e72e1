// `gpbandit run CONFIG.json [--backend B] [--runs R] [--seed S] [--threads N] [--out DIR]
// [--resume | --force] [--quiet] [--no-plot] [--mpi [--mpi-timeout S]]`: any family's config
// through the one pipeline; prints the results table and where the outputs are.
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>

#include "comm/communicator_impl.hpp"
#include "commands.hpp"
#include "experiment/interrupt.hpp"
#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/comm/mpi_runtime.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "io/atomic_file.hpp"

namespace gpb::cli {

CLI::App* add_run_command(CLI::App& app, RunArgs& args) {
  CLI::App* cmd = app.add_subcommand("run", "run every policy of an experiment config");
  cmd->add_option("config", args.config, "experiment config (JSON), or - to read it from stdin")
      ->required();
  cmd->add_option("--backend", args.backend, "override the config's backend")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_option("--runs", args.runs, "override the number of runs")
      ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--seed", args.seed, "override the seed (an integer in [0, 2^64 - 1])");
  cmd->add_option("--threads", args.threads,
                  "CPU threads for the engine ops, 0 = the idle cores (overrides the config)")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--out", args.out, "output directory (default results/<name>)");
  cmd->add_flag("--resume", args.resume, "continue from the checkpoint in the output directory");
  cmd->add_flag("--force", args.force,
                "delete an unfinished run's checkpoint in the output directory and start over");
  cmd->add_flag("--quiet", args.quiet, "no progress line on stderr");
  cmd->add_flag("--no-plot", args.no_plot, "do not draw the plot");
  cmd->add_flag("--mpi", args.mpi,
                "run under mpirun: rank 0 writes (finite domains: every posterior sharded over "
                "the ranks; fed-pne: clients on the other ranks)");
  cmd->add_option("--mpi-timeout", args.mpi_timeout,
                  "with --mpi, finite domains: seconds a rank waits for the others before the "
                  "job ends naming the silent rank (default 0: adaptive, 20 x the slowest round "
                  "so far and at least 60 s; 600 s until the first round)")
      ->check(CLI::NonNegativeNumber);
  return cmd;
}

std::uint64_t parse_seed(const std::string& s) {
  const auto bad = [&] {
    return InvalidArgument("--seed: must be an integer in [0, 18446744073709551615], got '" + s +
                           "'");
  };
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) throw bad();
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno == ERANGE || end == nullptr || *end != '\0') throw bad();
  return v;
}

namespace {

/// `word` quoted for a POSIX shell when it needs it.
std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789._-/=+:@") == std::string::npos) {
    return word;
  }
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The command line that resumes this run (printed on Ctrl-C).
std::string resume_command(const CLI::App& cmd, const RunArgs& args, const std::string& out) {
  std::string s = "gpbandit run " + shell_word(args.config);
  if (cmd.count("--backend") > 0) s += " --backend " + args.backend;
  if (cmd.count("--runs") > 0) s += " --runs " + std::to_string(args.runs);
  if (cmd.count("--seed") > 0) s += " --seed " + args.seed;
  if (cmd.count("--threads") > 0) s += " --threads " + std::to_string(args.threads);
  s += " --out " + shell_word(out) + " --resume";
  if (args.no_plot) s += " --no-plot";
  if (args.mpi) {
    s = "mpirun ... " + s + " --mpi";
    if (cmd.count("--mpi-timeout") > 0) s += " --mpi-timeout " + std::to_string(args.mpi_timeout);
  }
  return s;
}

RunOptions run_options(const CLI::App& cmd, const RunArgs& args, const Experiment& e) {
  RunOptions opt;
  opt.out_dir = args.out;
  opt.resume = args.resume;
  opt.force = args.force;
  opt.progress = !args.quiet;
  opt.plot = !args.no_plot;
  opt.mpi = args.mpi;
  opt.mpi_timeout_s = args.mpi_timeout;
  opt.handle_signals = true;
  if (cmd.count("--backend") > 0) opt.backend = parse_backend(args.backend);
  if (cmd.count("--runs") > 0) opt.runs = args.runs;
  if (cmd.count("--seed") > 0) opt.seed = parse_seed(args.seed);
  if (cmd.count("--threads") > 0) opt.threads = args.threads;
  const std::string out =
      args.out.empty() ? (std::filesystem::path("results") / e.settings().name).string() : args.out;
  opt.resume_command = resume_command(cmd, args, out);
  return opt;
}

/// What a SIGINT/SIGTERM says before the run starts (the config and its data are being read).
constexpr const char* kNotStarted = "The run had not started: nothing was written.\n";

/// Runs `e`; `guard` (the command's signal message) then says the results are complete.
int run_loaded(const CLI::App& cmd, const RunArgs& args, const Experiment& e,
               detail::InterruptMessage& guard) {
  const ExperimentResult res = run_experiment(e, run_options(cmd, args, e));
  guard.set("The run had finished: its results are complete in " + res.out_dir + ".\n");
  std::cout << res.report << std::flush;
  return 0;
}

int run_here(const CLI::App& cmd, const RunArgs& args) {
  detail::InterruptMessage guard(true, kNotStarted);  // from the first moment to the last
  if (args.config == "-") {  // relative paths in it: from the working directory
    return run_loaded(cmd, args, parse_experiment(args.config_text, "<stdin>", "."), guard);
  }
  return run_loaded(cmd, args, load_experiment(args.config), guard);
}

/// The ranks' verdicts on reading the config, agreed on by every rank: the worst exit code (0:
/// every rank read it) and whether this rank prints its message (the lowest rank that failed).
struct Verdict {
  int code = 0;
  bool report = false;
};

Verdict agree(int code, const mpi::World& w, const Communicator& comm) {
  if (w.size == 1) return {code, code != 0};
  int v[2] = {code, code != 0 ? w.size - w.rank : 0};
  comm.impl().allreduce_max(v, 2, "the ranks' verdicts on the config");
  return {v[0], code != 0 && w.size - v[1] == w.rank};
}

void print_error(const mpi::World& w, std::string msg) {
  for (char& ch : msg) {
    if (ch == '\n') ch = ' ';
  }
  std::cout.flush();
  std::cerr << "gpbandit: error: " << (w.rank == 0 ? "" : "rank " + std::to_string(w.rank) + ": ")
            << msg << std::endl;
}

/// Under mpirun, srun, mpiexec or any other launcher: MPI starts first and its communicator says
/// which rank this is and how many there are (no launcher's environment variables are trusted
/// for that), so a grid is built as this rank's slice only and a CSV or .npy domain is read per
/// slice under every launcher. Every rank reads the config; the ranks agree on the outcome, the
/// lowest rank that failed prints its message once and every rank exits with the same code.
int run_mpi(const CLI::App& cmd, const RunArgs& args) {
  const mpi::LauncherWorld launcher = mpi::launcher_world();
  mpi::World w;
  try {
    w = mpi::init();
  } catch (const InvalidArgument&) {  // a build without MPI: one message, not one per process
    if (launcher.rank == 0) throw;
    return 2;
  }
  if (w.size == 1 && launcher.size > 1) {
    mpi::finalize();
    if (launcher.rank != 0) return 2;
    throw InvalidArgument(
        "--mpi: MPI started this process as a job of 1 rank, but the launcher started " +
        std::to_string(launcher.size) + " processes (" + launcher.source +
        "): this MPI library cannot talk to that launcher; start the job with this MPI's own "
        "mpirun/mpiexec, or under Slurm with srun --mpi=pmix (or pmi2) as your site documents");
  }
  detail::InterruptMessage guard(w.rank == 0, kNotStarted);
  // The communicators of the verdict and of a domain read per slice are made now, while every
  // rank is here (MPI_Comm_dup blocks): a rank that fails to read the config then leaves the others
  // waiting in a collective bounded by the timeout, never in a dup.
  DomainShard shard;
  Communicator verdict;
  if (w.size > 1) {
    verdict = Communicator::world(args.mpi_timeout);
    const Communicator slices = Communicator::world(args.mpi_timeout);
    shard.rank = w.rank;
    shard.ranks = w.size;
    shard.communicator = [slices] { return slices; };
  }
  std::optional<Experiment> e;  // read once (a data file or a CSV/.npy domain too) and kept
  int code = 0;
  std::string message;
  try {
    e.emplace(load_experiment(args.config, shard));
    e->check_ranks(w.size);
  } catch (const InvalidArgument& x) {
    code = 2;
    message = x.what();
  } catch (const std::exception& x) {
    code = 1;
    message = x.what();
  }
  try {
    const Verdict v = agree(code, w, verdict);
    if (v.code != 0) {
      if (v.report) print_error(w, message);
      mpi::finalize();
      return v.code;
    }
    const std::string whole = e->whole_domain(w.size);
    if (w.rank == 0 && !whole.empty()) {
      std::cerr << "gpbandit: warning: each of the " << w.size
                << " MPI ranks holds the whole domain (its points and f; V, mu and sigma^2 are "
                   "still split): "
                << whole << std::endl;
    }
    code = run_loaded(cmd, args, *e, guard);
  } catch (const std::exception& x) {
    const auto* lost = dynamic_cast<const RankFailure*>(&x);
    if (lost != nullptr && !lost->reporter()) {  // the reporting rank prints it and aborts
      std::this_thread::sleep_for(std::chrono::seconds(2));
      mpi::abort_all(1);
    }
    print_error(w, x.what());
    mpi::abort_all(dynamic_cast<const InvalidArgument*>(&x) ? 2 : 1);
  }
  mpi::finalize();
  return code;
}

}  // namespace

int run_command(const CLI::App& cmd, RunArgs& args) {
  std::error_code ec;
  if (args.config == "-") {
    if (args.mpi) {
      throw InvalidArgument("run -: --mpi needs a config file (mpirun gives stdin to rank 0 only)");
    }
    args.config_text.assign(std::istreambuf_iterator<char>(std::cin), {});
    if (args.config_text.empty()) throw InvalidArgument("run -: no config on stdin");
  } else if (std::filesystem::is_directory(args.config, ec)) {
    throw InvalidArgument(args.config + ": is a directory, expected a config file (JSON)");
  } else if (!std::filesystem::is_regular_file(args.config, ec)) {
    throw InvalidArgument(args.config + ": config file not found");
  } else {
    args.config_text = detail::read_whole_file(args.config);
  }
  if (args.resume && args.force) {
    throw InvalidArgument("--resume and --force exclude each other (continue, or start over)");
  }
  if (cmd.count("--seed") > 0) (void)parse_seed(args.seed);
  const std::string kind = config_kind(args.config_text);
  if (kind == "command") return run_optimize_command(cmd, args);
  if (kind == "optimizer") {
    throw InvalidArgument(args.config +
                          ": an optimizer config without an objective: drive it with gpbandit "
                          "init / ask / tell, or add \"objective\": {\"type\": \"command\", "
                          "\"cmd\": [...]} and \"T\" to run a program on its suggestions");
  }
  return args.mpi ? run_mpi(cmd, args) : run_here(cmd, args);
}

}  // namespace gpb::cli
