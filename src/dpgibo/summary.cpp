// The DP-GIBO family's summary: final losses, the GDP privacy ledger, loss curves, the table.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "dpgibo/family.hpp"
#include "experiment/recorder.hpp"
#include "gpbandit/privacy/gdp.hpp"

namespace gpb::dpgibo::detail {

namespace {

using gpb::detail::mean_sd;
using gpb::detail::UnitRecord;
using nlohmann::json;

/// One method's numbers over its runs, in run order.
struct MethodState {
  std::vector<double> final_loss, evaluations, distance;
  double seconds = 0, jitter = 0;
  double grad_sum = 0, noise_sum = 0;  // ‖g‖ and ν‖w‖ summed over runs and iterations t ≥ 1
  long steps = 0;
  double bias_sum = 0, error_sum = 0;  // ‖g − clipped true mean‖, ‖g − ∇f‖ (where known)
  long bias_steps = 0;
  // Per row index: one value per run.
  std::vector<std::vector<double>> loss_at, evals_at, theta1_at, noise_at, bias_at;
  std::string noise_source;

  void add(const json& r) {
    final_loss.push_back(r.at("final_loss").get<double>());
    evaluations.push_back(r.at("evaluations").get<double>());
    if (r.contains("distance")) distance.push_back(r["distance"].get<double>());
    jitter = std::max(jitter, r.at("jitter").get<double>());
    grad_sum += r.at("grad_sum").get<double>();
    noise_sum += r.at("noise_sum").get<double>();
    steps += r.at("steps").get<long>();
    bias_sum += r.at("bias_sum").get<double>();
    error_sum += r.at("error_sum").get<double>();
    bias_steps += r.at("bias_steps").get<long>();
    const auto& loss = r.at("loss");
    const auto& evals = r.at("evals");
    const auto& theta1 = r.at("theta1");
    const auto& noise = r.at("noise_norm");
    const auto& bias = r.at("bias");
    for (std::size_t i = 0; i < loss.size(); ++i) {
      if (loss_at.size() <= i) {
        for (auto* v : {&loss_at, &evals_at, &theta1_at, &noise_at, &bias_at}) v->emplace_back();
      }
      loss_at[i].push_back(loss[i].get<double>());
      evals_at[i].push_back(evals[i].get<double>());
      theta1_at[i].push_back(theta1[i].get<double>());
      noise_at[i].push_back(noise[i].get<double>());
      bias_at[i].push_back(bias[i].is_null() ? std::numeric_limits<double>::quiet_NaN()
                                             : bias[i].get<double>());
    }
  }
  /// Mean ± sd of the loss per row (≤ 200 rows, evenly thinned), for plots from summary.json.
  /// Also θ₁ (mean ± sd), the privacy noise norm and, where the task knows it, the bias.
  json curve() const {
    json ev = json::array(), mean = json::array(), sd = json::array(), th = json::array(),
         th_sd = json::array(), noise = json::array(), bias = json::array();
    const std::size_t stride = std::max<std::size_t>(1, (loss_at.size() + 199) / 200);
    bool has_bias = false;
    for (std::size_t i = 0; i < loss_at.size(); ++i) {
      if (i % stride != 0 && i + 1 != loss_at.size()) continue;
      const auto [m, d] = mean_sd(loss_at[i]);
      ev.push_back(mean_sd(evals_at[i]).first);
      mean.push_back(m);
      sd.push_back(d);
      const auto [tm, tsd] = mean_sd(theta1_at[i]);
      th.push_back(tm);
      th_sd.push_back(tsd);
      noise.push_back(mean_sd(noise_at[i]).first);
      const double b = mean_sd(bias_at[i]).first;
      has_bias = has_bias || std::isfinite(b);
      bias.push_back(std::isfinite(b) ? json(b) : json(nullptr));
    }
    json j = {{"row", "iteration t (0 = start) or evaluation for searches"},
              {"evaluations", ev},
              {"loss_mean", mean},
              {"loss_sd", sd},
              {"theta1_mean", th},
              {"theta1_sd", th_sd},
              {"noise_norm_mean", noise}};
    if (has_bias) j["bias_mean"] = bias;
    return j;
  }
};

/// Final numbers of one method (the table's row).
struct MethodSummary {
  std::string label;
  double loss_mean = 0, loss_sd = 0, evaluations_mean = 0, mu = 0, noise_std = 0, seconds = 0;
};

MethodState collect(const std::vector<const UnitRecord*>& units) {
  std::vector<json> runs;
  MethodState s;
  for (const UnitRecord* u : units) {
    s.seconds += u->seconds;
    if (u->record.contains("noise_source") && s.noise_source.empty()) {
      s.noise_source = u->record["noise_source"].get<std::string>();
    }
    for (const json& r : u->record.at("runs")) runs.push_back(r);
  }
  std::sort(runs.begin(), runs.end(), [](const json& a, const json& b) {
    return a.at("run").get<std::uint32_t>() < b.at("run").get<std::uint32_t>();
  });
  for (const json& r : runs) s.add(r);
  return s;
}

/// A number as a JSON key, shortest form ("1", "0.001").
std::string key(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

json ledger(const Config& c, const MethodSpec& m, int n, const std::string& source) {
  json j;
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
  json de = json::object(), ed = json::object();
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

std::string table(const std::vector<MethodSummary>& ms, double optimum) {
  std::size_t w = 6;
  for (const auto& m : ms) w = std::max(w, m.label.size());
  const int width = static_cast<int>(w);
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %-28s  %12s  %8s  %10s  %9s\n", width, "method",
                "final loss (mean ± sd)", "evaluations", "mu", "noise std", "seconds");
  out += line;
  for (const auto& m : ms) {
    char loss[64];
    std::snprintf(loss, sizeof loss, "%.5g ± %.3g", m.loss_mean, m.loss_sd);
    std::snprintf(line, sizeof line, "%-*s  %-29s  %12.1f  %8.3g  %10.4g  %9.2f\n", width,
                  m.label.c_str(), loss, m.evaluations_mean, m.mu, m.noise_std, m.seconds);
    out += line;
  }
  if (!std::isnan(optimum)) {
    std::snprintf(line, sizeof line, "\noptimum loss: %.6g\n", optimum);
    out += line;
  }
  return out;
}

}  // namespace

gpb::detail::FamilySummary summarize_dpgibo(
    const Config& c, const Task& task,
    const std::vector<std::vector<const UnitRecord*>>& by_policy) {
  gpb::detail::FamilySummary out;
  const std::optional<Eigen::VectorXd> opt = task.optimum();
  const double optimum = opt ? task.objective(*opt) : std::numeric_limits<double>::quiet_NaN();
  json& f = out.fields;
  f["task"] = task.describe();
  f["users"] = task.users();
  f["eval_noise_sd"] = c.eval_noise_sd;
  if (c.eval_noise_shared) f["eval_noise"] = "shared_per_point";
  if (opt) {
    f["optimum_loss"] = optimum;
    f["optimum"] = std::vector<double>(opt->data(), opt->data() + opt->size());
  }
  f["privacy_noise"] = c.settings.privacy_seeded ? "seeded simulation — not private" : "secure";
  std::vector<MethodSummary> rows;
  for (std::size_t mi = 0; mi < c.methods.size(); ++mi) {
    const MethodSpec& m = c.methods[mi];
    const MethodState s = collect(by_policy[mi]);
    MethodSummary ms;
    ms.label = m.label;
    std::tie(ms.loss_mean, ms.loss_sd) = mean_sd(s.final_loss);
    ms.evaluations_mean = mean_sd(s.evaluations).first;
    ms.mu = m.privat() ? m.gibo.mu : std::numeric_limits<double>::infinity();
    ms.noise_std = m.privat() ? dp_noise_std(m.gibo.B, m.gibo.T, task.users(), m.gibo.mu) : 0.0;
    ms.seconds = s.seconds;
    rows.push_back(ms);
    json mj;
    mj["final_loss_mean"] = ms.loss_mean;
    mj["final_loss_sd"] = ms.loss_sd;
    mj["final_loss_per_run"] = s.final_loss;
    mj["evaluations_mean"] = ms.evaluations_mean;
    if (!s.distance.empty()) {
      const auto [dm, dsd] = mean_sd(s.distance);
      mj["distance_to_optimum_mean"] = dm;
      mj["distance_to_optimum_sd"] = dsd;
    }
    if (s.jitter > 0) mj["largest_jitter"] = s.jitter;
    mj["eval_noise_sd"] = m.eval_noise_sd >= 0 ? m.eval_noise_sd : c.eval_noise_sd;
    mj["curve"] = s.curve();
    if (s.steps > 0 &&
        (m.type == "dp_gibo" || m.type == "gibo" || m.type == "dp_gd" || m.type == "gd")) {
      // Signal against privacy noise: the clipped-mean gradient the method sees, ‖g‖, against the
      // noise added to it (ν‖w‖, expected ≈ ν√d), averaged over runs and iterations.
      mj["grad_norm_mean"] = s.grad_sum / static_cast<double>(s.steps);
      mj["noise_norm_mean"] = s.noise_sum / static_cast<double>(s.steps);
      mj["noise_norm_expected"] = ms.noise_std * std::sqrt(static_cast<double>(task.dim()));
    }
    if (s.bias_steps > 0) {  // the surrogate's gradient error, where the task knows ∇L_i
      mj["bias_norm_mean"] = s.bias_sum / static_cast<double>(s.bias_steps);
      mj["grad_error_mean"] = s.error_sum / static_cast<double>(s.bias_steps);
    }
    mj["privacy"] = ledger(c, m, task.users(), s.noise_source);
    out.policies.push_back(mj);
  }
  out.table = table(rows, optimum);
  return out;
}

}  // namespace gpb::dpgibo::detail
