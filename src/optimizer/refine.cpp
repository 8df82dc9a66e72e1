// Continuous refinement of an ask on a box, or of the continuous parameters of a parameter space
// (RefineOptions in include/gpbandit/optimizer/optimizer.hpp): local candidates around the
// incumbent (a TuRBO-like trust region) and around the global step's best candidates, L-BFGS-B
// polishing of the best few on the acquisition with the gradients of surrogate.hpp, and the growth
// of the candidate set by the point chosen. On a space only the continuous features move (the
// other parameters keep the levels of the point moved) and points that break a constraint are
// dropped.
#include <LBFGSB.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <vector>

#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/engine/space_values.hpp"
#include "optimizer/state.hpp"

namespace gpb {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kTrMin = 1.0 / 128.0, kTrMax = 1.6, kTrInitial = 0.8;

/// −acquisition for LBFGSpp over the free axes of unit coordinates u ∈ [0, 1]^d (every axis of a
/// box; a parameter space's continuous features, the others fixed at `base`), remembering the
/// best point seen (all d coordinates).
class NegAcquisition {
 public:
  NegAcquisition(const detail::Surrogate& s, const detail::AcquisitionRule& r,
                 const Eigen::VectorXd& lower, const Eigen::VectorXd& width,
                 const std::vector<int>& free, const Eigen::VectorXd& base)
      : s_(s), r_(r), lower_(lower), width_(width), free_(free), u_(base) {}

  double operator()(const Eigen::VectorXd& v, Eigen::VectorXd& grad) {
    for (std::size_t i = 0; i < free_.size(); ++i) u_[free_[i]] = v[static_cast<Eigen::Index>(i)];
    const Eigen::VectorXd x = lower_ + u_.cwiseProduct(width_);
    double m = 0, var = 0, dm = 0, dv = 0;
    s_.at(x, m, var, gm_, gv_);
    const double a = r_.value(m, var, &dm, &dv);
    grad.setZero(v.size());
    if (!std::isfinite(a)) return std::numeric_limits<double>::infinity();
    const Eigen::VectorXd g = -(dm * gm_ + dv * gv_).cwiseProduct(width_);
    for (std::size_t i = 0; i < free_.size(); ++i) grad[static_cast<Eigen::Index>(i)] = g[free_[i]];
    if (a > best_value) {
      best_value = a;
      best_u = u_;
    }
    return -a;
  }

  double best_value = kNegInf;
  Eigen::VectorXd best_u;

 private:
  const detail::Surrogate& s_;
  const detail::AcquisitionRule& r_;
  const Eigen::VectorXd& lower_;
  const Eigen::VectorXd& width_;
  const std::vector<int>& free_;
  Eigen::VectorXd u_, gm_, gv_;
};

/// Indices of the k largest finite entries of `v` (descending).
std::vector<int> top_k(const Eigen::VectorXd& v, int k) {
  std::vector<int> idx;
  for (Eigen::Index j = 0; j < v.size(); ++j) {
    if (v[j] > kNegInf) idx.push_back(static_cast<int>(j));
  }
  k = std::min<int>(k, static_cast<int>(idx.size()));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                    [&](int a, int b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
  idx.resize(static_cast<std::size_t>(k));
  return idx;
}

/// The level neighbours of point x on a parameter space: x with one non-refined parameter moved
/// to another of its levels, the refined (continuous) features `free` kept at x's values; only
/// those that satisfy the constraints. Σ (levels − 1) points at most, in x coordinates.
std::vector<Eigen::VectorXd> level_neighbours(const ParameterSpace& space, const double* x,
                                              const std::vector<int>& free) {
  std::vector<Eigen::VectorXd> out;
  const std::vector<int> levels = space.decode(x);
  const auto& ps = space.parameters();
  Eigen::VectorXd y(space.encoded_dim());
  for (std::size_t p = 0; p < ps.size(); ++p) {
    if (ps[p].refinable()) continue;
    std::vector<int> moved = levels;
    for (int l = 0; l < ps[p].size(); ++l) {
      if (l == levels[p]) continue;
      moved[p] = l;
      space.encode_levels(moved.data(), y.data());
      for (const int a : free) y[a] = x[a];
      if (feasible_at(space, y.data())) out.push_back(y);
    }
  }
  return out;
}

}  // namespace

void Optimizer::State::update_trust_region(double y) {
  const double v = sign() * y;
  if (num_obs() <= 1) {  // the first observation (record() has already stored it)
    tr_best = v;
    return;
  }
  if (v > tr_best + 1e-3 * std::abs(tr_best)) {
    ++tr_success;
    tr_failure = 0;
  } else {
    ++tr_failure;
    tr_success = 0;
  }
  tr_best = std::max(tr_best, v);
  if (tr_success >= 3) {
    tr_length = std::min(2.0 * tr_length, kTrMax);
    tr_success = 0;
  }
  if (tr_failure >= std::max(4, d)) {
    tr_length /= 2.0;
    tr_failure = 0;
    if (tr_length < kTrMin) tr_length = kTrInitial;
  }
}

void Optimizer::State::pull_from_faces(const detail::Surrogate& sur,
                                       const detail::AcquisitionRule& rule,
                                       const Eigen::VectorXd& u_inc, Eigen::VectorXd& x,
                                       double& value) {
  constexpr double kMargin = 0.01;  // within 1 % of the width of a face
  const double lowest = value - opt.refine.face_tolerance;
  for (int k = 0; k < d; ++k) {
    const double u = (x[k] - unit_lower[k]) / unit_width[k];
    if (u > kMargin && u < 1.0 - kMargin) continue;
    for (const double step : {1.0, 0.5, 0.25, 0.125}) {
      Eigen::VectorXd y = x;
      y[k] = unit_lower[k] + (u + step * (u_inc[k] - u)) * unit_width[k];
      opt.domain.project(y.data());
      Eigen::VectorXd m, v;
      sur.predict(Eigen::Map<const Eigen::MatrixXd>(y.data(), d, 1), m, v);
      const double a = rule.value(m[0], v[0]);
      if (a >= lowest) {
        x = y;
        value = a;
        break;
      }
    }
  }
}

int Optimizer::State::refine(int c, const detail::AcquisitionRule& rule,
                             const Eigen::VectorXd& score, std::vector<std::uint8_t>& excluded) {
  const RefineOptions& ro = opt.refine;
  const int rows = post->rows();
  const detail::Surrogate sur(*ctx, opt.kernel, post->factor(0), rows, history_points(rows));
  const Eigen::VectorXd& lo = unit_lower;
  const Eigen::VectorXd& wd = unit_width;
  const auto unit_of = [&](const double* x) {
    return Eigen::VectorXd((Eigen::Map<const Eigen::VectorXd>(x, d) - lo).cwiseQuotient(wd));
  };

  // The axes moved (every axis of a box; a parameter space's continuous features: the others
  // keep the levels of the point a local candidate is drawn around).
  const std::vector<int>& F = free_axes;
  const int df = static_cast<int>(F.size());
  const ParameterSpace* space =
      opt.domain.kind == DomainSpec::Kind::Parameters ? opt.domain.space.get() : nullptr;
  const auto feasible = [&](const double* x) {
    return space == nullptr || space->constraints().empty() || feasible_at(*space, x);
  };

  // Axis weights: the lengthscales in unit coordinates over their geometric mean on the moved
  // axes (TuRBO).
  Eigen::VectorXd w = opt.kernel.lengthscales();
  if (w.size() != d || !opt.kernel.stationary()) w = Eigen::VectorXd::Ones(d);
  w = w.cwiseQuotient(wd);
  if (df == d) {
    w /= std::exp(w.array().log().mean());
  } else {
    double log_sum = 0;
    for (const int k : F) log_sum += std::log(w[k]);
    w /= std::exp(log_sum / df);
  }

  // The incumbent: the observation with the best posterior mean (EI's threshold).
  const Eigen::Map<const Eigen::VectorXd> mu(post->mean(0), post->size());
  int inc = c;
  double best_mean = kNegInf;
  for (int p : obs_point) {
    if (mu[p] > best_mean) best_mean = mu[p], inc = p;
  }
  const Eigen::VectorXd u_inc = unit_of(point(inc));

  // Local candidates in unit coordinates.
  const int m_tr = std::max(0, ro.local_points), m_small = m_tr / 4;
  const std::vector<int> centres = top_k(score, std::max(ro.centres, ro.starts));
  const int n_centres = std::min<int>(ro.centres, static_cast<int>(centres.size()));
  const int m_coord = std::max(0, ro.coordinate_points);
  // On a parameter space, also the incumbent with one other parameter at another level (its
  // continuous values kept): the refined values carried to the neighbouring combinations.
  const std::vector<Eigen::VectorXd> neighbours =
      space != nullptr ? level_neighbours(*space, point(inc), F) : std::vector<Eigen::VectorXd>{};
  const int m_nb = static_cast<int>(neighbours.size());
  Eigen::MatrixXd U(d, m_tr + m_small + m_small * n_centres + m_coord + m_nb);
  const double prob = std::min(1.0, 20.0 / df);
  const Eigen::ArrayXd half = 0.5 * tr_length * w.array();
  const Eigen::ArrayXd tr_lo = (u_inc.array() - half).max(0.0);
  const Eigen::ArrayXd tr_hi = (u_inc.array() + half).min(1.0);
  const auto any_free = [&] { return F[policy.below(static_cast<std::uint64_t>(df))]; };
  int col = 0;
  for (int i = 0; i < m_tr; ++i, ++col) {  // the trust region, a random subset of axes moved
    Eigen::VectorXd u = u_inc;
    bool moved = false;
    for (const int k : F) {
      if (policy.uniform() < prob) {
        u[k] = tr_lo[k] + (tr_hi[k] - tr_lo[k]) * policy.uniform();
        moved = true;
      }
    }
    if (!moved) {
      const int k = any_free();
      u[k] = tr_lo[k] + (tr_hi[k] - tr_lo[k]) * policy.uniform();
    }
    U.col(col) = u;
  }
  const auto gaussian = [&](const Eigen::VectorXd& centre, double sd, int count) {
    for (int i = 0; i < count; ++i, ++col) {
      U.col(col) = centre;
      for (const int k : F) {
        U(k, col) = std::clamp(centre[k] + sd * w[k] * policy.normal(), 0.0, 1.0);
      }
    }
  };
  gaussian(u_inc, 1e-2, m_small / 2);  // close to the incumbent, as BoTorch samples around best
  gaussian(u_inc, 1e-3, m_small - m_small / 2);
  // The candidates' spacing along a moved axis: N^(−1/d) on a box, a continuous parameter's grid
  // step (geometric mean over the parameters) on a space.
  double spacing = std::pow(static_cast<double>(n), -1.0 / d);
  if (space != nullptr) {
    double log_step = 0;
    for (const Parameter& par : space->parameters()) {
      if (par.refinable()) log_step -= std::log(static_cast<double>(par.size() - 1)) / df;
    }
    spacing = std::exp(log_step);
  }
  for (int i = 0; i < n_centres; ++i) {
    gaussian(unit_of(point(centres[static_cast<std::size_t>(i)])), 0.25 * spacing, m_small);
  }
  for (int i = 0; i < m_coord; ++i, ++col) {  // 1..3 axes of the incumbent moved anywhere
    U.col(col) = u_inc;
    const int moves =
        1 + static_cast<int>(policy.below(static_cast<std::uint64_t>(std::min(3, df))));
    for (int j = 0; j < moves; ++j) {
      const int k = any_free();  // drawn before the value, as the draws have always been ordered
      U(k, col) = policy.uniform();
    }
  }
  for (const Eigen::VectorXd& x : neighbours) U.col(col++) = unit_of(x.data());
  Eigen::MatrixXd X = (U.array().colwise() * wd.array()).colwise() + lo.array();
  for (Eigen::Index j = 0; j < X.cols(); ++j) opt.domain.project(X.col(j).data());
  Eigen::VectorXd lm, lv;
  sur.predict(X, lm, lv);
  Eigen::VectorXd local(X.cols());
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    local[j] = feasible(X.col(j).data()) ? rule.value(lm[j], lv[j]) : kNegInf;
  }

  // The candidate's own value on the same footing, and the best local candidate.
  Eigen::VectorXd cm, cv;
  sur.predict(Eigen::Map<const Eigen::MatrixXd>(point(c), d, 1), cm, cv);
  const double base = rule.value(cm[0], cv[0]);
  double best = base;
  Eigen::VectorXd best_x = Eigen::Map<const Eigen::VectorXd>(point(c), d);
  const std::vector<int> local_top = top_k(local, std::max(1, ro.starts));
  if (!local_top.empty() && local[local_top[0]] > best) {
    best = local[local_top[0]];
    best_x = X.col(local_top[0]);
  }

  // Gradient polishing of the best few (candidates and local points together).
  if (ro.starts > 0 && sur.differentiable()) {
    std::vector<std::pair<double, Eigen::VectorXd>> starts;
    for (int j : centres) starts.emplace_back(score[j], unit_of(point(j)));
    for (int j : local_top) starts.emplace_back(local[j], U.col(j));
    std::stable_sort(starts.begin(), starts.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    starts.resize(std::min<std::size_t>(starts.size(), static_cast<std::size_t>(ro.starts)));
    LBFGSpp::LBFGSBParam<double> param;
    param.m = 6;
    param.epsilon = 1e-7;
    param.past = 1;
    param.delta = 1e-10;
    param.max_iterations = ro.iterations;
    param.max_linesearch = 20;
    LBFGSpp::LBFGSBSolver<double> solver(param);
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(df), one = Eigen::VectorXd::Ones(df);
    for (auto& [value, u] : starts) {
      if (!(value > kNegInf)) continue;
      NegAcquisition fun(sur, rule, lo, wd, F, u);
      double fx = 0;
      Eigen::VectorXd x0(df);
      for (int i = 0; i < df; ++i) x0[i] = std::clamp(u[F[static_cast<std::size_t>(i)]], 0.0, 1.0);
      try {
        solver.minimize(fun, x0, fx, zero, one);
      } catch (const std::exception&) {
        // Line-search failures: the best point this start evaluated is still kept.
      }
      if (fun.best_u.size() != d) continue;
      Eigen::VectorXd x = lo + fun.best_u.cwiseProduct(wd);
      opt.domain.project(x.data());       // integer axes and one-hot groups: re-scored below
      if (!feasible(x.data())) continue;  // a space's linear or mixture constraint broken
      Eigen::VectorXd pm, pv;
      sur.predict(Eigen::Map<const Eigen::MatrixXd>(x.data(), d, 1), pm, pv);
      const double a = rule.value(pm[0], pv[0]);
      if (a > best) best = a, best_x = x;
    }
  }
  if (ro.face_tolerance > 0 && space == nullptr) pull_from_faces(sur, rule, u_inc, best_x, best);
  if (!(best > base + 1e-12 * (1.0 + std::abs(base)))) return c;
  if (find_point(best_x.data()) >= 0) return c;  // an existing point: keep the candidate
  const int p = add_extra(best_x.data());
  if (!excluded.empty()) excluded.resize(static_cast<std::size_t>(post->size()), 1);
  return p;
}

}  // namespace gpb
