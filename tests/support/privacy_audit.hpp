// Statistical privacy audit (a black-box lower bound on a mechanism's privacy loss).
//
// A mechanism is a plug-in: a function (which, source) → one real number, where which = 0 runs it
// on a data set D and which = 1 on a neighbouring D'. Vector outputs (a noisy gradient, a vector
// of node means) are audited through a scalar statistic of the output; any statistic is
// post-processing, so the bound below stays a valid lower bound on the mechanism's ε.
//
// Method (in the spirit of Ding et al., "Detecting Violations of Differential Privacy", CCS 2018,
// and Jagielski et al., "Auditing Differentially Private Machine Learning", NeurIPS 2020):
//  1. selection: n_select draws from each side; among the events {z ≥ t}, {z ≤ t} (t on a grid
//     of pooled quantiles) and {z = v} (the most frequent values, for discrete outputs), pick the
//     event S and direction (D vs D' or D' vs D) that maximise the lower bound of step 2 computed
//     on these draws;
//  2. evaluation on n FRESH draws per side (independent of the choice of S):
//       ε_lower = ln((p_lo − δ) / q_hi),
//     p_lo a lower and q_hi an upper Chernoff–KL confidence bound (each at level α) on
//     P[M(D) ∈ S] and P[M(D') ∈ S]. Since (ε, δ)-DP means P[M(D) ∈ S] ≤ e^ε P[M(D') ∈ S] + δ for
//     every S, a mechanism that meets its claim gives ε_lower > ε_claimed with probability ≤ 2α
//     (the false-failure probability of one audit).
// The audit passes when ε_lower ≤ ε_claimed. It can only detect violations visible in the chosen
// statistic with ~n samples; passing is evidence, not a proof (the proofs are in the mechanisms'
// doc comments).
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gpbandit/privacy/noise_source.hpp"

namespace gpb::test::audit {

/// A mechanism under audit and the guarantee it claims for the neighbouring pair it samples.
struct Mechanism {
  std::string name;
  /// One output statistic: which = 0 → M(D), which = 1 → M(D').
  std::function<double(int which, gpb::privacy::NoiseSource&)> sample;
  double epsilon = 0;  ///< claimed ε
  double delta = 0;    ///< claimed δ at that ε (0 for pure ε-DP)
};

struct Options {
  long n = 1000000;        ///< fresh evaluation draws per side (≥ 10^6 for the issue's audits)
  long n_select = 200000;  ///< selection draws per side
  double alpha = 1e-6;     ///< level of each confidence bound; false failure ≤ 2α
  int thresholds = 400;    ///< quantile grid for half-line events
  int point_events = 64;   ///< most frequent values tried as {z = v} events
};

struct Result {
  double epsilon_lower = -std::numeric_limits<double>::infinity();  ///< (1−2α) lower bound on ε
  double epsilon_point = 0;  ///< ln((p̂ − δ)/q̂) on the evaluation draws
  double p_hat = 0, q_hat = 0;
  std::string event;  ///< the chosen event, in words
  long draws = 0;     ///< total mechanism draws (selection + evaluation, both sides)
  bool passed = false;
  std::string report() const {
    std::ostringstream os;
    os << "event " << event << ": p = " << p_hat << ", q = " << q_hat
       << ", eps_hat = " << epsilon_point << ", eps_lower = " << epsilon_lower << " (" << draws
       << " draws)";
    return os.str();
  }
};

/// KL divergence of Bernoulli(a) from Bernoulli(b).
inline double bernoulli_kl(double a, double b) {
  auto term = [](double x, double y) { return x <= 0 ? 0.0 : x * std::log(x / y); };
  return term(a, b) + term(1 - a, 1 - b);
}

/// Chernoff–KL bound: the p on the `upper` side of k/n with n·KL(k/n‖p) = ln(1/α), so that
/// P[Binomial(n, p) ≤ k] ≤ α (upper) or P[Binomial(n, p) ≥ k] ≤ α (lower).
inline double chernoff_bound(long k, long n, double alpha, bool upper) {
  const double ph = static_cast<double>(k) / static_cast<double>(n);
  const double target = std::log(1.0 / alpha) / static_cast<double>(n);
  double lo = upper ? ph : 0.0, hi = upper ? 1.0 : ph;
  if (upper && ph >= 1) return 1.0;
  if (!upper && ph <= 0) return 0.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    const bool inside = bernoulli_kl(ph, mid) <= target;
    if (upper == inside) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return upper ? hi : lo;
}

/// ln((p_lo − δ)/q_hi) from counts (−∞ when p_lo ≤ δ).
inline double epsilon_lower_bound(long kp, long kq, long n, double alpha, double delta) {
  const double p_lo = chernoff_bound(kp, n, alpha, false);
  const double q_hi = chernoff_bound(kq, n, alpha, true);
  if (p_lo <= delta || q_hi <= 0) return -std::numeric_limits<double>::infinity();
  return std::log((p_lo - delta) / q_hi);
}

/// An event {z ≥ t} (kind 0), {z ≤ t} (kind 1) or {z = t} (kind 2).
struct Event {
  int kind = 0;
  double t = 0;
  bool contains(double z) const { return kind == 0 ? z >= t : kind == 1 ? z <= t : z == t; }
  std::string describe() const {
    std::ostringstream os;
    os.precision(10);
    os << (kind == 0 ? "{z >= " : kind == 1 ? "{z <= " : "{z == ") << t << "}";
    return os.str();
  }
};

/// Runs the audit (see the file comment). Deterministic given `source`'s stream.
inline Result run(const Mechanism& m, gpb::privacy::NoiseSource& source, const Options& opt = {}) {
  std::vector<double> a(static_cast<std::size_t>(opt.n_select));
  std::vector<double> b(a.size());
  for (double& z : a) z = m.sample(0, source);
  for (double& z : b) z = m.sample(1, source);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  auto count = [](const std::vector<double>& s, const Event& e) -> long {
    if (e.kind == 0) return static_cast<long>(s.end() - std::lower_bound(s.begin(), s.end(), e.t));
    if (e.kind == 1)
      return static_cast<long>(std::upper_bound(s.begin(), s.end(), e.t) - s.begin());
    return static_cast<long>(std::upper_bound(s.begin(), s.end(), e.t) -
                             std::lower_bound(s.begin(), s.end(), e.t));
  };
  std::vector<Event> events;
  std::vector<double> pooled;
  pooled.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(pooled));
  for (int i = 1; i < opt.thresholds; ++i) {
    const double t = pooled[pooled.size() * static_cast<std::size_t>(i) /
                            static_cast<std::size_t>(opt.thresholds)];
    events.push_back({0, t});
    events.push_back({1, t});
  }
  std::map<double, long> freq;  // point masses (discrete or snapped outputs)
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j] == pooled[i]) ++j;
    if (j - i > pooled.size() / 10000) freq[pooled[i]] = static_cast<long>(j - i);
    i = j;
  }
  std::vector<std::pair<long, double>> top;
  for (const auto& [v, c] : freq) top.push_back({c, v});
  std::sort(top.rbegin(), top.rend());
  for (std::size_t i = 0; i < top.size() && i < static_cast<std::size_t>(opt.point_events); ++i) {
    events.push_back({2, top[i].second});
  }
  Event best{};
  int best_dir = 0;
  double best_bound = -std::numeric_limits<double>::infinity();
  for (const Event& e : events) {
    const long ka = count(a, e), kb = count(b, e);
    for (int dir = 0; dir < 2; ++dir) {
      const double lb = dir == 0 ? epsilon_lower_bound(ka, kb, opt.n_select, opt.alpha, m.delta)
                                 : epsilon_lower_bound(kb, ka, opt.n_select, opt.alpha, m.delta);
      if (lb > best_bound) {
        best_bound = lb;
        best = e;
        best_dir = dir;
      }
    }
  }
  long kp = 0, kq = 0;  // fresh draws: p side is `best_dir`, q side the other
  for (long i = 0; i < opt.n; ++i) kp += best.contains(m.sample(best_dir, source));
  for (long i = 0; i < opt.n; ++i) kq += best.contains(m.sample(1 - best_dir, source));
  Result r;
  r.event = best.describe() + (best_dir == 0 ? " under D vs D'" : " under D' vs D");
  r.p_hat = static_cast<double>(kp) / static_cast<double>(opt.n);
  r.q_hat = static_cast<double>(kq) / static_cast<double>(opt.n);
  r.epsilon_point = (r.p_hat > m.delta && r.q_hat > 0) ? std::log((r.p_hat - m.delta) / r.q_hat)
                                                       : -std::numeric_limits<double>::infinity();
  r.epsilon_lower = epsilon_lower_bound(kp, kq, opt.n, opt.alpha, m.delta);
  r.draws = 2 * (opt.n_select + opt.n);
  r.passed = r.epsilon_lower <= m.epsilon;
  return r;
}

}  // namespace gpb::test::audit
