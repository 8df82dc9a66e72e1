#include "test_support.hpp"

#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace gpb::test {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "gpbandit-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

CommandResult run_command(const std::string& command) {
  CommandResult r;
  const std::string full = command + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

CommandResult run_cli(const std::string& args) {
  return run_command(std::string("'") + GPB_CLI_PATH + "' " + args);
}

gpb::PolicyEnv policy_env(const gpb::Context& ctx, const gpb::Domain& domain, const gpb::Kernel& k,
                          int runs, int horizon, std::uint64_t seed, double noise_variance) {
  gpb::PolicyEnv env;
  env.ctx = &ctx;
  env.domain = &domain;
  env.kernel = k;
  for (int r = 0; r < runs; ++r) env.run_ids.push_back(static_cast<std::uint32_t>(r));
  env.horizon = horizon;
  env.seed = seed;
  env.noise_variance = noise_variance;
  return env;
}

std::vector<std::vector<int>> play(gpb::Policy& policy, int runs, int T,
                                   const std::function<double(int, int)>& reward) {
  std::vector<std::vector<int>> chosen(static_cast<std::size_t>(runs));
  int done = 0;
  for (int round = 1; done < T; ++round) {
    gpb::Round rd;
    rd.index = round;
    rd.done = done;
    rd.q = std::min(policy.batch_size(), T - done);
    const gpb::Selection s = policy.select(rd);
    gpb::Rewards y;
    for (int r = 0; r < runs; ++r) {
      for (int i = 0; i < s.q; ++i) {
        chosen[static_cast<std::size_t>(r)].push_back(s.at(r, i));
        y.y.push_back(reward(r, s.at(r, i)));
      }
    }
    policy.observe(s, y);
    done += rd.q;
  }
  return chosen;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string invalid_argument_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const gpb::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool process_gone(const std::string& pid_text, double wait_s) {
  const std::string pid = pid_text.substr(0, pid_text.find_first_of(" \n"));
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) return false;
  const auto gone = [&] {
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const std::size_t paren = line.rfind(')');  // "pid (comm) S ...": the state after the name
    return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z';
  };
  for (int i = 0; !gone(); ++i) {
    if (i * 0.01 >= wait_s) return false;
    ::usleep(10000);
  }
  return true;
}

namespace {
void set_env(const std::string& name, const char* value) {
  if (value == nullptr) {
    ::unsetenv(name.c_str());
  } else {
    ::setenv(name.c_str(), value, 1);
  }
}
}  // namespace

ScopedEnv::ScopedEnv(std::string name, const char* value) : name_(std::move(name)) {
  if (const char* old = std::getenv(name_.c_str())) saved_ = old;
  set_env(name_, value);
}

ScopedEnv::~ScopedEnv() {
  set_env(name_, saved_ ? saved_->c_str() : nullptr);
}

gpb::Context make_cpu_context(int threads) {
  gpb::ContextOptions o;
  o.backend = gpb::Backend::Cpu;
  o.threads = threads;
  return gpb::Context(o);
}

gpb::Domain related_fingerprints(long long n, int bits, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 2);
  const int scaffolds = 4;
  std::vector<std::int64_t> base(static_cast<std::size_t>(scaffolds) * bits), v;
  for (auto& x : base) x = rng.uniform() < 0.1 ? 1 : 0;
  for (long long i = 0; i < n; ++i) {
    const int s = static_cast<int>(rng.below(scaffolds));
    const double flip = 0.01 + 0.05 * rng.uniform();
    for (int b = 0; b < bits; ++b) {
      const std::int64_t x = base[static_cast<std::size_t>(s) * bits + b];
      v.push_back(rng.uniform() < flip ? 1 - x : x);
    }
  }
  return gpb::Domain::fingerprints(
      gpb::Fingerprints::from_dense(v.data(), n, bits, gpb::FingerprintKind::Bits));
}

gpb::Domain random_domain(int n, int d, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 99);
  Eigen::MatrixXd rows(n, d);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < d; ++k) rows(i, k) = rng.uniform();
  }
  return gpb::Domain::from_rows(rows);
}

Eigen::MatrixXd uniform_rows(int m, int d, double width, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 1);
  Eigen::MatrixXd X(m, d);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < d; ++j) X(i, j) = width * rng.uniform();
  }
  return X;
}

}  // namespace gpb::test
