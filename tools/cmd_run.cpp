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
                  "job ends naming the silent rank (default 600)")
      ->check(CLI::PositiveNumber);
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

/// Under mpirun: every rank validates the config, and whether it can run on this many ranks,
/// before MPI starts (only rank 0 reports a bad one); an error on any rank is printed once, by
/// that rank, and ends the whole job.
int run_mpi(const CLI::App& cmd, const RunArgs& args) {
  const char* env_rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* env_size = std::getenv("OMPI_COMM_WORLD_SIZE");  // else run_experiment checks
  const bool env_root = env_rank == nullptr || std::string(env_rank) == "0";
  detail::InterruptMessage guard(env_root, kNotStarted);
  // A grid domain is built as this rank's slice only, a CSV domain read by rank 0 and scattered
  // (DomainShard; MPI starts then, not before); elsewhere whole.
  DomainShard shard;
  if (env_rank != nullptr && env_size != nullptr) {
    shard.rank = std::atoi(env_rank);
    shard.ranks = std::atoi(env_size);
    const double timeout = args.mpi_timeout;
    shard.communicator = [timeout] { return Communicator::world(timeout); };
    if (shard.ranks < 1 || shard.rank < 0 || shard.rank >= shard.ranks) shard = DomainShard{};
  }
  std::optional<Experiment> e;  // read once (a data file or CSV domain too) and kept
  try {
    e.emplace(load_experiment(args.config, shard));
    if (env_size != nullptr) e->check_ranks(std::atoi(env_size));
  } catch (const InvalidArgument&) {
    if (env_root) throw;
    return 2;
  }
  int code = 0;
  try {
    code = run_loaded(cmd, args, *e, guard);
  } catch (const std::exception& e) {
    const mpi::World w = mpi::init();
    const auto* lost = dynamic_cast<const RankFailure*>(&e);
    if (lost != nullptr && !lost->reporter()) {  // the reporting rank prints it and aborts
      std::this_thread::sleep_for(std::chrono::seconds(2));
      mpi::abort_all(1);
    }
    std::string msg = e.what();
    for (char& ch : msg) {
      if (ch == '\n') ch = ' ';
    }
    std::cout.flush();
    std::cerr << "gpbandit: error: " << (w.rank == 0 ? "" : "rank " + std::to_string(w.rank) + ": ")
              << msg << std::endl;
    mpi::abort_all(dynamic_cast<const InvalidArgument*>(&e) ? 2 : 1);
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
