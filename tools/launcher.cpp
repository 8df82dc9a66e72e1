// `gpbandit`, the program users run: a small launcher that answers `gpbandit --version` and
// `gpbandit --help` itself and otherwise replaces itself (execv, same pid, same arguments) with
// gpbandit-main, the command-line program (tools/main.cpp) installed beside it.
//
// Why: gpbandit-main links libgpbandit, which in a CUDA build needs cuBLAS, cuBLASLt, cuSOLVER,
// cuSPARSE and nvJitLink (about 1 GB of libraries) and Open MPI; the dynamic loader maps and
// relocates all of them before main() runs, so `--version` cost 265 MB of resident memory and
// 1.2 s. This program links only the C and C++ runtimes. The help text is tools/cli_help.inc,
// generated from gpbandit-main --help by tools/update_cli_help.py (the CTest CliHelpUpToDate
// fails when it differs).
//
// `run` also gets OMP_WAIT_POLICY=passive here (unless set), so that gpbandit-main does not have
// to start itself a second time to set it (tools/main.cpp, prefer_passive_omp_waiting).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpbandit/build_config.hpp"

namespace {

const char kHelp[] =
#include "cli_help.inc"
    ;

/// gpbandit-main beside this program (found through /proc/self/exe, else argv[0]), or "".
std::string main_program(const char* argv0) {
  std::string self;
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    self.assign(buf, static_cast<std::size_t>(n));
  } else if (argv0 != nullptr && std::strchr(argv0, '/') != nullptr) {
    self = argv0;
  }
  const std::size_t slash = self.rfind('/');
  return slash == std::string::npos ? std::string() : self.substr(0, slash + 1) + "gpbandit-main";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("gpbandit %s (%s build)\n", GPB_VERSION, GPB_HAS_CUDA ? "cuda+cpu" : "cpu");
    return 0;
  }
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "run") == 0 && std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
  }
  const std::string program = main_program(argc > 0 ? argv[0] : nullptr);
  if (!program.empty()) ::execv(program.c_str(), argv);
  std::fprintf(stderr,
               "gpbandit: error: cannot run the command-line program %s: %s (it is installed "
               "beside gpbandit; reinstall gpbandit)\n",
               program.empty() ? "gpbandit-main" : program.c_str(),
               program.empty() ? "cannot find this program's folder" : std::strerror(errno));
  return 1;
}
