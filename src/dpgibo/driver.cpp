// The DP-GIBO experiment driver: config → runs of every method → runs.csv, summary.json, loss.png.
//
// Loop order: runs outer, methods inner, so random search and UCB-BO can match the evaluation
// count of an earlier method's same run. Nothing is written before the whole config (task data
// included) has been validated; outputs are written atomically at the end.
#include <unistd.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dpgibo/config.hpp"
#include "experiment/atomic_file.hpp"
#include "experiment/plot.hpp"
#include "experiment/recorder.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/dpgibo/experiment.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/privacy/gdp.hpp"

namespace gpb::dpgibo {

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using detail::Config;
using detail::MethodSpec;

// Simulation streams of one (run, method); privacy noise uses its own source.
constexpr std::uint32_t kTheta0Stream = 200;
constexpr std::uint32_t kEvalStream = 300;
constexpr std::uint32_t kAcqStream = 400;
constexpr std::uint32_t kPrivacyStream = 500;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Eigen::VectorXd start_point(const Config& c, const Task& task, std::uint64_t seed, int run) {
  if (c.theta0_mode == "given") return c.theta0;
  if (c.theta0_mode == "zero") return Eigen::VectorXd::Zero(task.dim());
  Rng rng(seed, static_cast<std::uint32_t>(run), kTheta0Stream);
  Eigen::VectorXd t(task.dim());
  for (int a = 0; a < task.dim(); ++a) t(a) = rng.uniform(task.lower()(a), task.upper()(a));
  return t;
}

std::string csv_rows(const std::string& label, int run, const RunTrace& tr) {
  std::ostringstream os;
  os.precision(10);
  for (const Iterate& it : tr.rows) {
    os << label << ',' << run << ',' << it.t << ',' << it.b << ',' << it.evaluations << ','
       << it.trace << ',' << it.loss << ',' << it.grad_norm << ',' << it.noise_norm << ','
       << it.clipped_fraction << ',' << it.theta1 << '\n';
  }
  return os.str();
}

struct MethodState {
  std::vector<double> final_loss, evaluations, distance;
  std::vector<long> evals_per_run;
  double seconds = 0, jitter = 0;
  std::string rows;
  double grad_sum = 0, noise_sum = 0;  // ‖g‖ and ν‖w‖ summed over runs and iterations t ≥ 1
  long steps = 0;
  std::vector<std::vector<double>> loss_at, evals_at;  // per row index: one value per run
  /// Adds one run's trace to the per-iteration statistics.
  void add(const RunTrace& tr) {
    for (std::size_t i = 0; i < tr.rows.size(); ++i) {
      if (loss_at.size() <= i) {
        loss_at.emplace_back();
        evals_at.emplace_back();
      }
      loss_at[i].push_back(tr.rows[i].loss);
      evals_at[i].push_back(static_cast<double>(tr.rows[i].evaluations));
      if (tr.rows[i].t >= 1) {
        grad_sum += tr.rows[i].grad_norm;
        noise_sum += tr.rows[i].noise_norm;
        ++steps;
      }
    }
  }
  /// Mean ± sd of the loss per row (≤ 200 rows, evenly thinned), for plots from summary.json.
  nlohmann::json curve() const {
    nlohmann::json ev = nlohmann::json::array(), mean = nlohmann::json::array(),
                   sd = nlohmann::json::array();
    const std::size_t stride = std::max<std::size_t>(1, (loss_at.size() + 199) / 200);
    for (std::size_t i = 0; i < loss_at.size(); ++i) {
      if (i % stride != 0 && i + 1 != loss_at.size()) continue;
      const auto [m, d] = gpb::detail::mean_sd(loss_at[i]);
      ev.push_back(gpb::detail::mean_sd(evals_at[i]).first);
      mean.push_back(m);
      sd.push_back(d);
    }
    return {{"row", "iteration t (0 = start) or evaluation for searches"},
            {"evaluations", ev},
            {"loss_mean", mean},
            {"loss_sd", sd}};
  }
};

RunTrace run_one(const Config& c, const Context& ctx, const Task& task, const MethodSpec& m,
                 const std::vector<MethodState>& done, std::uint64_t seed, int run, int mi,
                 privacy::NoiseSource* priv) {
  const auto r = static_cast<std::uint32_t>(run);
  const auto sm = static_cast<std::uint32_t>(mi);
  Rng eval(seed, r, kEvalStream + sm), acq(seed, r, kAcqStream + sm);
  RunRandomness rnd{&eval, &acq, priv};
  const Eigen::VectorXd theta0 = start_point(c, task, seed, run);
  const double sd = m.eval_noise_sd >= 0 ? m.eval_noise_sd : c.eval_noise_sd;
  if (m.type == "dp_gibo" || m.type == "gibo") {
    return run_dp_gibo(ctx, task, m.gibo, theta0, sd, rnd);
  }
  if (m.type == "dp_gd" || m.type == "gd") return run_dp_gd(task, m.gibo, theta0, rnd);
  const int budget = m.match >= 0
                         ? static_cast<int>(done[static_cast<std::size_t>(m.match)]
                                                .evals_per_run[static_cast<std::size_t>(run)])
                         : m.evaluations;
  if (budget < 1) {
    throw InvalidArgument(c.source + ": " + m.label + ": the matched method made no evaluations");
  }
  if (m.type == "random_search") return run_random_search(task, budget, acq);
  UcbBoOptions u = m.ucb;
  u.evaluations = budget;
  return run_ucb_bo(ctx, task, u, sd, rnd);
}

/// A number as a JSON key, shortest form ("1", "0.001").
std::string key(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

nlohmann::json ledger(const Config& c, const MethodSpec& m, int n, const std::string& source) {
  nlohmann::json j;
  if (!m.privat()) {
    j["mu"] = "inf";
    j["guarantee"] = "none (non-private reference)";
    return j;
  }
  const GiboOptions& o = m.gibo;
  const privacy::GdpLedger led(o.mu, o.T);
  j["mu"] = o.mu;
  j["T"] = o.T;
  j["B"] = o.B;
  j["n"] = n;
  j["noise_std"] = dp_noise_std(o.B, o.T, n, o.mu);
  j["mu_per_step"] = led.per_step_mu();
  j["mu_spent"] = led.spent(o.T);
  if (c.budget_mu) j["budget_mu"] = *c.budget_mu;
  nlohmann::json de = nlohmann::json::object(), ed = nlohmann::json::object();
  for (double e : c.report_eps) de[key(e)] = privacy::gdp_delta(led.spent(o.T), e);
  std::vector<double> deltas = c.report_delta;
  if (deltas.empty()) deltas.push_back(1.0 / n);
  for (double d : deltas) ed[key(d)] = privacy::gdp_epsilon(led.spent(o.T), d);
  j["delta_at_epsilon"] = de;
  j["epsilon_at_delta"] = ed;
  j["noise_source"] = source;
  j["guarantee"] =
      "each run's path theta_1..theta_T is " + std::to_string(led.spent(o.T)) +
      "-GDP w.r.t. replacing one user's record (specs/dp-gibo.md s5), in exact arithmetic "
      "(Gaussian sampler without snapping); runs of this experiment reuse the same data, so "
      "they are independent replicates, not one composed release";
  return j;
}

}  // namespace

bool is_dpgibo_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  return !j.is_discarded() && j.is_object() && j.contains("experiment") &&
         j["experiment"].is_string() && j["experiment"].get<std::string>() == "dp-gibo";
}

DpGiboResult run_dpgibo_experiment(const std::string& config_path, const RunOptions& options) {
  const auto t0 = Clock::now();
  Config c = detail::parse_config(gpb::detail::read_whole_file(config_path), config_path);
  if (options.resume) {
    throw InvalidArgument(
        "--resume: not supported for dp-gibo experiments (runs are short and "
        "not checkpointed); run again without --resume");
  }
  if (options.runs) c.runs = *options.runs;
  const std::uint64_t seed = options.seed.value_or(c.seed);
  const Backend backend = options.backend.value_or(c.backend);
  if (backend == Backend::Cuda && Context::cuda_compiled() && Context::cuda_device_count() == 0) {
    throw InvalidArgument("backend 'cuda' requested but no CUDA device is available");
  }
  ContextOptions co;
  co.backend = backend;
  co.threads = options.threads.value_or(c.threads);
  Context ctx(co);
  const std::unique_ptr<Task> task = detail::make_task(c, seed);
  for (std::size_t i = 0; i < c.methods.size(); ++i) {
    const MethodSpec& m = c.methods[i];
    if ((m.type == "dp_gd" || m.type == "gd") && !task->has_gradients()) {
      throw InvalidArgument(c.source + ": methods[" + std::to_string(i) + "].type: " + m.type +
                            " needs per-user gradients, which task " + task->describe() +
                            " does not have");
    }
  }
  DpGiboResult res;
  res.backend = ctx.describe();
  res.out_dir = options.out_dir.empty() ? (fs::path("results") / c.name).string() : options.out_dir;
  const fs::path out(res.out_dir);
  res.runs_csv = (out / "runs.csv").string();
  res.summary_json = (out / "summary.json").string();
  res.plot_png = (out / "loss.png").string();
  gpb::detail::ensure_writable_directory(res.out_dir);

  const std::optional<Eigen::VectorXd> opt = task->optimum();
  res.optimum_loss = opt ? task->objective(*opt) : std::numeric_limits<double>::quiet_NaN();
  std::vector<MethodState> st(c.methods.size());
  std::string source_desc;
  const bool tty = ::isatty(2) != 0;
  for (int run = 0; run < c.runs; ++run) {
    for (std::size_t mi = 0; mi < c.methods.size(); ++mi) {
      const MethodSpec& m = c.methods[mi];
      const auto tm = Clock::now();
      std::unique_ptr<privacy::NoiseSource> priv;
      if (m.privat()) {
        priv = c.privacy_seeded
                   ? privacy::make_seeded_source(seed, static_cast<std::uint32_t>(run),
                                                 kPrivacyStream + static_cast<std::uint32_t>(mi))
                   : privacy::make_secure_source();
        if (source_desc.empty()) source_desc = priv->describe();
      }
      const RunTrace tr =
          run_one(c, ctx, *task, m, st, seed, run, static_cast<int>(mi), priv.get());
      MethodState& s = st[mi];
      s.seconds += seconds_since(tm);
      s.final_loss.push_back(tr.rows.back().loss);
      s.evals_per_run.push_back(tr.rows.back().evaluations);
      s.evaluations.push_back(static_cast<double>(tr.rows.back().evaluations));
      if (opt && tr.theta.size() == task->dim()) s.distance.push_back((tr.theta - *opt).norm());
      s.jitter = std::max(s.jitter, tr.jitter_used);
      s.rows += csv_rows(m.label, run, tr);
      s.add(tr);
      if (options.progress) {
        std::fprintf(stderr, "%sgpbandit: %s run %d/%d  final loss %.5g  %.1fs elapsed%s",
                     tty ? "\r" : "", m.label.c_str(), run + 1, c.runs, tr.rows.back().loss,
                     seconds_since(t0), tty ? "\033[K" : "\n");
        std::fflush(stderr);
      }
    }
  }
  if (options.progress && tty) std::fputc('\n', stderr);

  gpb::detail::AtomicFile csv(res.runs_csv);
  csv.write("method,run,t,b,evaluations,trace,loss,grad_norm,noise_norm,clipped_fraction,theta1\n");
  for (const MethodState& s : st) csv.write(s.rows);
  csv.commit();

  nlohmann::json sj;
  sj["name"] = c.name;
  sj["experiment"] = "dp-gibo";
  sj["config"] = nlohmann::json::parse(c.config_json);
  sj["versions"] = {{"gpbandit", GPB_VERSION}};
  sj["backend"] = res.backend;
  sj["seed"] = seed;
  sj["runs"] = c.runs;
  sj["task"] = task->describe();
  sj["users"] = task->users();
  sj["eval_noise_sd"] = c.eval_noise_sd;
  if (opt) sj["optimum_loss"] = res.optimum_loss;
  sj["privacy_noise"] = c.privacy_seeded ? "seeded simulation — not private" : "secure";
  nlohmann::json methods = nlohmann::json::array();
  for (std::size_t mi = 0; mi < c.methods.size(); ++mi) {
    const MethodSpec& m = c.methods[mi];
    const MethodState& s = st[mi];
    MethodSummary ms;
    ms.label = m.label;
    ms.type = m.type;
    std::tie(ms.loss_mean, ms.loss_sd) = gpb::detail::mean_sd(s.final_loss);
    ms.evaluations_mean = gpb::detail::mean_sd(s.evaluations).first;
    ms.mu = m.privat() ? m.gibo.mu : std::numeric_limits<double>::infinity();
    ms.noise_std = m.privat() ? dp_noise_std(m.gibo.B, m.gibo.T, task->users(), m.gibo.mu) : 0.0;
    ms.seconds = s.seconds;
    res.methods.push_back(ms);
    nlohmann::json mj;
    mj["label"] = m.label;
    mj["type"] = m.type;
    mj["final_loss_mean"] = ms.loss_mean;
    mj["final_loss_sd"] = ms.loss_sd;
    mj["final_loss_per_run"] = s.final_loss;
    mj["evaluations_mean"] = ms.evaluations_mean;
    if (!s.distance.empty()) {
      const auto [dm, dsd] = gpb::detail::mean_sd(s.distance);
      mj["distance_to_optimum_mean"] = dm;
      mj["distance_to_optimum_sd"] = dsd;
    }
    if (s.jitter > 0) mj["largest_jitter"] = s.jitter;
    mj["eval_noise_sd"] = m.eval_noise_sd >= 0 ? m.eval_noise_sd : c.eval_noise_sd;
    mj["seconds"] = s.seconds;
    mj["curve"] = s.curve();
    if (s.steps > 0 && (m.type == "dp_gibo" || m.type == "gibo" || m.type == "dp_gd" ||
                        m.type == "gd")) {
      // Signal against privacy noise: the clipped-mean gradient the method sees, ‖g‖, against the
      // noise added to it (ν‖w‖, expected ≈ ν√d), averaged over runs and iterations.
      mj["grad_norm_mean"] = s.grad_sum / static_cast<double>(s.steps);
      mj["noise_norm_mean"] = s.noise_sum / static_cast<double>(s.steps);
      mj["noise_norm_expected"] = ms.noise_std * std::sqrt(static_cast<double>(task->dim()));
    }
    mj["privacy"] = ledger(c, m, task->users(), source_desc);
    methods.push_back(mj);
  }
  sj["methods"] = methods;
  sj["seconds"] = seconds_since(t0);
  gpb::detail::write_file_atomic(res.summary_json, sj.dump(2) + "\n");

  std::error_code ec;
  if (options.plot) {
    // Against evaluations, unless a method has none to count (DP-GD, GD): then against t.
    bool by_evals = true;
    for (const MethodSpec& m : c.methods)
      by_evals = by_evals && m.type != "dp_gd" && m.type != "gd";
    const auto p = gpb::detail::draw_plot_with(
        "plot_dpgibo.py", {res.runs_csv, c.name, by_evals ? "evaluations" : "t"}, res.plot_png,
        options.python);
    res.plotted = p.plotted;
    res.plot_message = p.message;
  } else {
    res.plot_message = "no plot: disabled (--no-plot)";
  }
  if (!res.plotted) fs::remove(res.plot_png, ec);
  return res;
}

}  // namespace gpb::dpgibo
