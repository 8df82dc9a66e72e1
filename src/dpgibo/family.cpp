// The DP-GIBO family: runs of every method on a task over a box, stepped run by run.
//
// A unit is one method over a group of runs, the runs one after the other. Random search and
// UCB-BO "match" an earlier method's evaluation count of the same run: the pipeline steps
// methods in config order within each group, and passes the finished units (this and earlier
// invocations) as `earlier`.
#include "dpgibo/family.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "experiment/config_common.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/privacy/noise_source.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::dpgibo::detail {

namespace {

using gpb::detail::UnitRecord;
using nlohmann::json;

// Simulation streams of one (run, method); privacy noise uses its own source.
constexpr std::uint32_t kTheta0Stream = 200;
constexpr std::uint32_t kEvalStream = 300;
constexpr std::uint32_t kAcqStream = 400;
constexpr std::uint32_t kPrivacyStream = 500;

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
       << it.clipped_fraction << ',' << it.theta1 << ',' << it.bias << ',' << it.grad_error << '\n';
  }
  return os.str();
}

/// Evaluations of method `m`'s run `run` in the finished units.
long matched_evaluations(const std::vector<UnitRecord>& earlier, int m, std::uint32_t run) {
  for (const UnitRecord& u : earlier) {
    if (u.policy != m) continue;
    for (const json& r : u.record.at("runs")) {
      if (r.at("run").get<std::uint32_t>() == run) return r.at("evaluations").get<long>();
    }
  }
  return 0;
}

RunTrace run_one(const Config& c, const Context& ctx, const Task& task, const MethodSpec& m,
                 const std::vector<UnitRecord>& earlier, std::uint64_t seed, int run, int mi,
                 privacy::NoiseSource* priv) {
  const auto r = static_cast<std::uint32_t>(run);
  const auto sm = static_cast<std::uint32_t>(mi);
  Rng eval(seed, r, kEvalStream + sm), acq(seed, r, kAcqStream + sm);
  RunRandomness rnd{&eval, &acq, priv};
  const Eigen::VectorXd theta0 = start_point(c, task, seed, run);
  const EvalNoise noise(m.eval_noise_sd >= 0 ? m.eval_noise_sd : c.eval_noise_sd,
                        c.eval_noise_shared);
  if (m.type == "dp_gibo" || m.type == "gibo") {
    return run_dp_gibo(ctx, task, m.gibo, theta0, noise, rnd);
  }
  if (m.type == "dp_gd" || m.type == "gd") return run_dp_gd(task, m.gibo, theta0, rnd);
  const int budget =
      m.match >= 0 ? static_cast<int>(matched_evaluations(earlier, m.match, r)) : m.evaluations;
  if (budget < 1) {
    throw InvalidArgument(c.source + ": " + m.label + ": the matched method made no evaluations");
  }
  if (m.type == "random_search") return run_random_search(task, budget, acq);
  UcbBoOptions u = m.ucb;
  u.evaluations = budget;
  return run_ucb_bo(ctx, task, u, noise, rnd);
}

/// The record of one run: what summarize_dpgibo() needs (final numbers, the loss per row).
json run_record(std::uint32_t run, const RunTrace& tr, const Task& task) {
  json loss = json::array(), evals = json::array(), theta1 = json::array(),
       noise_norm = json::array(), bias = json::array();
  double grad = 0, noise = 0, bias_sum = 0, error_sum = 0;
  long steps = 0, bias_steps = 0;
  for (const Iterate& it : tr.rows) {
    loss.push_back(it.loss);
    evals.push_back(it.evaluations);
    theta1.push_back(it.theta1);
    noise_norm.push_back(it.noise_norm);
    // null where the task cannot tell the bias (summary.cpp reads it back as NaN)
    bias.push_back(std::isfinite(it.bias) ? json(it.bias) : json(nullptr));
    if (it.t >= 1) {
      grad += it.grad_norm;
      noise += it.noise_norm;
      ++steps;
    }
    if (it.t >= 1 && std::isfinite(it.bias)) {  // ‖g − clipped true mean‖, ‖g − ∇f‖
      bias_sum += it.bias;
      error_sum += it.grad_error;
      ++bias_steps;
    }
  }
  json j = {{"run", run},
            {"final_loss", tr.rows.back().loss},
            {"evaluations", tr.rows.back().evaluations},
            {"jitter", tr.jitter_used},
            {"loss", loss},
            {"evals", evals},
            {"grad_sum", grad},
            {"noise_sum", noise},
            {"steps", steps},
            {"theta1", theta1},
            {"noise_norm", noise_norm},
            {"bias", bias},
            {"bias_sum", bias_sum},
            {"error_sum", error_sum},
            {"bias_steps", bias_steps}};
  const std::optional<Eigen::VectorXd> opt = task.optimum();
  if (opt && tr.theta.size() == task.dim()) j["distance"] = (tr.theta - *opt).norm();
  return j;
}

}  // namespace

DpGiboFamily::DpGiboFamily(Config config) : config_(std::move(config)) {}

std::vector<std::string> DpGiboFamily::labels() const {
  return gpb::detail::labels_of(config_.methods);
}

std::string DpGiboFamily::type(int p) const {
  return config_.methods.at(static_cast<std::size_t>(p)).type;
}

std::string DpGiboFamily::runs_csv_header() const {
  return "method,run,t,b,evaluations,trace,loss,grad_norm,noise_norm,clipped_fraction,theta1,bias,"
         "grad_error\n";
}

std::shared_ptr<const Task> DpGiboFamily::task(std::uint64_t seed) const {
  return tasks_.get(seed, [this](std::uint64_t s) { return make_task(config_, s); });
}

gpb::detail::UnitOutput DpGiboFamily::step(const gpb::detail::StepEnv& env, const void*, int p,
                                           const std::vector<std::uint32_t>& runs,
                                           const std::vector<UnitRecord>& earlier) const {
  const Config& c = config_;
  const std::shared_ptr<const Task> held = task(env.seed);
  const Task& t = *held;
  const MethodSpec& m = c.methods[static_cast<std::size_t>(p)];
  gpb::detail::UnitOutput out;
  json records = json::array();
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const int run = static_cast<int>(runs[k]);
    std::unique_ptr<privacy::NoiseSource> priv;
    if (m.privat()) {
      priv = c.settings.privacy_seeded
                 ? privacy::make_seeded_source(env.seed, runs[k],
                                               kPrivacyStream + static_cast<std::uint32_t>(p))
                 : privacy::make_secure_source();
      out.record["noise_source"] = priv->describe();
    }
    const RunTrace tr = run_one(c, *env.ctx, t, m, earlier, env.seed, run, p, priv.get());
    out.rows += csv_rows(m.label, run, tr);
    records.push_back(run_record(runs[k], tr, t));
    if (env.tick) env.tick(static_cast<int>(k) + 1, static_cast<int>(runs.size()), 1);
  }
  out.record["runs"] = records;
  return out;
}

gpb::detail::FamilySummary DpGiboFamily::summarize(
    const gpb::detail::StepEnv& env, const std::vector<std::vector<const UnitRecord*>>& by_policy,
    const std::string&) const {
  return summarize_dpgibo(config_, *task(env.seed), by_policy);
}

gpb::detail::PlotRequest DpGiboFamily::plot(const std::string& runs_csv) const {
  // Against evaluations, unless a method has none to count (DP-GD, GD): then against t.
  bool by_evals = true;
  for (const MethodSpec& m : config_.methods) {
    by_evals = by_evals && m.type != "dp_gd" && m.type != "gd";
  }
  gpb::detail::PlotRequest r;
  r.file = "loss.png";
  r.call.script = "plot_dpgibo.py";
  r.call.before = {runs_csv, config_.settings.name, by_evals ? "evaluations" : "t"};
  return r;
}

}  // namespace gpb::dpgibo::detail

namespace gpb::detail {

std::shared_ptr<const Family> make_dpgibo_family(const Checker& c, const nlohmann::json& root,
                                                 ExperimentSettings settings) {
  dpgibo::detail::Config cfg = dpgibo::detail::parse_config(c, root, std::move(settings));
  const std::string task = cfg.task.value("type", std::string());
  const bool gradients = task == "normal_location" || task == "huber";
  for (std::size_t i = 0; i < cfg.methods.size(); ++i) {
    const auto& m = cfg.methods[i];
    if ((m.type == "dp_gd" || m.type == "gd") && !gradients) {
      c.fail("methods[" + std::to_string(i) + "].type",
             m.type + " needs per-user gradients, which task " + task + " does not have");
    }
  }
  return std::make_shared<dpgibo::detail::DpGiboFamily>(std::move(cfg));
}

}  // namespace gpb::detail
