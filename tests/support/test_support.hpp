// Helpers shared by the tests: temporary directories, running the CLI, reading files.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/policy/policy.hpp"

namespace gpb::test {

/// A fresh empty directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  /// path()/name
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Result of running a command: exit code and combined stdout+stderr.
struct CommandResult {
  int exit_code = -1;
  std::string output;
};

/// Runs `gpbandit <args>` (the built CLI) through the shell, capturing stdout and stderr.
CommandResult run_cli(const std::string& args);
/// Runs an arbitrary shell command, capturing stdout and stderr.
CommandResult run_command(const std::string& command);

/// A PolicyEnv over `domain` and `k` for runs 0..runs−1 with horizon T, the given seed and λ.
gpb::PolicyEnv policy_env(const gpb::Context& ctx, const gpb::Domain& domain, const gpb::Kernel& k,
                          int runs, int horizon, std::uint64_t seed, double noise_variance);

/// Plays `policy` for T evaluations per run; reward(run, candidate) gives each reward and is asked
/// run by run, in selection order, within each round. Returns the chosen candidates of each run.
std::vector<std::vector<int>> play(gpb::Policy& policy, int runs, int T,
                                   const std::function<double(int, int)>& reward);

/// The message of the gpb::InvalidArgument that f() throws ("" when it throws none).
std::string invalid_argument_of(const std::function<void()>& f);
/// Whether `text` contains `part`.
bool contains(const std::string& text, const std::string& part);
/// Whether the process whose pid `pid_text` starts with ("1234\n") is gone or a zombie (dead,
/// not yet reaped by init) within `wait_s` seconds; false for text that is not a pid.
bool process_gone(const std::string& pid_text, double wait_s);
/// Sets the environment variable `name` to `value` (unsets it for nullptr) for its lifetime, then
/// restores what was there.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

/// A CPU Context with `threads` threads (0: the Context's default).
gpb::Context make_cpu_context(int threads = 0);

/// n points uniform in [0, 1]^d (stream 99 of Rng `seed`), as the posterior tests' domain.
gpb::Domain random_domain(int n, int d, std::uint64_t seed);

/// m×d points (one per row) uniform on [0, width]^d from Philox stream (seed, 0, 1), row by row:
/// the hyperparameter-fit tests' data (their calibrations are of exactly these points).
Eigen::MatrixXd uniform_rows(int m, int d, double width, std::uint64_t seed);

/// n bit fingerprints of `bits` bits with a range of similarities: four random "scaffolds"
/// (density 0.1), each row one of them with 1–6 % of its bits flipped (stream 2 of Rng `seed`).
gpb::Domain related_fingerprints(long long n, int bits, std::uint64_t seed);

/// Whole file as a string (empty if missing).
std::string read_file(const std::string& path);
/// Writes text to a file (truncating).
void write_file(const std::string& path, const std::string& text);

}  // namespace gpb::test
