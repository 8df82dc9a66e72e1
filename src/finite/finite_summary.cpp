// The finite-domain family's summary: regret per policy, instance constants, privacy, the table.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "finite/finite_family.hpp"
#include "gpbandit/experiment/experiment.hpp"

namespace gpb::detail {

namespace {

using nlohmann::json;

/// Records of one policy's units, ordered by run.
std::vector<RunRecord> policy_runs(const std::vector<const UnitRecord*>& units, double* seconds) {
  std::vector<RunRecord> out;
  *seconds = 0;
  for (const UnitRecord* u : units) {
    *seconds += u->seconds;
    for (const json& r : u->record.at("runs")) out.push_back(run_record_from_json(r));
  }
  std::sort(out.begin(), out.end(),
            [](const RunRecord& a, const RunRecord& b) { return a.run < b.run; });
  return out;
}

/// summary.json's instance constants (specs/ldp-bo.md §7: B, R, v, c, x*) and privacy block.
/// B and x* per run come from the first policy's records (they cover every run).
json ldp_fields(const ExperimentConfig& cfg, const std::vector<RunRecord>& first_policy, int runs,
                const json& privacy) {
  json j;
  const InstanceConstants ic = instance_constants(cfg);
  // Unknown or infinite constants are left out (R of unbounded noise; v_emp of synthetic f).
  json inst = json::object();
  if (std::isfinite(ic.noise_bound)) inst["R"] = ic.noise_bound;
  if (std::isfinite(ic.noise_moment)) inst["c_emp"] = ic.noise_moment;
  if (ic.reward_moment > 0 && std::isfinite(ic.reward_moment)) inst["v_emp"] = ic.reward_moment;
  std::vector<double> b(static_cast<std::size_t>(runs));
  std::vector<int> xs(static_cast<std::size_t>(runs));
  for (const RunRecord& r : first_policy) {
    if (r.run < b.size()) {
      b[r.run] = r.f_sup;
      xs[r.run] = r.x_star;
    }
  }
  inst["B_per_run"] = b;
  inst["x_star_per_run"] = xs;
  j["instance"] = inst;
  const bool any_ldp = !privacy.empty();
  j["privacy_noise"] = !any_ldp             ? "none (no LDP policy)"
                       : cfg.privacy_seeded ? "seeded simulation — not private"
                                            : "secure";
  j["laplace_sampler"] =
      cfg.laplace_inverse_cdf ? "inverse_cdf (paper; leaks low-order bits)" : "snapping";
  j["privacy"] = privacy;
  return j;
}

/// Mean and sample sd (n−1; specs/ldp-bo.md §7) over the runs of one curve member, point by point.
std::pair<std::vector<double>, std::vector<double>> curve_mean_sd(
    const std::vector<RunRecord>& rs, std::vector<double> RunRecord::*member, std::size_t points) {
  std::vector<double> mean(points, 0.0), sd(points, 0.0);
  for (std::size_t k = 0; k < points; ++k) {
    std::vector<double> at;
    for (const auto& r : rs) {
      if (k < (r.*member).size()) at.push_back((r.*member)[k]);
    }
    std::tie(mean[k], sd[k]) = mean_sd(at);
  }
  return {mean, sd};
}

std::string regret_table(const std::vector<PolicySummary>& sums) {
  std::size_t w = 6;
  for (const auto& p : sums) w = std::max(w, p.label.size());
  const int width = static_cast<int>(w);
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %-30s  %-30s  %9s\n", width, "policy",
                "cumulative regret (mean ± sd)", "simple regret (mean ± sd)", "seconds");
  out += line;
  for (const auto& p : sums) {
    char cum[64], simple[64];
    std::snprintf(cum, sizeof cum, "%.4g ± %.3g", p.cumulative_mean, p.cumulative_sd);
    std::snprintf(simple, sizeof simple, "%.4g ± %.3g", p.simple_mean, p.simple_sd);
    // "±" is two bytes in UTF-8 but one column: pad one extra byte.
    std::snprintf(line, sizeof line, "%-*s  %-30s  %-30s  %9.2f\n", width, p.label.c_str(), cum,
                  simple, p.seconds);
    out += line;
  }
  return out;
}

}  // namespace

FamilySummary summarize_finite(const ExperimentConfig& cfg, int runs,
                               const std::vector<std::vector<const UnitRecord*>>& by_policy) {
  FamilySummary out;
  const auto evals = curve_evaluations(cfg.horizon);
  json privacy = json::object(), policy_info = json::object();
  std::vector<RunRecord> first_policy;
  for (std::size_t p = 0; p < cfg.policies.size(); ++p) {
    PolicySummary s;
    s.label = cfg.policies[p].label;
    const auto rs = policy_runs(by_policy[p], &s.seconds);
    if (p == 0) first_policy = rs;
    std::vector<double> cum, simple;
    for (const auto& r : rs) {
      cum.push_back(r.cumulative);
      simple.push_back(r.simple);
    }
    const auto [curve, curve_sd] = curve_mean_sd(rs, &RunRecord::curve, evals.size());
    const auto [simple_curve, simple_sd] =
        curve_mean_sd(rs, &RunRecord::simple_curve, evals.size());
    std::tie(s.cumulative_mean, s.cumulative_sd) = mean_sd(cum);
    std::tie(s.simple_mean, s.simple_sd) = mean_sd(simple);
    out.regret.push_back(s);
    out.policies.push_back(
        {{"cumulative_regret_per_run", cum},
         {"simple_regret_per_run", simple},
         {"params", json::parse(cfg.policies[p].params_json)},
         {"cumulative_regret", {{"mean", s.cumulative_mean}, {"sd", s.cumulative_sd}}},
         {"simple_regret", {{"mean", s.simple_mean}, {"sd", s.simple_sd}}},
         {"mean_cumulative_regret_curve", curve},
         {"sd_cumulative_regret_curve", curve_sd},
         {"mean_simple_regret_curve", simple_curve},
         {"sd_simple_regret_curve", simple_sd}});
    // The policy's first group describes its mechanism and info (run-independent parts).
    if (!by_policy[p].empty()) {
      const json& rec = by_policy[p].front()->record;
      if (rec.contains("privacy")) privacy[s.label] = rec["privacy"];
      if (rec.contains("policy_info")) policy_info[s.label] = rec["policy_info"];
    }
  }
  json& f = out.fields;
  f["T"] = cfg.horizon;
  f["N"] = cfg.domain.size();
  f["d"] = cfg.domain.dim();
  f["noise"] = cfg.noise.describe();
  f["kernel"] = cfg.kernel.describe();
  f["curve_evaluations"] = evals;
  const json ldp = ldp_fields(cfg, first_policy, runs, privacy);
  for (const auto& [k, v] : ldp.items()) f[k] = v;
  if (!policy_info.empty()) f["policy_info"] = policy_info;
  const std::string objective_info = cfg.objective->info_json();
  if (!objective_info.empty()) f["objective_info"] = json::parse(objective_info);
  out.table = regret_table(out.regret);
  return out;
}

}  // namespace gpb::detail
