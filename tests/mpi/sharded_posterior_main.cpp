// MPI test of the sharded FinitePosterior (run under mpirun -np K --oversubscribe by ctest): on
// every rank, a FinitePosterior on a Context whose communicator is MPI_COMM_WORLD is compared with
// the one-rank FinitePosterior over the whole domain (cheap at these sizes), round after round:
// same choices, scores and tie counts (random and lowest ties, R runs batched), bitwise-equal
// gathered μ and σ², history and information gain; in eager, lazy (with deferred rows) and
// recompute modes; GP-BUCB pending rows with exclusion masks (a whole slice excluded for one run),
// given to the sharded posterior as masks and as exclusion lists;
// a domain given as this rank's grid slice; N not a multiple of K; K > N refused on every rank.
// A rank that fails (tests/mpi/shard_fault.sh) ends the job with one message naming it.
// `--backend cuda`: the sharded and the one-rank posteriors run on CUDA (one GPU per rank from the
// node-local rank, or all ranks on one GPU) and must agree bit for bit; a one-rank CPU posterior
// beside them must agree to the last ulps of exp() (μ, σ² relative 1e-10; each CUDA choice a CPU
// best within 1e-10: the grids' symmetric points may tie exactly on one backend only). Exits 77
// (skipped) on every rank when no CUDA device is usable. Exit 0 on success; on a failure the rank
// prints the reason and the job is aborted.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Core>

#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"

namespace {

using namespace gpb;

Communicator g_comm;
Backend g_backend = Backend::Cpu;  // of the sharded posterior and its one-rank reference

void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "rank %d: FAILED: %s\n", g_comm.rank(), what.c_str());
  std::fflush(stderr);
  g_comm.abort(1);
}

Context make_context(const Communicator& comm, Backend backend = g_backend) {
  ContextOptions co;
  co.backend = backend;
  co.threads = 1;
  co.communicator = comm;
  return Context(co);
}

/// The synthetic reward at candidate a (a smooth function plus seeded noise, the same everywhere).
double reward(const Domain& whole, int a, Rng& noise) {
  const double* x = whole.point(a);
  double f = std::sin(6 * x[0]);
  if (whole.dim() > 1) f *= std::cos(4 * x[1]);
  return f + 0.1 * noise.normal();
}

struct Case {
  std::string name;
  PosteriorOptions po;
  bool random_ties = false;
  bool slice_domain = false;  // give the sharded posterior this rank's grid slice
  int batch = 1;              // > 1: GP-BUCB with pending rows and distinct points
  int rounds = 40;
  int runs = 3;
  bool twins = false;  // every candidate twice (exact ties in every round)
};

/// max |a − b| / max |b| over n values.
double relative_gap(const double* a, const double* b, int n) {
  double gap = 0, scale = 1e-300;
  for (int i = 0; i < n; ++i) {
    gap = std::max(gap, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return std::isfinite(gap) ? gap / scale : INFINITY;
}

/// Gathered μ, σ² of the sharded posterior: bitwise those of the one-rank reference of the same
/// backend and, when `cpu` is given (CUDA runs), within 1e-10 of the one-rank CPU's.
void compare_over_domain(const FinitePosterior& sharded, const FinitePosterior& ref, int run,
                         const std::string& at, const FinitePosterior* cpu = nullptr) {
  const int n = ref.size();
  const double* m = sharded.mean(run);
  check(std::memcmp(m, ref.mean(run), sizeof(double) * n) == 0, at + ": mean differs");
  if (cpu != nullptr) check(relative_gap(m, cpu->mean(run), n) <= 1e-10, at + ": mean vs CPU");
  const double* v = sharded.variance(run);
  check(std::memcmp(v, ref.variance(run), sizeof(double) * n) == 0, at + ": variance differs");
  if (cpu != nullptr) {
    check(relative_gap(v, cpu->variance(run), n) <= 1e-10, at + ": variance vs CPU");
  }
}

/// μ + w·σ, as the argmax scores it.
double ucb_score(double mean, double variance, double width) {
  return mean + width * std::sqrt(variance < 0.0 ? 0.0 : variance);
}

/// A grid, or (twins) the grid's points twice over: candidate j and j + N/2 are the same point,
/// so their scores tie exactly in every round, across ranks.
Domain make_domain(const std::vector<double>& lo, const std::vector<double>& hi,
                   const std::vector<int>& counts, bool twins) {
  const Domain g = Domain::grid(lo, hi, counts);
  if (!twins) return g;
  Eigen::MatrixXd rows(2 * g.size(), g.dim());
  rows.topRows(g.size()) = g.points().transpose();
  rows.bottomRows(g.size()) = g.points().transpose();
  return Domain::from_rows(rows);
}

/// The R×N mask as exclusion lists (FinitePosterior::ucb_argmax's other form).
std::vector<std::vector<int>> as_lists(const std::vector<std::uint8_t>& mask, int R, int n) {
  std::vector<std::vector<int>> lists(static_cast<std::size_t>(R));
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < n; ++j) {
      if (mask[static_cast<std::size_t>(r) * n + j] != 0) lists[r].push_back(j);
    }
  }
  return lists;
}

void run_case(const Case& c, const std::vector<double>& lo, const std::vector<double>& hi,
              const std::vector<int>& counts) {
  const Domain whole = make_domain(lo, hi, counts, c.twins);
  const int n = whole.size(), R = c.runs;
  const Context one = make_context(Communicator());
  const Context many = make_context(g_comm);
  const Kernel k = Kernel::matern(KernelType::Matern52, 0.2);
  const auto [b, e] = g_comm.slice(n);
  const Domain mine = !c.slice_domain ? whole
                      : c.twins       ? whole.slice(b, e)
                                      : Domain::grid_slice(lo, hi, counts, b, e);
  FinitePosterior ref(one, k, whole, R, c.po);
  FinitePosterior sp(many, k, mine, R, c.po);
  const Context cpu_one = make_context(Communicator(), Backend::Cpu);
  std::unique_ptr<FinitePosterior> cpu;  // CUDA runs: the one-rank CPU posterior beside them
  if (g_backend == Backend::Cuda)
    cpu = std::make_unique<FinitePosterior>(cpu_one, k, whole, R, c.po);
  std::vector<Rng> tb_cpu;
  check(sp.slice() == std::make_pair(static_cast<int>(b), static_cast<int>(e)), c.name + ": slice");
  check(sp.size() == n, c.name + ": size() is not N");
  std::vector<Rng> tb_ref, tb_sp;
  for (int r = 0; r < R; ++r) {
    tb_ref.emplace_back(11, r, 3);
    tb_sp.emplace_back(11, r, 3);
    tb_cpu.emplace_back(11, r, 3);
  }
  Rng noise(7, 0, 2);
  BetaSchedule beta;
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(R) * n, 0);
  if (c.batch > 1) {  // run 0 never picks from the first half (whole slices excluded at K ≥ 2)
    for (int j = 0; j < n / 2; ++j) mask[static_cast<std::size_t>(j)] = 1;
  }
  int ties_seen = 0;
  for (int t = 1; t <= c.rounds; ++t) {
    const std::string at = c.name + ", round " + std::to_string(t);
    std::vector<int> chosen;
    std::vector<std::uint8_t> ex = mask;
    for (int i = 0; i < c.batch; ++i) {
      std::vector<double> width(static_cast<std::size_t>(R));
      for (int r = 0; r < R; ++r) width[r] = (1.0 + 0.3 * r) * beta.width(t, n, ref.info_gain(r));
      const std::uint8_t* exp = c.batch > 1 ? ex.data() : nullptr;
      const auto a = ref.ucb_argmax(width.data(), exp, c.random_ties ? &tb_ref : nullptr);
      // The sharded posterior takes the batch's exclusions as lists every other round.
      const auto s =
          c.batch > 1 && t % 2 == 0
              ? sp.ucb_argmax(width.data(), as_lists(ex, R, n), c.random_ties ? &tb_sp : nullptr)
              : sp.ucb_argmax(width.data(), exp, c.random_ties ? &tb_sp : nullptr);
      for (int r = 0; r < R; ++r) {
        check(a[r].index == s[r].index, at + ": run " + std::to_string(r) + " chose " +
                                            std::to_string(s[r].index) + ", one rank " +
                                            std::to_string(a[r].index));
        check(std::memcmp(&a[r].score, &s[r].score, sizeof(double)) == 0 && a[r].ties == s[r].ties,
              at + ": score or tie count differs");
        if (a[r].ties > 1) ++ties_seen;
      }
      if (cpu != nullptr) {  // CUDA's choice is a CPU best up to the last ulps of exp()
        const auto h = cpu->ucb_argmax(width.data(), exp, c.random_ties ? &tb_cpu : nullptr);
        for (int r = 0; r < R; ++r) {
          const double got =
              ucb_score(cpu->mean(r)[a[r].index], cpu->variance(r)[a[r].index], width[r]);
          check(std::abs(got - h[r].score) <= 1e-10 * (1.0 + std::abs(h[r].score)),
                at + ": run " + std::to_string(r) + " CUDA chose " + std::to_string(a[r].index) +
                    ", not a CPU best (CPU chose " + std::to_string(h[r].index) + ")");
        }
      }
      std::vector<int> pick(static_cast<std::size_t>(R));
      for (int r = 0; r < R; ++r) pick[r] = a[r].index;
      if (c.batch > 1) {
        for (int r = 0; r < R; ++r) ex[static_cast<std::size_t>(r) * n + pick[r]] = 1;
        ref.add_pending(pick.data());
        sp.add_pending(pick.data());
        if (cpu != nullptr) cpu->add_pending(pick.data());
      }
      chosen.insert(chosen.end(), pick.begin(), pick.end());
    }
    std::vector<double> y(chosen.size());
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = reward(whole, chosen[i], noise);
    if (c.batch > 1) {  // y is batch-major here; resolve_pending wants run-major
      std::vector<double> yr(y.size());
      for (int i = 0; i < c.batch; ++i)
        for (int r = 0; r < R; ++r) yr[static_cast<std::size_t>(r) * c.batch + i] = y[i * R + r];
      ref.resolve_pending(yr.data());
      sp.resolve_pending(yr.data());
      if (cpu != nullptr) cpu->resolve_pending(yr.data());
    } else {
      ref.observe(chosen.data(), y.data());
      sp.observe(chosen.data(), y.data());
      if (cpu != nullptr) cpu->observe(chosen.data(), y.data());
    }
    if (t % 10 == 0) compare_over_domain(sp, ref, t % R, at, cpu.get());
  }
  for (int r = 0; r < R; ++r) {
    check(sp.history(r) == ref.history(r), c.name + ": history differs");
    check(sp.info_gain(r) == ref.info_gain(r), c.name + ": info gain differs");
    compare_over_domain(sp, ref, r, c.name + ", end", cpu.get());
  }
  check(sp.recompute_mode() == ref.recompute_mode(), c.name + ": mode differs");
  check(!c.random_ties || ties_seen > 0, c.name + ": no tie was exercised");
  if (g_comm.rank() == 0)
    std::printf("  %-34s %3d rounds, %d tied choices: identical\n", c.name.c_str(), c.rounds,
                ties_seen);
}

/// Communicator::slice and owner agree: the slices tile [0, n) and owner(a) holds a.
void check_slices() {
  for (const long long n : {static_cast<long long>(g_comm.size()), 437LL, 70303LL, 1000003LL}) {
    long long next = 0;
    for (int q = 0; q < g_comm.size(); ++q) {
      const auto [b, e] = g_comm.slice(n, q);
      check(b == next && e > b, "slices do not tile [0, n)");
      for (const long long a : {b, (b + e) / 2, e - 1})
        check(g_comm.owner(n, a) == q, "owner(" + std::to_string(a) + ") is not its slice's rank");
      next = e;
    }
    check(next == n, "slices do not end at n");
  }
}

/// More ranks than candidates: every rank refuses, with the same message.
void refuse_too_many_ranks() {
  const Domain tiny = Domain::grid({0.0}, {1.0}, {g_comm.size() - 1});
  const Context many = make_context(g_comm);
  bool thrown = false;
  try {
    FinitePosterior p(many, Kernel::se(0.3), tiny, 1, PosteriorOptions{});
  } catch (const InvalidArgument& e) {
    thrown = std::string(e.what()).find("ranks for a domain of") != std::string::npos;
  }
  check(thrown, "K > N was not refused with InvalidArgument");
}

/// Every candidate excluded: InvalidArgument on every rank (no rank left waiting).
void refuse_all_excluded() {
  const Domain d = Domain::grid({0.0}, {1.0}, {7 * g_comm.size() + 3});
  const Context many = make_context(g_comm);
  FinitePosterior p(many, Kernel::se(0.3), d, 1, PosteriorOptions{});
  std::vector<std::uint8_t> all(static_cast<std::size_t>(d.size()), 1);
  const double w = 1.0;
  bool thrown = false;
  try {
    (void)p.ucb_argmax(&w, all.data(), nullptr);
  } catch (const InvalidArgument&) {
    thrown = true;
  }
  check(thrown, "all candidates excluded was not refused");
}

}  // namespace

int run_all() {
  if (g_comm.rank() == 0) {
    std::printf("sharded FinitePosterior (%s) over %d ranks vs one rank:\n",
                g_backend == Backend::Cuda ? "cuda" : "cpu", g_comm.size());
  }
  check_slices();
  PosteriorOptions eager;
  eager.noise_variance = 1e-2;
  eager.capacity = 16;  // grows during the run
  eager.mode = PosteriorMode::Incremental;
  eager.lazy = false;
  PosteriorOptions lazy = eager;
  lazy.lazy = true;
  PosteriorOptions recompute = eager;
  recompute.mode = PosteriorMode::Recompute;
  const std::vector<double> lo2{0.0, 0.0}, hi2{1.0, 1.0};
  const std::vector<int> small{23, 19};  // 437 candidates: not a multiple of 2, 3 or 4
  run_case({"eager, lowest ties", eager, false, false, 1, 40, 3}, lo2, hi2, small);
  run_case({"eager, random ties", eager, true, false, 1, 40, 3}, lo2, hi2, small);
  run_case({"lazy, random ties, slice domain", lazy, true, true, 1, 40, 3}, lo2, hi2, small);
  run_case({"recompute, random ties", recompute, true, false, 1, 25, 2}, lo2, hi2, small);
  run_case({"GP-BUCB q=3, masks, random ties", lazy, true, false, 3, 12, 2}, lo2, hi2, small);
  run_case({"twins, eager, random ties", eager, true, false, 1, 30, 2, true}, lo2, hi2, {13, 11});
  run_case({"twins, lazy, random ties", lazy, true, true, 1, 30, 2, true}, lo2, hi2, {41, 37});
  run_case({"twins, GP-BUCB q=2, lowest ties", eager, false, false, 2, 10, 2, true}, lo2, hi2,
           {13, 11});
  // Lazy blocks that really defer rows: ≥ 32 blocks of 512 on every rank.
  const std::vector<int> big{307, 229};  // 70303 candidates
  run_case({"lazy deferred, random ties", lazy, true, true, 1, 30, 2}, lo2, hi2, big);
  refuse_too_many_ranks();
  refuse_all_excluded();
  const CommStats st = g_comm.stats();
  if (g_comm.rank() == 0)
    std::printf("ok: %llu collectives, %llu payload bytes per rank\n",
                static_cast<unsigned long long>(st.collectives),
                static_cast<unsigned long long>(st.bytes));
  return 0;
}

int main(int argc, char** argv) {
  // GPB_TEST_TIMEOUT: seconds a collective may wait (tests/mpi/shard_fault.sh sets a short one).
  const char* t = std::getenv("GPB_TEST_TIMEOUT");
  g_comm = Communicator::world(t != nullptr ? std::atof(t) : 60.0);
  if (argc == 3 && std::string(argv[1]) == "--backend" && std::string(argv[2]) == "cuda") {
    g_backend = Backend::Cuda;
    if (!Context::cuda_compiled() || Context::cuda_device_count() == 0) {
      if (g_comm.rank() == 0) std::printf("skipped: no CUDA device\n");
      return 77;  // every rank: ctest's SKIP_RETURN_CODE
    }
  } else if (argc != 1) {
    if (g_comm.rank() == 0) std::fprintf(stderr, "usage: %s [--backend cuda]\n", argv[0]);
    return 2;
  }
  try {
    return run_all();
  } catch (const RankFailure& e) {  // a rank died or hung: one message, then end the job
    if (e.reporter()) {
      std::fprintf(stderr, "error: %s\n", e.what());
      std::fflush(stderr);
    } else {
      std::this_thread::sleep_for(std::chrono::seconds(2));
    }
    g_comm.abort(1);
  }
}
