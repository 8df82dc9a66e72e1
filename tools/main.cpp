// gpbandit command line: `run`, `list`, `init`, `ask`, `tell`, `best`, `forget`, `--version`.
// Built as gpbandit-main; users run the `gpbandit` launcher beside it (tools/launcher.cpp), which
// answers `--version` and `--help` without loading the library and execs this program otherwise.
//
// Exit codes (the one table: docs/reliability.md): 0 success; 2 bad input (invalid config or
// flags, missing file, CUDA requested where there is none); 1 any other error; 130/143 a signal.
// Every error is one line on stderr: "gpbandit: error: ...".
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"

namespace {

int report(int code, std::string message) {
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::cout.flush();
  std::cerr << "gpbandit: error: " << message << std::endl;
  return code;
}

bool is_no_device(const std::string& what) {
  return what.find("no CUDA device") != std::string::npos ||
         what.find("no CUDA-capable device") != std::string::npos ||
         what.find("no device") != std::string::npos;
}

/// OpenMP threads waiting for work sleep (OMP_WAIT_POLICY=passive) unless the user chose a
/// policy. libgomp reads the variable once, when it is loaded (before main), so the only way to
/// change it for this process is to start it again with the variable set: the first thing main
/// does. On a busy machine active waiting (libgomp's default spins ~0.3 ms after every parallel
/// loop) makes runs several times slower in wall time (bench/RESULTS.md, "Threads"). Only `run`
/// starts thread teams, so only `run` pays for the second start (~0.1 s of CPU, mostly loading
/// the CUDA libraries). If the re-execution fails (no /proc), the run goes on with the default.
/// Started through the `gpbandit` launcher (tools/launcher.cpp), the variable is already set.
void prefer_passive_omp_waiting(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) != "run") return;
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  ::execv("/proc/self/exe", argv);
}

}  // namespace

int main(int argc, char** argv) {
  prefer_passive_omp_waiting(argc, argv);
  // A file-size limit (ulimit -f) makes a write fail with EFBIG, reported with the file's name
  // like any other write error, instead of SIGXFSZ killing the process silently mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"gpbandit: Gaussian-process bandits over large finite domains"};
  app.name("gpbandit");
  bool version = false;
  app.add_flag("--version", version, "print the version and exit");
  gpb::cli::RunArgs run_args;
  std::string list_what;
  CLI::App* run = gpb::cli::add_run_command(app, run_args);
  CLI::App* list = gpb::cli::add_list_command(app, list_what);
  gpb::cli::StateArgs state_args;
  const gpb::cli::StateCommands state = gpb::cli::add_state_commands(app, state_args);
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    return report(2, e.what());
  }
  try {
    if (version) {
      std::cout << "gpbandit " << GPB_VERSION << " (" << (GPB_HAS_CUDA ? "cuda+cpu" : "cpu")
                << " build)\n";
      return 0;
    }
    if (run->parsed()) return gpb::cli::run_command(*run, run_args);
    if (list->parsed()) return gpb::cli::list_command(list_what);
    if (state.parsed()) return gpb::cli::state_command(state, state_args);
    return report(
        2,
        "a command is required: run, list, init, ask, tell, best or forget (see gpbandit --help)");
  } catch (const gpb::InvalidArgument& e) {
    return report(2, e.what());
  } catch (const gpb::NoCudaBuildError& e) {
    return report(2, e.what());
  } catch (const gpb::CudaError& e) {
    return report(is_no_device(e.what()) ? 2 : 1, e.what());
  } catch (const std::exception& e) {
    return report(1, e.what());
  }
}
