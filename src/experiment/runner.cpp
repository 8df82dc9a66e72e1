// The experiment runner: every policy × every lockstep group of runs → outputs in out_dir.
//
// Loop order: groups outer, policies inner, so a group's objective values f are computed once and
// shared by every policy (common random numbers). runs.csv is assembled at the end policy-major,
// then by run, then by evaluation, so its bytes do not depend on the grouping nor on resumption.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "experiment/atomic_file.hpp"
#include "experiment/plot.hpp"
#include "experiment/recorder.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment.hpp"
#include "gpbandit/privacy/laplace.hpp"
#include "gpbandit/privacy/noise_source.hpp"
#include "gpbandit/rng.hpp"

namespace gpb {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// 64-bit FNV-1a of a string, as 16 hex digits.
std::string fnv1a_hex(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

/// The progress line on stderr: refreshed in place on a TTY, else at most every 2 s.
class Progress {
 public:
  Progress(bool enabled, long long total_rounds)
      : enabled_(enabled),
        tty_(::isatty(2) != 0),
        total_(total_rounds),
        start_(Clock::now()),
        last_(start_) {}
  /// One round of `label` done for runs [a, b] (1-based display), round r of rounds.
  void round_done(const std::string& label, int a, int b, int r, int rounds, int q) {
    ++rounds_;
    done_ += q;
    if (!enabled_) return;
    const auto now = Clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (since < (tty_ ? 0.1 : 2.0) && r != rounds) return;
    if (!tty_ && since < 2.0) return;
    last_ = now;
    const double elapsed = seconds_since(start_);
    const double rate = elapsed > 0 ? static_cast<double>(rounds_) / elapsed : 0.0;
    const double eval_rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0.0;
    const double eta = eval_rate > 0 ? static_cast<double>(total_ - done_) / eval_rate : 0.0;
    std::fprintf(stderr, "%sgpbandit: %s runs %d-%d round %d/%d  %.1f rounds/s  ETA %.0fs%s",
                 tty_ ? "\r" : "", label.c_str(), a, b, r, rounds, rate, std::max(0.0, eta),
                 tty_ ? "\033[K" : "\n");
    std::fflush(stderr);
    shown_ = true;
  }
  ~Progress() {
    if (enabled_ && tty_ && shown_) std::fputc('\n', stderr);
  }

 private:
  bool enabled_, tty_;
  long long total_, done_ = 0, rounds_ = 0;
  Clock::time_point start_, last_;
  bool shown_ = false;
};

int rounds_for(int horizon, int batch) {
  return (horizon + batch - 1) / std::max(batch, 1);
}

/// Checks a policy's selection before it is used.
void check_selection(const Selection& sel, const std::string& label, int runs, int q, int n) {
  if (sel.runs != runs || sel.q != q ||
      sel.chosen.size() != static_cast<std::size_t>(runs) * static_cast<std::size_t>(q)) {
    std::ostringstream os;
    os << "policy '" << label << "' selected " << sel.runs << "x" << sel.q << " candidates ("
       << sel.chosen.size() << " values), expected " << runs << "x" << q;
    throw Error(os.str());
  }
  for (int j : sel.chosen) {
    if (j < 0 || j >= n) {
      throw Error("policy '" + label + "' selected candidate " + std::to_string(j) +
                  " outside the domain [0, " + std::to_string(n) + ")");
    }
  }
}

struct GroupInput {
  int index = 0;
  std::vector<std::uint32_t> run_ids;
  std::vector<Eigen::VectorXd> f;
  std::vector<double> fstar;
  std::vector<double> fsup;  ///< max |f| per run (B, specs/ldp-bo.md D12)
  std::vector<int> xstar;    ///< argmax f per run
};

/// Stream of the seeded (simulation-only) privacy source; never used by the secure default.
constexpr std::uint32_t kPrivacyStream = 7;

/// R, c₀, v₀ of the instance: the data set's own, else from the noise model.
InstanceConstants instance_constants(const ExperimentConfig& cfg) {
  const auto rc = cfg.objective->reward_constants();
  return rc ? *rc : noise_instance_constants(cfg.noise);
}

/// The user-side CTL of one run: mechanism and noise source (secure unless the config asks for
/// seeded simulation).
struct RunPrivatizer {
  std::unique_ptr<privacy::CtlMechanism> ctl;
  std::unique_ptr<privacy::NoiseSource> source;
};

/// CTL per run for a policy that asks for it (empty when it does not).
std::vector<RunPrivatizer> make_privatizers(const ExperimentConfig& cfg, const Policy& policy,
                                            const GroupInput& g, std::uint64_t seed, int p) {
  std::vector<RunPrivatizer> out;
  for (std::size_t r = 0; r < g.run_ids.size(); ++r) {
    const auto req = policy.ldp_request(static_cast<int>(r));
    if (!req) {
      if (!out.empty()) throw Error("policy asks for CTL on some runs only");
      continue;
    }
    RunPrivatizer z;
    z.ctl = std::make_unique<privacy::CtlMechanism>(req->B, req->R, req->epsilon, req->clip,
                                                    cfg.laplace_inverse_cdf
                                                        ? privacy::LaplaceSampler::InverseCdf
                                                        : privacy::LaplaceSampler::Snapping);
    z.source = cfg.privacy_seeded
                   ? privacy::make_seeded_source(seed, g.run_ids[r],
                                                 stream_of(static_cast<StreamId>(kPrivacyStream),
                                                           static_cast<std::uint32_t>(p)))
                   : privacy::make_secure_source();
    out.push_back(std::move(z));
  }
  return out;
}

/// Runs one policy on one group; returns its chunk and CSV rows.
detail::Chunk run_policy_group(const ExperimentConfig& cfg, const Context& ctx, std::uint64_t seed,
                               int p, const GroupInput& g, Progress& progress, std::string* rows,
                               std::string* privacy_out, std::string* info_out = nullptr) {
  const auto t0 = Clock::now();
  const PolicySpec& spec = cfg.policies[static_cast<std::size_t>(p)];
  PolicyEnv env;
  env.ctx = &ctx;
  env.domain = &cfg.domain;
  env.kernel = cfg.kernel;
  env.run_ids = g.run_ids;
  env.horizon = cfg.horizon;
  env.seed = seed;
  env.policy_index = static_cast<std::uint32_t>(p);
  env.noise_variance = cfg.noise_variance;
  env.random_ties = cfg.random_ties;
  env.f_sup = g.fsup;
  env.instance = instance_constants(cfg);
  std::unique_ptr<Policy> policy = make_policy(spec, env);
  if (info_out != nullptr) *info_out = policy->info_json();
  // User side: the learner only ever sees CTL-privatised rewards (DESIGN §1, §5).
  std::vector<RunPrivatizer> priv = make_privatizers(cfg, *policy, g, seed, p);
  if (!priv.empty() && privacy_out != nullptr) {
    nlohmann::json info;
    info["epsilon"] = priv.front().ctl->epsilon();
    info["guarantee"] = priv.front().ctl->guarantee();
    info["noise_source"] = priv.front().source->describe();
    nlohmann::json scales = nlohmann::json::array();
    for (const auto& z : priv) scales.push_back(z.ctl->scale());
    info["laplace_scale_per_run"] = scales;
    *privacy_out = info.dump();
  }

  const int runs = env.runs();
  const bool dataset = cfg.objective->domain().has_value();
  const std::uint32_t stream = stream_of(dataset ? StreamId::Bootstrap : StreamId::Noise);
  std::vector<Rng> rngs;
  for (std::uint32_t id : g.run_ids) rngs.emplace_back(seed, id, stream);

  detail::GroupRecorder rec(spec.label, g.run_ids, g.fstar, cfg.horizon);
  const int batch = std::max(1, policy->batch_size());
  const int rounds = rounds_for(cfg.horizon, batch);
  const int first = static_cast<int>(g.run_ids.front()) + 1;
  const int last = static_cast<int>(g.run_ids.back()) + 1;
  int done = 0;
  for (int r = 1; done < cfg.horizon; ++r) {
    Round round;
    round.index = r;
    round.done = done;
    round.q = std::min(std::max(1, policy->batch_size()), cfg.horizon - done);
    const Selection sel = policy->select(round);
    check_selection(sel, spec.label, runs, round.q, cfg.domain.size());
    Rewards rewards;
    rewards.y.resize(sel.chosen.size());
    for (int k = 0; k < runs; ++k) {
      const Eigen::VectorXd& f = g.f[static_cast<std::size_t>(k)];
      for (int i = 0; i < round.q; ++i) {
        const int j = sel.at(k, i);
        double y = cfg.objective->reward(j, f[j], cfg.noise, rngs[static_cast<std::size_t>(k)]);
        if (!priv.empty()) {
          auto& z = priv[static_cast<std::size_t>(k)];
          y = z.ctl->privatize(y, *z.source);  // runs.csv records what the learner sees
        }
        rewards.y[static_cast<std::size_t>(k) * round.q + i] = y;
        rec.record(k, r, j, f[j], y);
      }
    }
    policy->observe(sel, rewards);
    done += round.q;
    progress.round_done(spec.label, first, last, std::min(r, rounds), rounds, round.q);
  }
  *rows = rec.rows();
  detail::Chunk chunk;
  chunk.policy = p;
  chunk.group = g.index;
  chunk.runs = rec.records();
  for (std::size_t k = 0; k < chunk.runs.size(); ++k) {
    chunk.runs[k].f_sup = g.fsup[k];
    chunk.runs[k].x_star = g.xstar[k];
  }
  chunk.seconds = seconds_since(t0);
  return chunk;
}

GroupInput make_group(const ExperimentConfig& cfg, const Context& ctx, std::uint64_t seed,
                      int index, int first, int count) {
  GroupInput g;
  g.index = index;
  for (int r = first; r < first + count; ++r) {
    g.run_ids.push_back(static_cast<std::uint32_t>(r));
    Eigen::VectorXd f = cfg.objective->values(ctx, cfg.domain, seed, static_cast<std::uint32_t>(r));
    if (f.size() != cfg.domain.size() || !f.allFinite()) {
      throw NumericalError(
          "objective '" + cfg.objective->name() + "' gave " +
          (f.size() != cfg.domain.size() ? "the wrong number of values" : "non-finite values") +
          " for run " + std::to_string(r));
    }
    Eigen::Index best = 0;
    g.fstar.push_back(f.maxCoeff(&best));
    g.xstar.push_back(static_cast<int>(best));
    g.fsup.push_back(f.cwiseAbs().maxCoeff());
    g.f.push_back(std::move(f));
  }
  return g;
}

Context make_context(const ExperimentConfig& cfg, Backend backend, int threads) {
  if (backend == Backend::Cuda && Context::cuda_compiled() && Context::cuda_device_count() == 0) {
    throw InvalidArgument(
        "backend 'cuda' requested but no CUDA device is available (use --backend cpu or auto)");
  }
  ContextOptions o;
  o.backend = backend;
  o.memory_budget_bytes = cfg.memory_budget_bytes;
  o.threads = threads;
  return Context(o);
}

/// After how many checkpoints to stop (test hook GPB_TEST_STOP_AFTER_GROUPS), or -1.
int stop_after_groups() {
  const char* s = std::getenv("GPB_TEST_STOP_AFTER_GROUPS");
  return (s != nullptr && *s != '\0') ? std::atoi(s) : -1;
}

/// Removes temporary files that a killed earlier run may have left (".runs.tmp-…" and the like).
void remove_stale_temporaries(const std::string& out_dir) {
  static const char* const kPrefixes[] = {".runs.tmp-", ".summary.tmp-", ".regret.tmp-",
                                          ".state.tmp-", ".rows-p"};
  std::error_code ec;
  for (const fs::path& dir : {fs::path(out_dir), fs::path(out_dir) / ".checkpoint"}) {
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      for (const char* p : kPrefixes) {
        if (name.rfind(p, 0) == 0 && name.find(".tmp-") != std::string::npos) {
          fs::remove(e.path(), ec);
        }
      }
    }
  }
}

/// Writes runs.csv into `out` and makes it durable (finish()); the caller renames it into place
/// together with summary.json, so a failure (e.g. a full disk) leaves neither.
void write_runs_csv(const ExperimentConfig& cfg, const detail::Checkpoint& cp, int groups,
                    detail::AtomicFile& out) {
  out.write(detail::runs_csv_header());
  for (std::size_t p = 0; p < cfg.policies.size(); ++p) {
    for (int g = 0; g < groups; ++g) out.append_file(cp.rows_file(static_cast<int>(p), g));
  }
  out.finish();
}

/// summary.json's instance constants (specs/ldp-bo.md §7: B, R, v, c, x*) and privacy block.
/// B and x* per run come from the runs' records (the first policy's chunks cover every run).
nlohmann::json ldp_summary(const ExperimentConfig& cfg, const std::vector<detail::Chunk>& chunks,
                           int runs, const nlohmann::json& privacy) {
  nlohmann::json j;
  const InstanceConstants ic = instance_constants(cfg);
  // Unknown or infinite constants are left out (R of unbounded noise; v_emp of synthetic f).
  nlohmann::json inst = nlohmann::json::object();
  if (std::isfinite(ic.noise_bound)) inst["R"] = ic.noise_bound;
  if (std::isfinite(ic.noise_moment)) inst["c_emp"] = ic.noise_moment;
  if (ic.reward_moment > 0 && std::isfinite(ic.reward_moment)) inst["v_emp"] = ic.reward_moment;
  std::vector<double> b(static_cast<std::size_t>(runs));
  std::vector<int> xs(static_cast<std::size_t>(runs));
  for (const detail::Chunk& c : chunks) {
    if (c.policy != 0) continue;
    for (const detail::RunRecord& r : c.runs) {
      b[r.run] = r.f_sup;
      xs[r.run] = r.x_star;
    }
  }
  inst["B_per_run"] = b;
  inst["x_star_per_run"] = xs;
  j["instance"] = inst;
  bool any_ldp = !privacy.empty();
  j["privacy_noise"] = !any_ldp             ? "none (no LDP policy)"
                       : cfg.privacy_seeded ? "seeded simulation — not private"
                                            : "secure";
  j["laplace_sampler"] =
      cfg.laplace_inverse_cdf ? "inverse_cdf (paper; leaks low-order bits)" : "snapping";
  j["privacy"] = privacy;
  return j;
}

}  // namespace

ExperimentResult run_experiment(const ExperimentConfig& config, const RunOptions& options) {
  const auto t0 = Clock::now();
  if (!config.objective) throw InvalidArgument(config.source + ": objective: required");
  if (config.policies.empty()) throw InvalidArgument(config.source + ": policies: required");
  const int runs = options.runs.value_or(config.runs);
  if (runs < 1) throw InvalidArgument("--runs: must be >= 1, got " + std::to_string(runs));
  const std::uint64_t seed = options.seed.value_or(config.seed);
  const Backend backend = options.backend.value_or(config.backend);

  ExperimentResult res;
  res.out_dir =
      options.out_dir.empty() ? (fs::path("results") / config.name).string() : options.out_dir;
  const fs::path out(res.out_dir);
  res.runs_csv = (out / "runs.csv").string();
  res.summary_json = (out / "summary.json").string();
  res.plot_png = (out / "regret.png").string();

  Context ctx = make_context(config, backend, options.threads.value_or(config.threads));
  res.backend = ctx.describe();
  detail::ensure_writable_directory(res.out_dir);
  remove_stale_temporaries(res.out_dir);

  std::ostringstream key;
  key << config.config_json << "|runs=" << runs << "|seed=" << seed
      << "|backend=" << (options.backend ? backend_name(*options.backend) : "config");
  detail::Checkpoint cp(res.out_dir, fnv1a_hex(key.str()));
  if (!(options.resume && cp.load())) cp.clear();

  const int lock = config.lockstep <= 0 ? runs : std::min(config.lockstep, runs);
  const int groups = (runs + lock - 1) / lock;
  long long total_evals = 0;
  for (int g = 0; g < groups; ++g) {
    for (std::size_t p = 0; p < config.policies.size(); ++p) {
      if (!cp.done(static_cast<int>(p), g)) total_evals += config.horizon;
    }
  }
  Progress progress(options.progress, total_evals);
  const int stop_after = stop_after_groups();
  nlohmann::json privacy = nlohmann::json::object();
  nlohmann::json policy_info = nlohmann::json::object();
  int saved = 0;
  const double elapsed_before = cp.elapsed_seconds();
  for (int g = 0; g < groups; ++g) {
    std::vector<int> todo;
    for (int p = 0; p < static_cast<int>(config.policies.size()); ++p) {
      if (!cp.done(p, g)) todo.push_back(p);
    }
    if (todo.empty()) continue;
    const int first = g * lock;
    const GroupInput input = make_group(config, ctx, seed, g, first, std::min(lock, runs - first));
    for (int p : todo) {
      std::string rows, priv, info;
      const detail::Chunk chunk =
          run_policy_group(config, ctx, seed, p, input, progress, &rows, &priv, &info);
      // The first group this invocation runs describes the mechanism (also after --resume).
      const std::string& label = config.policies[static_cast<std::size_t>(p)].label;
      if (!priv.empty() && !privacy.contains(label)) privacy[label] = nlohmann::json::parse(priv);
      if (!info.empty() && !policy_info.contains(label)) {
        policy_info[label] = nlohmann::json::parse(info);  // run-independent (first group)
      }
      cp.save(chunk, rows, elapsed_before + seconds_since(t0));
      if (++saved == stop_after) std::exit(75);
    }
  }

  res.policies = detail::summarize(config, cp.chunks());
  detail::AtomicFile runs_csv(res.runs_csv);
  write_runs_csv(config, cp, groups, runs_csv);
  const double total = elapsed_before + seconds_since(t0);
  nlohmann::json extra = ldp_summary(config, cp.chunks(), runs, privacy);
  if (!policy_info.empty()) extra["policy_info"] = policy_info;
  const std::string objective_info = config.objective->info_json();
  if (!objective_info.empty()) extra["objective_info"] = nlohmann::json::parse(objective_info);
  detail::AtomicFile summary(res.summary_json);
  summary.write(
      detail::summary_json(config, runs, seed, res.backend, cp.chunks(), total, extra.dump()));
  summary.finish();
  runs_csv.commit();  // both complete on disk: only the renames remain
  summary.commit();
  std::error_code ec;
  if (options.plot) {
    const auto plot =
        detail::draw_regret_plot(res.runs_csv, res.plot_png, config.name, options.python);
    res.plotted = plot.plotted;
    res.plot_message = plot.message;
  } else {
    res.plot_message = "no plot: disabled (--no-plot)";
  }
  if (!res.plotted) fs::remove(res.plot_png, ec);  // never leave a stale plot of another run
  cp.clear();
  return res;
}

}  // namespace gpb
