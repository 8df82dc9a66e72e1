// The one experiment pipeline (docs/pipeline.md): every family's runs go through here.
//
// Validated Experiment → lock the output folder → checkpoint or fresh start → groups of runs
// (lockstep: config, memory budget, ~2 minutes of work each) × policies, each (policy, group) a
// unit stepped by the Family and saved to the checkpoint → runs.csv (policy-major, then by run:
// its bytes never depend on the grouping nor on resumption), summary.json, the plot.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include "comm/communicator_impl.hpp"
#include "engine/detail/quiet_recompute.hpp"
#include "experiment/checkpoint.hpp"
#include "experiment/config_identity.hpp"
#include "experiment/family.hpp"
#include "experiment/interrupt.hpp"
#include "experiment/output_lock.hpp"
#include "experiment/pipeline_io.hpp"
#include "experiment/plot.hpp"
#include "experiment/progress.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/io/log.hpp"
#include "io/atomic_file.hpp"

namespace gpb {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using detail::Checkpoint;
using detail::Family;
using detail::UnitRecord;

/// From this many candidates on (10^7), the set-up of a unit (objective values, posterior:
/// minutes at 10^8) is reported while it runs (Progress::begin_setup). (Test hook:
/// GPB_TEST_SETUP_CANDIDATES overrides it.)
long long setup_note_candidates() {
  const char* s = std::getenv("GPB_TEST_SETUP_CANDIDATES");
  return s != nullptr && *s != '\0' ? std::atoll(s) : 10'000'000;
}

/// Target wall time of one group of runs when "lockstep" is 0: a checkpoint at least this often.
/// (Test hook: GPB_TEST_GROUP_SECONDS overrides it.)
double group_seconds() {
  const char* s = std::getenv("GPB_TEST_GROUP_SECONDS");
  return s != nullptr && *s != '\0' ? std::atof(s) : 120.0;
}

/// Rank 0's `values` to every rank (one max for the length, one bitwise OR of the words, the
/// other ranks contributing zeros).
void broadcast(const Communicator& comm, std::vector<long long>& values) {
  if (comm.size() == 1) return;
  int n = comm.rank() == 0 ? static_cast<int>(values.size()) : 0;
  comm.impl().allreduce_max(&n, 1, "pipeline plan (length)");
  std::vector<std::uint64_t> words(static_cast<std::size_t>(n), 0);
  if (comm.rank() == 0) std::memcpy(words.data(), values.data(), words.size() * 8);
  comm.impl().allreduce_or(words.data(), n, "pipeline plan");
  values.resize(static_cast<std::size_t>(n));
  std::memcpy(values.data(), words.data(), words.size() * 8);
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// What one invocation resolved from the settings and the options.
struct Invocation {
  int runs = 1;
  std::uint64_t seed = 0;
  Backend backend = Backend::Auto;
  int threads = 0;
  std::string out_dir, hash;
  json identity;            ///< what --resume compares (config_identity.hpp); hash is its hash
  std::string legacy_hash;  ///< the hash of the config text that older checkpoints carry
};

Invocation resolve(const Family& f, const RunOptions& o) {
  const ExperimentSettings& s = f.settings();
  Invocation inv;
  inv.runs = o.runs.value_or(s.runs);
  if (inv.runs < 1) throw InvalidArgument("--runs: must be >= 1, got " + std::to_string(inv.runs));
  inv.seed = o.seed.value_or(s.seed);
  inv.backend = o.backend.value_or(s.backend);
  inv.threads = o.threads.value_or(s.threads);
  if (inv.threads < 0) throw InvalidArgument("--threads: must be >= 0");
  inv.out_dir = o.out_dir.empty() ? (fs::path("results") / s.name).string() : o.out_dir;
  const std::string backend_flag = o.backend ? backend_name(*o.backend) : "config";
  std::ostringstream key;
  key << s.config_json << "|runs=" << inv.runs << "|seed=" << inv.seed
      << "|backend=" << backend_flag;
  inv.legacy_hash = detail::fnv1a_hex(key.str());
  inv.identity = detail::experiment_identity(s.config_json, inv.runs, inv.seed, backend_flag);
  inv.hash = detail::fnv1a_hex(inv.identity.dump());
  return inv;
}

Context make_context(const ExperimentSettings& s, const Invocation& inv, const Communicator& comm) {
  if (inv.backend == Backend::Cuda && Context::cuda_compiled() &&
      Context::cuda_device_count() == 0) {
    throw InvalidArgument(
        "backend 'cuda' requested but no CUDA device is available (use --backend cpu or auto)");
  }
  ContextOptions o;
  o.backend = inv.backend;
  o.memory_budget_bytes = s.memory_budget_bytes;
  o.threads = inv.threads;
  o.precision = s.precision;
  o.communicator = comm;  // sharding families: every FinitePosterior holds this rank's slice
  return Context(o);
}

/// The lockstep plan: how many runs a group may hold, and the note explaining a limit.
struct MemoryPlan {
  long long cap = LLONG_MAX;  ///< runs per group that fit the budget (0: recompute mode)
  json summary = json::object();
  std::string note;
};

std::string human_bytes(double b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", b >= 1e9 ? b / 1e9 : b / 1e6, b >= 1e9 ? "GB" : "MB");
  return buf;
}

MemoryPlan plan_memory(const Family& f, const Invocation& inv, const Context& ctx) {
  MemoryPlan m;
  const detail::MemoryNeeds need = f.memory(ctx.communicator().size());
  const std::size_t budget_bytes = ctx.memory_budget_bytes();  // automatic budget resolved
  const double budget = static_cast<double>(budget_bytes);
  const int lockstep = f.settings().lockstep;
  m.summary["budget_bytes"] = budget_bytes;
  m.summary["budget"] = f.settings().memory_budget_bytes == 0 ? "automatic" : "memory_budget_mb";
  if (!(need.bytes_per_run > 0)) {
    m.summary["model"] = "none (no posterior over a finite domain)";
    return m;
  }
  m.cap = static_cast<long long>(std::floor(budget / need.bytes_per_run));
  m.summary["model"] = need.model;
  m.summary["bytes_per_run"] = need.bytes_per_run;
  m.summary["max_lockstep"] = m.cap;
  m.summary["mode"] = m.cap >= 1 ? "incremental" : "recompute";
  const std::string budget_text =
      (f.settings().memory_budget_bytes == 0 ? "the automatic memory budget of "
                                             : "memory_budget_mb = ") +
      std::to_string(budget_bytes >> 20) + (f.settings().memory_budget_bytes == 0 ? " MB" : "");
  if (m.cap < 1) {
    m.note = "memory: " + need.model + ": one run needs " + human_bytes(need.bytes_per_run) +
             ", more than " + budget_text +
             ": recompute mode (K(X_t, D) rebuilt every round, about T/2 times the work); "
             "incremental mode needs memory_budget_mb >= " +
             std::to_string(static_cast<long long>(std::ceil(need.bytes_per_run / 1048576.0)));
  } else {
    const long long wanted = lockstep > 0 ? std::min(lockstep, inv.runs) : inv.runs;
    if (m.cap < wanted) {
      m.note = "memory: " + need.model + " = " + human_bytes(need.bytes_per_run * wanted) +
               " for " + std::to_string(wanted) + " runs in lockstep exceeds " + budget_text +
               ": at most " + std::to_string(m.cap) + " runs at a time (" +
               human_bytes(need.bytes_per_run) + " per run), incremental mode";
    }
  }
  if (!m.note.empty()) m.summary["note"] = m.note;
  return m;
}

/// Size of the next group starting at `first` (writer's decision).
int next_group(const Family& f, const Invocation& inv, const Checkpoint* cp, const MemoryPlan& mem,
               int first, double seconds_per_run) {
  const int left = inv.runs - first;
  if (cp != nullptr) {
    const int known = cp->group_size(static_cast<std::uint32_t>(first));
    if (known > 0) return std::min(known, left);
  }
  const long long cap = mem.cap >= 1 ? mem.cap : LLONG_MAX;  // recompute mode: no memory cap
  const int lockstep = f.settings().lockstep;
  long long n = 1;
  if (lockstep > 0) {
    n = lockstep;
  } else if (seconds_per_run > 0) {
    n = static_cast<long long>(group_seconds() / seconds_per_run);
  }
  return static_cast<int>(std::max(1LL, std::min({n, cap, static_cast<long long>(left)})));
}

/// The one line of a successful --resume: what the checkpoint gave back.
std::string restored_text(const Family& f, const Checkpoint& cp, int runs) {
  std::vector<int> done(f.labels().size(), 0);
  for (const UnitRecord& u : cp.units()) done[static_cast<std::size_t>(u.policy)] += u.count;
  std::ostringstream os;
  os << "restored " << cp.units().size() << (cp.units().size() == 1 ? " unit" : " units")
     << " from " << cp.dir() << ":";
  for (std::size_t p = 0; p < done.size(); ++p) {
    os << (p == 0 ? " " : ", ") << f.labels()[p] << " " << done[p] << "/" << runs << " runs";
  }
  os << "; continuing";
  return os.str();
}

/// The message of a SIGINT / SIGTERM: what is saved and how to resume.
std::string interrupt_text(const Family& f, const Checkpoint& cp, int runs, const RunOptions& o) {
  if (cp.units().empty()) {
    return "No run had finished: nothing was saved. Start again with the same command.\n";
  }
  std::vector<int> done(f.labels().size(), 0);
  for (const UnitRecord& u : cp.units()) done[static_cast<std::size_t>(u.policy)] += u.count;
  std::ostringstream os;
  os << "Saved in " << cp.dir() << ":";
  for (std::size_t p = 0; p < done.size(); ++p) {
    os << (p == 0 ? " " : ", ") << f.labels()[p] << " " << done[p] << "/" << runs << " runs";
  }
  os << ". Continue with: "
     << (o.resume_command.empty() ? "the same command and --resume" : o.resume_command)
     << " (the run in progress starts again from its first round)\n";
  return os.str();
}

}  // namespace

ExperimentResult run_experiment(const Experiment& experiment, const RunOptions& options) {
  const auto t0 = Clock::now();
  const Family& f = experiment.family();
  const ExperimentSettings& s = f.settings();
  const Invocation inv = resolve(f, options);
  // The plan broadcasts wait while rank 0 steps units the other ranks take no part in: a long
  // timeout (a day), unless every rank steps every unit (a sharding family): then the run's.
  if (options.mpi && f.shards() && !(options.mpi_timeout_s >= 0 && options.mpi_timeout_s < 1e9)) {
    throw InvalidArgument("--mpi-timeout: must be > 0 s (or 0: adaptive)");
  }
  const Communicator comm = options.mpi
                                ? Communicator::world(f.shards() ? options.mpi_timeout_s : 86400.0)
                                : Communicator();
  const bool writer = comm.rank() == 0;
  // Before anything is written to the output folder (lock, checkpoint): a signal from here on
  // says what the folder holds and exits 130/143, never the default action's silent death.
  detail::InterruptMessage interrupt(
      options.handle_signals && writer,
      "Nothing was written to " + inv.out_dir + " yet. Start again with the same command.\n");
  if (writer) detail::test_stop_hook(0);
  f.check_ranks(comm.size());  // the same verdict on every rank, before any collective
  Context ctx = make_context(s, inv, f.shards() ? comm : Communicator());

  ExperimentResult res;
  res.family = f.kind();
  res.backend = ctx.describe();
  res.out_dir = inv.out_dir;
  const detail::OutputPaths paths(inv.out_dir, f);
  res.runs_csv = paths.runs_csv;
  res.summary_json = paths.summary_json;

  std::unique_ptr<detail::OutputLock> lock;
  std::unique_ptr<Checkpoint> cp;
  std::optional<std::string> finished;
  std::error_code ec;
  if (writer && options.resume && !fs::exists(inv.out_dir, ec)) {
    throw InvalidArgument("--resume: nothing to resume: " + inv.out_dir +
                          " does not exist; run without --resume");
  }
  if (writer) {
    detail::ensure_writable_directory(inv.out_dir);
    lock = std::make_unique<detail::OutputLock>(inv.out_dir);
    detail::remove_stale_temporaries(inv.out_dir);
    std::vector<std::string> streams{"runs.csv"};
    for (const auto& extra : f.extra_csv()) streams.push_back(extra.first);
    cp = std::make_unique<Checkpoint>(inv.out_dir, inv.hash, static_cast<int>(streams.size()),
                                      inv.identity, inv.legacy_hash, streams);
    const detail::InterruptHold hold;  // a signal sees the checkpoint and its message together
    finished =
        detail::open_checkpoint(*cp, options, inv.out_dir, {inv.hash, inv.legacy_hash}, paths);
    interrupt.set(interrupt_text(f, *cp, inv.runs, options));
  }
  std::vector<long long> flag{finished ? 1 : 0};
  broadcast(comm, flag);
  if (flag[0] != 0) {
    res.already_finished = true;
    res.report = finished.value_or("");
    return res;
  }

  const MemoryPlan mem = plan_memory(f, inv, ctx);
  long long total_steps = 0;
  for (std::size_t p = 0; p < f.labels().size(); ++p) {
    total_steps += f.steps_per_run(static_cast<int>(p)) * inv.runs;
  }
  if (writer) {  // resumed: what the checkpoint holds is not run again
    for (const UnitRecord& u : cp->units()) total_steps -= f.steps_per_run(u.policy) * u.count;
  }
  detail::Progress progress(options.progress && writer, total_steps);
  if (writer && options.resume) progress.note(restored_text(f, *cp, inv.runs));
  if (writer && !mem.note.empty()) {
    progress.end_line();
    warn(WarningKind::Performance, mem.note);  // the posteriors below stay quiet about it
  }
  const detail::QuietRecompute quiet;

  detail::StepEnv env;
  env.ctx = &ctx;
  env.seed = inv.seed;
  env.runs = inv.runs;
  env.comm = &comm;
  env.mpi = options.mpi;
  std::vector<UnitRecord> earlier = writer ? cp->units() : std::vector<UnitRecord>{};
  const double elapsed_before = writer ? cp->elapsed_seconds() : 0.0;
  std::vector<int> group_sizes;
  int saved = 0;  // units saved by this invocation
  double seconds_per_run = 0;
  const int labels = static_cast<int>(f.labels().size());
  for (int first = 0; first < inv.runs;) {
    // The writer decides the group and what is left of it; every rank follows.
    std::vector<long long> plan(static_cast<std::size_t>(1 + labels), 0);
    if (writer) {
      plan[0] = next_group(f, inv, cp.get(), mem, first, seconds_per_run);
      for (int p = 0; p < labels; ++p) {
        plan[static_cast<std::size_t>(1 + p)] = cp->done(p, static_cast<std::uint32_t>(first));
      }
    }
    broadcast(comm, plan);
    const int count = static_cast<int>(plan[0]);
    group_sizes.push_back(count);
    std::vector<std::uint32_t> runs;
    for (int r = first; r < first + count; ++r) runs.push_back(static_cast<std::uint32_t>(r));
    std::shared_ptr<const void> group;
    double group_seconds = 0;
    int stepped = 0;
    for (int p = 0; p < labels; ++p) {
      if (plan[static_cast<std::size_t>(1 + p)] != 0 || !f.steps_on(p, env)) continue;
      const std::string label = f.labels()[static_cast<std::size_t>(p)];
      if (f.candidates() >= setup_note_candidates() && writer) {  // ended by the first round
        progress.begin_setup(label + " runs " + std::to_string(first + 1) + "-" +
                             std::to_string(first + count) +
                             " over N = " + std::to_string(f.candidates()) + " candidates" +
                             (group ? " (its posterior)" : " (the objective, the posterior)"));
      }
      if (!group) group = f.prepare(env, runs);
      env.tick = [&, label, first, count](int step, int steps, long long work) {
        progress.step(label, first + 1, first + count, f.step_word(), step, steps, work);
      };
      ctx.refresh_threads();  // other runs may have started or ended since the last unit
      const auto tu = Clock::now();
      detail::UnitOutput out = f.step(env, group.get(), p, runs, earlier);
      progress.end_setup();
      UnitRecord u;
      u.policy = p;
      u.first_run = static_cast<std::uint32_t>(first);
      u.count = count;
      u.seconds = seconds_since(tu);
      u.record = std::move(out.record);
      group_seconds += u.seconds;
      ++stepped;
      if (writer) {
        std::vector<std::string> files{std::move(out.rows)};
        for (auto& e : out.extra_rows) files.push_back(std::move(e));
        {
          const detail::InterruptHold hold;
          cp->save(u, files, elapsed_before + seconds_since(t0));
          interrupt.set(interrupt_text(f, *cp, inv.runs, options));
        }
        detail::test_stop_hook(++saved);
      }
      earlier.push_back(std::move(u));
    }
    if (stepped > 0) seconds_per_run = group_seconds / count;
    first += count;
  }
  if (!writer) return res;

  res.lockstep = *std::max_element(group_sizes.begin(), group_sizes.end());
  detail::FinishInfo info;
  info.seed = inv.seed;
  info.runs = inv.runs;
  info.hash = inv.hash;
  info.total_seconds = elapsed_before + seconds_since(t0);
  info.memory = mem.summary;
  info.memory["groups"] = group_sizes;
  detail::finish_outputs(f, env, *cp, paths, info, options, res);
  const detail::InterruptHold hold;
  interrupt.set("The run had finished: its results are complete in " + inv.out_dir + ".\n");
  cp->clear();
  return res;
}

ExperimentResult run_experiment(const ExperimentConfig& config, const RunOptions& options) {
  return run_experiment(Experiment(config), options);
}

}  // namespace gpb
