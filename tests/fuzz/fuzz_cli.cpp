// libFuzzer target: the command-line parser of `gpbandit` (CLI11 wired as in tools/main.cpp,
// with the real `run`, `list`, `init`, `ask`, `tell` and `best` declarations of tools/). The
// input is split at '\n' into argv[1..]. Nothing is executed: only parsing. Oracle: parsing
// either succeeds or throws a CLI::Error (CLI::ParseError, CallForHelp); a parsed `run` has a
// config path and --runs within its declared range.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "commands.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> args;
  std::string cur;
  for (std::size_t i = 0; i < size; ++i) {
    const char ch = static_cast<char>(data[i]);
    if (ch == '\n') {
      args.push_back(cur);
      cur.clear();
    } else if (ch != '\0') {
      cur.push_back(ch);
    }
  }
  args.push_back(cur);
  if (args.size() > 64) return 0;
  std::vector<char*> argv;
  std::string prog = "gpbandit";
  argv.push_back(prog.data());
  for (std::string& a : args) argv.push_back(a.data());

  CLI::App app{"gpbandit"};
  app.name("gpbandit");
  bool version = false;
  app.add_flag("--version", version, "print the version and exit");
  gpb::cli::RunArgs run_args;
  std::string list_what;
  CLI::App* run = gpb::cli::add_run_command(app, run_args);
  gpb::cli::add_list_command(app, list_what);
  gpb::cli::StateArgs state_args;
  const gpb::cli::StateCommands state = gpb::cli::add_state_commands(app, state_args);
  app.require_subcommand(0, 1);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::Error&) {
    return 0;
  } catch (const std::exception& e) {
    gpb::fuzz::check(false, e.what());
  }
  if (run->parsed()) {
    gpb::fuzz::check(!run_args.config.empty() || run->count("config") > 0,
                     "run parsed without its config");
    gpb::fuzz::check(run->count("--runs") == 0 || (run_args.runs >= 1 && run_args.runs <= 1 << 24),
                     "--runs outside its declared range");
  }
  if (state.ask->parsed()) {
    gpb::fuzz::check(state.ask->count("state") > 0 && state_args.q >= 1,
                     "ask parsed without its state or with --q < 1");
  }
  if (state.tell->parsed()) {
    gpb::fuzz::check(state_args.lock_timeout_s >= 0, "--lock-timeout below its declared range");
  }
  return 0;
}
