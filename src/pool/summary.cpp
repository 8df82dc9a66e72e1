// The pool family's summary: the fractions of the top k found per acquisition (mean, sd, standard
// error over runs, per batch), seconds per batch and the fitted models; the CLI's table.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpbandit/engine/fingerprint.hpp"
#include "pool/family.hpp"

namespace gpb::pool::detail {

namespace {

using gpb::detail::UnitRecord;
using nlohmann::json;

/// Mean, sample sd (n−1) and standard error of `x` (sd and se 0 for one value).
json stats(const std::vector<double>& x) {
  const double n = static_cast<double>(x.size());
  double mean = 0;
  for (const double v : x) mean += v;
  mean /= std::max(n, 1.0);
  double ss = 0;
  for (const double v : x) ss += (v - mean) * (v - mean);
  const double sd = x.size() > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  return {{"mean", mean}, {"sd", sd}, {"se", x.empty() ? 0.0 : sd / std::sqrt(n)}, {"n", x.size()}};
}

/// Column `col` of every run's rows of one policy, by batch: out[batch][run].
std::vector<std::vector<double>> by_batch(const std::vector<json>& runs, int col, int batches) {
  std::vector<std::vector<double>> out(static_cast<std::size_t>(batches) + 1);
  for (const json& r : runs) {
    for (const json& row : r.at("rows")) {
      const int b = row.at(0).get<int>();
      if (b >= 0 && b <= batches)
        out[static_cast<std::size_t>(b)].push_back(row.at(col).get<double>());
    }
  }
  return out;
}

json curve(const std::vector<std::vector<double>>& per_batch) {
  json mean = json::array(), se = json::array();
  for (const auto& v : per_batch) {
    const json s = stats(v);
    mean.push_back(s["mean"]);
    se.push_back(s["se"]);
  }
  return {{"mean", mean}, {"se", se}};
}

/// Mean over runs and batches 1.. of column `col` (seconds).
double mean_seconds(const std::vector<json>& runs, int col) {
  double s = 0;
  int n = 0;
  for (const json& r : runs) {
    for (const json& row : r.at("rows")) {
      if (row.at(0).get<int>() >= 1) {
        s += row.at(col).get<double>();
        ++n;
      }
    }
  }
  return n > 0 ? s / n : 0.0;
}

}  // namespace

gpb::detail::FamilySummary PoolFamily::summarize(
    const gpb::detail::StepEnv&, const std::vector<std::vector<const UnitRecord*>>& by_policy,
    const std::string&) const {
  const Config& c = config_;
  const Library& lib = *c.library;
  gpb::detail::FamilySummary s;
  s.fields["library"] = {{"candidates", lib.domain.size()},
                         {"bits", lib.domain.fingerprint_bits()},
                         {"kind", fingerprint_kind_name(lib.domain.fingerprint_kind())},
                         {"top_k", lib.k},
                         {"init", c.n_init},
                         {"batch", c.batch},
                         {"batches", c.batches},
                         {"evaluations", c.evaluations()},
                         {"kernel", kernel_type_name(c.kernel.type())},
                         {"fit", c.fit}};
  char line[512];
  std::snprintf(line, sizeof line, "%-22s %6s %22s %22s %10s %10s\n", "policy", "runs",
                "found (scores) %", "found (molecules) %", "s/acquire", "s/update");
  s.table = line;
  for (std::size_t p = 0; p < by_policy.size(); ++p) {
    const AcquisitionSpec& spec = c.policies[p];
    std::vector<json> runs;
    double seconds = 0;
    for (const UnitRecord* u : by_policy[p]) {
      seconds += u->seconds;
      for (const json& r : u->record.at("runs")) runs.push_back(r);
    }
    std::sort(runs.begin(), runs.end(), [](const json& a, const json& b) {
      return a.at("run").get<int>() < b.at("run").get<int>();
    });
    const auto scores = by_batch(runs, 2, c.batches), molecules = by_batch(runs, 3, c.batches);
    const json fs = stats(scores.back()), fm = stats(molecules.back());
    std::vector<double> v, lam;
    for (const json& r : runs) {
      v.push_back(r.at("signal_variance").get<double>());
      lam.push_back(r.at("noise_variance").get<double>());
    }
    json pj = {{"label", spec.label},
               {"type", spec.type},
               {"runs", runs.size()},
               {"found_scores", fs},
               {"found_molecules", fm},
               {"found_scores_by_batch", curve(scores)},
               {"found_molecules_by_batch", curve(molecules)},
               {"seconds",
                {{"total", seconds},
                 {"fit_per_batch", mean_seconds(runs, 5)},
                 {"acquire_per_batch", mean_seconds(runs, 6)},
                 {"update_per_batch", mean_seconds(runs, 7)}}}};
    if (spec.type != "random") {
      pj["model"] = {{"signal_variance", stats(v)}, {"noise_variance", stats(lam)}};
    }
    if (spec.type == "ucb" || spec.type == "gp_bucb") pj["beta"] = spec.beta;
    s.policies.push_back(pj);
    PolicySummary ps;
    ps.label = spec.label;
    ps.seconds = seconds;
    s.regret.push_back(ps);
    std::snprintf(line, sizeof line, "%-22s %6zu %13.1f +- %5.1f %13.1f +- %5.1f %10.3f %10.3f\n",
                  spec.label.c_str(), runs.size(), 100 * fs["mean"].get<double>(),
                  100 * fs["se"].get<double>(), 100 * fm["mean"].get<double>(),
                  100 * fm["se"].get<double>(), mean_seconds(runs, 6), mean_seconds(runs, 7));
    s.table += line;
  }
  return s;
}

}  // namespace gpb::pool::detail
