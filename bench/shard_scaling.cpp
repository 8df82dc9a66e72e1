// One GP-UCB run (lockstep 1) with the FinitePosterior sharded over the ranks of MPI_COMM_WORLD,
// for bench/shard_scaling.py: every rank builds only its slice of a d-dimensional grid of N
// candidates (Domain::grid_slice), then runs T rounds of argmax + observe and prints one JSON
// line per rank: the slice, per-round wall time, the part of it spent inside collectives
// (communication, waiting for the slowest rank included), the process's CPU time per round,
// payload bytes per round, and peak RSS with the RSS before the domain and posterior existed.
//
//   mpirun -np K shard_scaling --n N [--rounds T] [--dim d] [--lazy] [--threads P] [--out PREFIX]
//
// The choices are the one-rank choices (tests/mpi/sharded_posterior_main.cpp); the rank-0 line
// carries them so a driver can check that every K chose the same candidates.
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  long long n = 1000000;
  int rounds = 20;
  int dim = 2;
  bool lazy = false;
  int threads = 1;
  std::string out;  // PREFIX: rank q writes PREFIX.q.json (else stdout, where mpirun may split)
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "shard_scaling: %s needs a value\n", s.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (s == "--n") {
      a.n = std::atoll(next());
    } else if (s == "--rounds") {
      a.rounds = std::atoi(next());
    } else if (s == "--dim") {
      a.dim = std::atoi(next());
    } else if (s == "--threads") {
      a.threads = std::atoi(next());
    } else if (s == "--out") {
      a.out = next();
    } else if (s == "--lazy") {
      a.lazy = true;
    } else {
      std::fprintf(stderr, "shard_scaling: unknown argument %s\n", s.c_str());
      std::exit(2);
    }
  }
  return a;
}

/// Grid counts with product ≥ n as even as possible over `dim` axes, trimmed to exactly n by the
/// last axis where possible (n a perfect power otherwise rounds up).
std::vector<int> grid_counts(long long n, int dim) {
  std::vector<int> c(static_cast<std::size_t>(dim));
  long long left = n;
  for (int i = 0; i < dim; ++i) {
    const int rest = dim - i;
    c[static_cast<std::size_t>(i)] =
        static_cast<int>(std::ceil(std::pow(static_cast<double>(left), 1.0 / rest) - 1e-9));
    left = (left + c[static_cast<std::size_t>(i)] - 1) / c[static_cast<std::size_t>(i)];
  }
  return c;
}

/// The objective at grid candidate a: a smooth bump evaluated from a's grid digits.
double objective(long long a, const std::vector<int>& counts) {
  double f = 0;
  for (int c : counts) {
    const double x = c == 1 ? 0.5 : static_cast<double>(a % c) / (c - 1);
    a /= c;
    f += std::sin(5 * x) * std::exp(-x);
  }
  return f;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

/// Resident memory now, MiB (/proc/self/statm), before the domain and posterior exist.
double rss_mb() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * 4096.0 / (1024.0 * 1024.0);
}

/// CPU seconds this process has used (every thread), so per-rank work shows even when the
/// machine's cores are shared with other jobs.
double cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  gpb::ContextOptions co;
  co.backend = gpb::Backend::Cpu;
  co.threads = args.threads;
  if (gpb::Communicator::mpi_available()) co.communicator = gpb::Communicator::world();
  const gpb::Communicator& comm = co.communicator;
  const double base_mb = rss_mb();
  const std::vector<int> counts = grid_counts(args.n, args.dim);
  long long n = 1;
  for (int c : counts) n *= c;
  const auto [b, e] = comm.slice(n);
  const std::vector<double> lo(static_cast<std::size_t>(args.dim), 0.0),
      hi(static_cast<std::size_t>(args.dim), 1.0);
  const auto t_setup = Clock::now();
  const gpb::Domain slice = gpb::Domain::grid_slice(lo, hi, counts, b, e);
  const gpb::Context ctx(co);
  gpb::PosteriorOptions po;
  po.noise_variance = 1e-2;
  po.capacity = args.rounds;
  po.mode = gpb::PosteriorMode::Incremental;
  po.lazy = args.lazy;
  gpb::FinitePosterior post(ctx, gpb::Kernel::se(0.1), slice, 1, po);
  const double setup_s = std::chrono::duration<double>(Clock::now() - t_setup).count();
  gpb::Rng noise(1, 0, 9);
  const double width = 2.0;
  std::vector<double> round_s, comm_s, cpu_round_s;
  std::vector<long long> chosen;
  std::vector<unsigned long long> bytes;
  for (int t = 0; t < args.rounds; ++t) {
    const gpb::CommStats c0 = comm.stats();
    const auto t0 = Clock::now();
    const double c_start = cpu_s();
    const int a = post.ucb_argmax(&width, nullptr, nullptr)[0].index;
    const double y = objective(a, counts) + 0.1 * noise.normal();
    post.observe(&a, &y);
    const gpb::CommStats c1 = comm.stats();
    round_s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    comm_s.push_back(c1.seconds - c0.seconds);
    cpu_round_s.push_back(cpu_s() - c_start);
    bytes.push_back(c1.bytes - c0.bytes);
    chosen.push_back(a);
  }
  std::string line = "{\"rank\": " + std::to_string(comm.rank()) +
                     ", \"ranks\": " + std::to_string(comm.size()) +
                     ", \"n\": " + std::to_string(n) + ", \"slice\": [" + std::to_string(b) + ", " +
                     std::to_string(e) + "], \"lazy\": " + (args.lazy ? "true" : "false") +
                     ", \"setup_s\": " + std::to_string(setup_s) +
                     ", \"peak_rss_mb\": " + std::to_string(peak_rss_mb()) +
                     ", \"base_rss_mb\": " + std::to_string(base_mb);
  const auto list = [&](const char* key, const auto& v) {
    line += std::string(", \"") + key + "\": [";
    for (std::size_t i = 0; i < v.size(); ++i) line += (i ? ", " : "") + std::to_string(v[i]);
    line += "]";
  };
  list("round_s", round_s);
  list("comm_s", comm_s);
  list("cpu_s", cpu_round_s);
  list("bytes", bytes);
  if (comm.rank() == 0) list("chosen", chosen);
  line += "}\n";
  FILE* f = args.out.empty()
                ? stdout
                : std::fopen((args.out + "." + std::to_string(comm.rank()) + ".json").c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "shard_scaling: cannot write %s.*.json\n", args.out.c_str());
    return 1;
  }
  std::fputs(line.c_str(), f);
  if (f != stdout) std::fclose(f);
  std::fflush(stdout);
  return 0;
}
