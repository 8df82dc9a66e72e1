// The X-armed family's summary: regret, rounds and bytes per method, curves, the table.
#include <algorithm>
#include <cstdio>

#include "experiment/recorder.hpp"
#include "xarmed/family.hpp"

namespace gpb::xarmed {

namespace {

using gpb::detail::mean_sd;
using gpb::detail::UnitRecord;
using nlohmann::json;

/// The per-run records of one method's units, in run order.
std::vector<json> runs_of(const std::vector<const UnitRecord*>& units) {
  std::vector<json> runs;
  for (const UnitRecord* u : units) {
    for (const json& r : u->record.at("runs")) runs.push_back(r);
  }
  std::sort(runs.begin(), runs.end(), [](const json& a, const json& b) {
    return a.at("run").get<std::uint32_t>() < b.at("run").get<std::uint32_t>();
  });
  return runs;
}

std::vector<double> column(const std::vector<json>& runs, const char* key) {
  std::vector<double> v;
  for (const json& r : runs) v.push_back(r.at(key).get<double>());
  return v;
}

/// Mean and sd over runs of the cumulative regret at ≈ 100 equally spaced rounds (and T), so that
/// plots can be redrawn from summary.json alone.
json regret_curve(const std::vector<json>& runs, long long T) {
  std::vector<long long> at;
  const long long step = std::max(1LL, T / 100);
  for (long long t = step; t < T; t += step) at.push_back(t);
  at.push_back(T);
  json rounds = json::array(), mean = json::array(), sd = json::array();
  for (std::size_t k = 0; k < at.size(); ++k) {
    std::vector<double> cum;
    for (const json& r : runs) {
      const json& c = r.at("curve");
      if (k < c.size()) cum.push_back(c[k].get<double>());
    }
    const auto [m, s] = mean_sd(cum);
    rounds.push_back(at[k]);
    mean.push_back(m);
    sd.push_back(s);
  }
  return {{"rounds", rounds}, {"mean", mean}, {"sd", sd}};
}

void fed_pne_fields(json& e, const MethodSpec& m, const XConfig& c, const std::vector<json>& runs,
                    const std::vector<const UnitRecord*>& units, bool mpi) {
  e["info_per_client_mean"] = mean_sd(column(runs, "info")).first;
  e["bytes_down_logical_mean"] = mean_sd(column(runs, "bytes_down")).first;
  e["bytes_up_logical_mean"] = mean_sd(column(runs, "bytes_up")).first;
  e["broadcasts_mean"] = mean_sd(column(runs, "broadcasts")).first;
  std::uint64_t measured = 0;
  std::string privacy = "none";
  for (const UnitRecord* u : units) {
    measured += u->record.value("mpi_bytes", std::uint64_t{0});
    if (u->record.contains("privacy")) privacy = u->record["privacy"].get<std::string>();
  }
  if (mpi) e["bytes_mpi_measured_total"] = measured;
  const FedPneParams& p = m.fed;
  e["params"] = {{"k", p.k},
                 {"nu", p.nu},
                 {"rho", p.rho},
                 {"c", p.c},
                 {"c1", p.c1},
                 {"delta_conf", p.delta_conf > 0 ? p.delta_conf : 1.0 / c.clients},
                 {"depth_offset", p.depth_offset}};
  if (p.dp) {
    e["privacy"] = {{"dp_epsilon", p.dp_epsilon},
                    {"dp_delta", p.dp_delta},
                    {"sigma_dp", dp_sigma(p.dp_epsilon, p.dp_delta)},
                    {"noise_source", privacy}};
  }
}

}  // namespace

gpb::detail::FamilySummary summarize_xarmed(
    const XConfig& c, const FedObjective& f, int ranks, bool mpi,
    const std::vector<std::vector<const UnitRecord*>>& by_policy) {
  gpb::detail::FamilySummary out;
  json& s = out.fields;
  s["horizon"] = c.horizon;
  s["clients"] = c.clients;
  s["objective"] = f.name();
  s["fstar"] = f.fstar();
  s["runtime"] = mpi ? "mpi (" + std::to_string(ranks) + " ranks: server on rank 0)" : "in-process";
  s["regret_kind"] =
      "per-client average cumulative regret for federated methods, cumulative regret on f for "
      "centralised ones (hct, gp-ucb, gp-ts)";
  char line[256];
  std::snprintf(line, sizeof line, "%-16s  %-28s  %-16s  %9s\n", "method",
                "regret at T (mean ± sd)", "rounds (mean)", "seconds");
  out.table = line;
  for (std::size_t i = 0; i < c.methods.size(); ++i) {
    const MethodSpec& m = c.methods[i];
    const std::vector<json> runs = runs_of(by_policy[i]);
    double seconds = 0;
    for (const UnitRecord* u : by_policy[i]) seconds += u->seconds;
    const std::vector<double> fin = column(runs, "regret");
    const auto [fm, fs] = mean_sd(fin);
    const auto [rm, rs] = mean_sd(column(runs, "rounds"));
    json e;
    e["regret_mean"] = fm;
    e["regret_sd"] = fs;
    e["regret_per_run"] = fin;
    e["rounds_mean"] = rm;
    e["rounds_sd"] = rs;
    e["curve"] = regret_curve(runs, c.horizon);
    if (m.type == "hct") {
      e["reexpand"] = m.hct.rebuild ? "rebuild" : "keep";
      e["rebuilds_mean"] = mean_sd(column(runs, "rebuilds")).first;
      e["expansions_mean"] = mean_sd(column(runs, "expansions")).first;
    }
    if (is_fed_pne(m)) fed_pne_fields(e, m, c, runs, by_policy[i], mpi);
    out.policies.push_back(e);
    char cum[64];
    std::snprintf(cum, sizeof cum, "%.4g ± %.3g", fm, fs);
    std::snprintf(line, sizeof line, "%-16s  %-28s  %-16.3g  %9.2f\n", m.label.c_str(), cum, rm,
                  seconds);
    out.table += line;
  }
  return out;
}

}  // namespace gpb::xarmed
