// Presets and shared pieces of the heavy-tailed / LDP family (specs/ldp-bo.md §4).
#include "policy/ldp_presets.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {

namespace {
constexpr double kE = 2.718281828459045235360287;

bool theory(const HeavyTailedOptions& o) {
  return o.preset == Preset::Theory;
}

/// 1 + 1/√(1−ε).
double nys_factor(const HeavyTailedOptions& o) {
  return 1.0 + 1.0 / std::sqrt(1.0 - o.eps_nys);
}

/// Exponent (1−α)/(2(1+α)) of ATA / MoMA (0 for α = 1).
double tail_exponent(double alpha) {
  return (1.0 - alpha) / (2.0 * (1.0 + alpha));
}
}  // namespace

double root_1pa(double x, double alpha) {
  return alpha == 1.0 ? std::sqrt(x) : std::pow(x, 1.0 / (1.0 + alpha));
}

double root_a_1pa(double x, double alpha) {
  return alpha == 1.0 ? std::sqrt(x) : std::pow(x, alpha / (1.0 + alpha));
}

double power_or_zero(double x, double e) {
  if (e == 0.0) return 1.0;
  if (x <= 0.0) return 0.0;
  if (e == 0.25) return std::sqrt(std::sqrt(x));
  if (e == 0.5) return std::sqrt(x);
  return std::pow(x, e);
}

double log1(double x) {
  return std::log(std::max(x, 1.0));
}

void validate_options(const HeavyTailedOptions& o) {
  GPB_EXPECTS(!o.ldp || (std::isfinite(o.epsilon) && o.epsilon > 0),
              "epsilon must be > 0, got " << o.epsilon);
  GPB_EXPECTS(o.delta > 0 && o.delta < 1, "delta must lie in (0, 1), got " << o.delta);
  GPB_EXPECTS(o.eps_nys > 0 && o.eps_nys < 1, "eps_nys must lie in (0, 1), got " << o.eps_nys);
  GPB_EXPECTS(o.alpha > 0 && o.alpha <= 1, "alpha must lie in (0, 1], got " << o.alpha);
  GPB_EXPECTS(!o.B || *o.B > 0, "B must be > 0, got " << *o.B);
  GPB_EXPECTS(!o.R || *o.R > 0, "R must be > 0, got " << *o.R);
  GPB_EXPECTS(!o.v || *o.v > 0, "v must be > 0, got " << *o.v);
  GPB_EXPECTS(!o.c || *o.c > 0, "c must be > 0, got " << *o.c);
  GPB_EXPECTS(o.k_groups >= 0, "k_groups must be >= 0, got " << o.k_groups);
  GPB_EXPECTS(std::isfinite(o.width_scale) && o.width_scale > 0,
              "width_scale must be > 0, got " << o.width_scale);
  GPB_EXPECTS(std::isfinite(o.level_scale) && o.level_scale > 0,
              "level_scale must be > 0, got " << o.level_scale);
}

RunConstants run_constants(const PolicyEnv& env, const HeavyTailedOptions& o, int r) {
  RunConstants k;
  if (o.B) {
    k.B = *o.B;
  } else {
    GPB_EXPECTS(r < static_cast<int>(env.f_sup.size()),
                "B: unknown for this instance (give B in the policy parameters)");
    k.B = env.f_sup[static_cast<std::size_t>(r)];
  }
  GPB_EXPECTS(std::isfinite(k.B) && k.B > 0, "B must be > 0, got " << k.B);
  k.R = o.R ? *o.R : env.instance.noise_bound;
  const double c0 = env.instance.noise_moment;
  const double v0 = env.instance.reward_moment > 0 ? env.instance.reward_moment : k.B * k.B + c0;
  if (o.ldp) {
    GPB_EXPECTS(std::isfinite(k.R) && k.R > 0,
                "R: the noise has no finite bound (got " << k.R << "); give R (> 0)");
    k.L = 2.0 * (k.B + k.R) / o.epsilon;
    const double two_l2 = 2.0 * k.L * k.L;
    const bool bound = o.moment_source == HeavyTailedOptions::MomentSource::Bound ||
                       (o.moment_source == HeavyTailedOptions::MomentSource::Auto && theory(o));
    k.K = k.B * k.B + k.R * k.R + two_l2;
    k.v = bound ? k.K : v0 + two_l2;
    k.c = bound ? k.R * k.R + two_l2 : c0 + two_l2;
  } else {
    k.v = v0;
    k.c = c0;
  }
  if (o.v) k.v = *o.v;
  if (o.c) k.c = *o.c;
  GPB_EXPECTS(std::isfinite(k.v) && k.v > 0,
              "v: the reward moment is not finite and positive (" << k.v << "); give v");
  return k;
}

int moma_groups(Preset preset, int horizon, double delta) {
  const double l = std::log(4.0 * kE * static_cast<double>(horizon) / delta);
  return static_cast<int>(std::ceil((preset == Preset::Theory ? 24.0 : 1.0) * l));
}

double nystrom_q(Preset preset, int horizon, double delta, double eps_nys) {
  const double e2 = eps_nys * eps_nys;
  if (preset == Preset::Theory) {
    const double rho = (1.0 + eps_nys) / (1.0 - eps_nys);
    return 6.0 * rho * std::log(4.0 * static_cast<double>(horizon) / delta) / e2;
  }
  return std::log(static_cast<double>(horizon)) / e2;
}

namespace {
/// b_t by the §4 formula, before `level_scale` (the width reads this one).
double tgp_level_formula(const HeavyTailedOptions& o, const RunConstants& k, int t) {
  if (o.ldp) return k.B + k.R + k.L * log1(static_cast<double>(t));
  return root_1pa(k.v, o.alpha) * power_or_zero(t, 1.0 / (2.0 * (1.0 + o.alpha)));
}

/// β_t by the §4 formula, before `width_scale`.
double tgp_width_formula(const HeavyTailedOptions& o, const RunConstants& k, double lambda, int t,
                         double gamma_prev);
}  // namespace

double tgp_level(const HeavyTailedOptions& o, const RunConstants& k, int t) {
  return o.level_scale * tgp_level_formula(o, k, t);
}

bool tgp_width_uses_gamma(const HeavyTailedOptions& o) {
  return theory(o) && !o.gamma_log_t;
}

double tgp_width(const HeavyTailedOptions& o, const RunConstants& k, double lambda, int t,
                 double gamma_prev) {
  return o.width_scale * tgp_width_formula(o, k, lambda, t, gamma_prev);
}

namespace {
double tgp_width_formula(const HeavyTailedOptions& o, const RunConstants& k, double lambda, int t,
                         double gamma_prev) {
  const double tp = static_cast<double>(t - 1);
  const double gamma = tgp_width_uses_gamma(o) ? gamma_prev : log1(tp);
  const double sl = std::sqrt(lambda);
  if (o.ldp) {
    const double b_prev = tgp_level_formula(o, k, t - 1);
    if (!theory(o)) return k.B * sl + b_prev * std::sqrt(std::log(static_cast<double>(t)));
    return k.B + (2.0 * std::sqrt(2.0) / sl) * b_prev * std::sqrt(gamma + std::log(1.0 / o.delta)) +
           std::sqrt(k.K * (log1(tp) + 1.0)) / sl;
  }
  const double e = 1.0 / (2.0 * (1.0 + o.alpha));
  const double vr = root_1pa(k.v, o.alpha);
  if (!theory(o)) {
    return k.B * sl + power_or_zero(t, e) * vr * std::sqrt(std::log(static_cast<double>(t)));
  }
  return k.B + (3.0 / sl) * vr * power_or_zero(tp, e) *
                   std::sqrt(2.0 * gamma + 2.0 * std::log(1.0 / o.delta));
}
}  // namespace

double ata_level(const HeavyTailedOptions& o, const RunConstants& k, int horizon, int t, int m) {
  const double md = std::max(m, 1);
  const double T = horizon;
  const double l = theory(o) ? std::log(4.0 * md * T / o.delta) : std::log((md + 1.0) * T);
  return o.level_scale * root_1pa(k.v / l, o.alpha) * power_or_zero(t, tail_exponent(o.alpha));
}

double ata_width(const HeavyTailedOptions& o, const RunConstants& k, double lambda, int horizon,
                 int t, int m) {
  const double md = std::max(m, 1);
  const double T = horizon;
  const double tail = power_or_zero(t, tail_exponent(o.alpha));
  const double vr = root_1pa(k.v, o.alpha);
  if (theory(o)) {
    const double l = std::log(4.0 * md * T / o.delta);
    return o.width_scale * (k.B * nys_factor(o) +
                            4.0 * std::sqrt(md / lambda) * vr * root_a_1pa(l, o.alpha) * tail);
  }
  const double l = std::log((md + 1.0) * T);
  return o.width_scale *
         (k.B * std::sqrt(lambda) + std::sqrt(md) * vr * root_a_1pa(l, o.alpha) * tail);
}

double moma_width(const HeavyTailedOptions& o, const RunConstants& k, double lambda, int n, int m) {
  const double md = std::max(m, 1);
  const double e = o.moma_aaai ? 1.0 / (2.0 * (1.0 + o.alpha)) : tail_exponent(o.alpha);
  const double tail = power_or_zero(n, e);
  if (theory(o)) {
    return o.width_scale * (k.B * nys_factor(o) +
                            3.0 / std::sqrt(lambda) * root_1pa(9.0 * md * k.c, o.alpha) * tail);
  }
  return o.width_scale * (k.B * std::sqrt(lambda) + root_1pa(md * k.c, o.alpha) * tail);
}

double median_of(std::vector<double> values, bool midpoint) {
  GPB_EXPECTS(!values.empty(), "median of an empty set");
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const std::size_t lower = (n + 1) / 2 - 1;  // ⌈n/2⌉-th smallest, 0-based
  if (midpoint && n % 2 == 0) return 0.5 * (values[lower] + values[lower + 1]);
  return values[lower];
}

int moma_select(const Eigen::MatrixXd& w, bool midpoint) {
  const Eigen::Index k = w.cols();
  GPB_EXPECTS(k >= 1, "moma_select: need at least one estimate");
  if (k == 1) return 0;
  int best = 0;
  double best_r = std::numeric_limits<double>::infinity();
  std::vector<double> d(static_cast<std::size_t>(k - 1));
  for (Eigen::Index j = 0; j < k; ++j) {
    std::size_t pos = 0;
    for (Eigen::Index s = 0; s < k; ++s) {
      if (s != j) d[pos++] = (w.col(j) - w.col(s)).norm();
    }
    const double r = median_of(d, midpoint);
    if (r < best_r) {
      best_r = r;
      best = static_cast<int>(j);
    }
  }
  return best;
}

void AtaHistory::add(int arm, double y, double level) {
  const auto a = static_cast<std::size_t>(arm);
  auto& ab = abs_[a];
  auto& ys = y_[a];
  auto& pre = prefix_[a];
  const double ay = std::abs(y);
  const auto pos =
      static_cast<std::size_t>(std::upper_bound(ab.begin(), ab.end(), ay) - ab.begin());
  ab.insert(ab.begin() + static_cast<std::ptrdiff_t>(pos), ay);
  ys.insert(ys.begin() + static_cast<std::ptrdiff_t>(pos), y);
  pre.resize(ys.size() + 1);
  pre[0] = 0.0;
  for (std::size_t i = pos; i < ys.size(); ++i) pre[i + 1] = pre[i] + ys[i];
  arm_.push_back(arm);
  all_y_.push_back(y);
  level_.push_back(level);
}

Eigen::VectorXd AtaHistory::rhat(const Eigen::MatrixXd& g, double b) const {
  Eigen::VectorXd r = Eigen::VectorXd::Zero(g.rows());
  for (std::size_t a = 0; a < abs_.size(); ++a) {
    const auto& ab = abs_[a];
    if (ab.empty()) continue;
    const auto col = static_cast<Eigen::Index>(a);
    for (Eigen::Index i = 0; i < g.rows(); ++i) {
      const double gi = g(i, col);
      const double ag = std::abs(gi);
      const auto cnt =
          std::partition_point(ab.begin(), ab.end(), [&](double v) { return ag * v <= b; }) -
          ab.begin();
      r(i) += gi * prefix_[a][static_cast<std::size_t>(cnt)];
    }
  }
  return r;
}

Eigen::VectorXd AtaHistory::rhat_per_sample(const Eigen::MatrixXd& g) const {
  return ata_rhat_naive(g, arm_, all_y_, 0.0, level_);
}

Eigen::VectorXd ata_rhat_naive(const Eigen::MatrixXd& g, const std::vector<int>& arms,
                               const std::vector<double>& y, double b,
                               const std::vector<double>& levels) {
  Eigen::VectorXd r = Eigen::VectorXd::Zero(g.rows());
  for (std::size_t tau = 0; tau < arms.size(); ++tau) {
    const double level = levels.empty() ? b : levels[tau];
    for (Eigen::Index i = 0; i < g.rows(); ++i) {
      const double p = g(i, arms[tau]) * y[tau];
      if (std::abs(p) <= level) r(i) += p;
    }
  }
  return r;
}

ApproxRunState initial_approx_state(const PolicyEnv& env, int r, const Eigen::VectorXd& kdiag) {
  const std::uint32_t id = env.run_ids[static_cast<std::size_t>(r)];
  return ApproxRunState{Eigen::VectorXd::Zero(kdiag.size()), kdiag, 0,
                        Rng(env.seed, id, stream_of(StreamId::Policy, env.policy_index)),
                        Rng(env.seed, id, stream_of(StreamId::TieBreak, env.policy_index))};
}

std::pair<NystromEmbedding, ApproxPosterior> embed_played(const PolicyEnv& env, ApproxRunState& st,
                                                          const Eigen::VectorXd& weights,
                                                          const Eigen::VectorXd& kdiag, double q) {
  std::vector<int> played;
  for (Eigen::Index i = 0; i < weights.size(); ++i) {
    if (weights(i) > 0) played.push_back(static_cast<int>(i));
  }
  NystromEmbedding emb =
      nystrom_embedding(*env.ctx, env.kernel, *env.domain, played, st.variance, q, st.nystrom);
  ApproxPosterior apx = approx_posterior(*env.ctx, emb, weights, kdiag, env.noise_variance);
  st.m = static_cast<int>(emb.dictionary.size());
  return {std::move(emb), std::move(apx)};
}

int approx_ucb_choice(const PolicyEnv& env, ApproxRunState& s, double width) {
  const UcbChoice c =
      ucb_argmax(*env.ctx, s.mean.data(), s.variance.data(), static_cast<int>(s.mean.size()), width,
                 nullptr, env.random_ties ? &s.tiebreak : nullptr);
  return c.index;
}

Eigen::VectorXd kernel_diagonal(const PolicyEnv& env) {
  const Domain& d = *env.domain;
  Eigen::VectorXd k(d.size());
  for (int a = 0; a < d.size(); ++a) k(a) = env.kernel(d.point(a), d.point(a), d.dim());
  return k;
}

}  // namespace gpb::detail
