// The Optimizer's acquisition rules over the candidates: GP-UCB (through FinitePosterior's fused
// argmax), expected improvement, Thompson sampling (pathwise conditioning of a prior draw) and
// uniform random picks. See AcquisitionOptions in include/gpbandit/optimizer.hpp.
#include <algorithm>
#include <cmath>
#include <limits>

#include "gpbandit/error.hpp"
#include "optimizer/state.hpp"

namespace gpb {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// log(z·Φ(z) + φ(z)), the expected improvement of a unit normal over −z, for any z: direct for
/// z > −20, else the asymptotic series of the Mills ratio (relative error < 1e−10 there).
double log_h(double z) {
  constexpr double kInvSqrt2 = 0.70710678118654752440;
  constexpr double kLogSqrt2Pi = 0.91893853320467274178;
  if (z > -20.0) {
    const double cdf = 0.5 * std::erfc(-z * kInvSqrt2);
    const double pdf = std::exp(-0.5 * z * z - kLogSqrt2Pi);
    return std::log(z * cdf + pdf);
  }
  const double w = 1.0 / (z * z);
  return -0.5 * z * z - kLogSqrt2Pi + std::log(w * (1.0 - w * (3.0 - w * (15.0 - 105.0 * w))));
}

/// log EI of N(m, s²) over the threshold `best` (−∞ when it is 0).
double log_ei(double m, double var, double best) {
  const double u = m - best;
  const double s = std::sqrt(std::max(var, 0.0));
  if (!(s > 0)) return u > 0 ? std::log(u) : kNegInf;
  return std::log(s) + log_h(u / s);
}

bool excluded_at(const std::vector<std::uint8_t>& ex, int j) {
  return !ex.empty() && ex[static_cast<std::size_t>(j)] != 0;
}

/// Argmax of score over the first n points not excluded; exact ties broken by one uniform draw
/// of `rng` when given, else the lowest index. @throws InvalidArgument if all are excluded.
int argmax(const Eigen::VectorXd& score, int n, const std::vector<std::uint8_t>& ex, Rng* rng) {
  double best = kNegInf;
  std::vector<int> ties;
  for (int j = 0; j < n; ++j) {
    if (excluded_at(ex, j)) continue;
    GPB_EXPECTS(!std::isnan(score[j]),
                "ask: the acquisition score of candidate " << j << " is NaN");
    if (ties.empty() || score[j] > best) {
      best = score[j];
      ties.assign(1, j);
    } else if (score[j] == best) {
      ties.push_back(j);
    }
  }
  GPB_EXPECTS(!ties.empty(), "ask: every candidate is excluded");
  if (ties.size() == 1 || rng == nullptr) return ties.front();
  auto k = static_cast<std::size_t>(std::floor(rng->uniform() * static_cast<double>(ties.size())));
  return ties[std::min(k, ties.size() - 1)];
}

}  // namespace

int Optimizer::State::choose(const std::vector<std::uint8_t>& excluded) {
  const AcquisitionOptions& a = opt.acquisition;
  if (asks_served < opt.initial_points || a.kind == AcquisitionKind::Random) {
    int free = 0;
    for (int j = 0; j < n; ++j) free += excluded_at(excluded, j) ? 0 : 1;
    GPB_EXPECTS(free > 0, "ask: every candidate is excluded");
    auto k = static_cast<int>(policy.below(static_cast<std::uint64_t>(free)));
    for (int j = 0; j < n; ++j) {
      if (!excluded_at(excluded, j) && k-- == 0) return j;
    }
  }
  if (a.kind == AcquisitionKind::Ucb) {
    const double width = a.beta.width(post->rows() + 1, n, post->info_gain(0));
    const auto c = post->ucb_argmax(&width, excluded.empty() ? nullptr : excluded.data(),
                                    opt.random_ties ? &tiebreak : nullptr);
    return c[0].index;
  }
  const Eigen::Map<const Eigen::VectorXd> mu(post->mean(0), post->size());
  if (a.kind == AcquisitionKind::ExpectedImprovement) {
    const Eigen::Map<const Eigen::VectorXd> var(post->variance(0), post->size());
    double incumbent = num_obs() > 0 ? kNegInf : 0.0;  // best posterior mean observed
    for (int p : obs_point) incumbent = std::max(incumbent, mu[p]);
    const double best = incumbent + a.xi / y_scale;
    Eigen::VectorXd score(n);
    for (int j = 0; j < n; ++j) score[j] = log_ei(mu[j], var[j], best);
    double top = kNegInf;
    for (int j = 0; j < n; ++j) top = excluded_at(excluded, j) ? top : std::max(top, score[j]);
    if (top == kNegInf) score = mu.head(n);  // no improvement possible anywhere: exploit
    return argmax(score, n, excluded, opt.random_ties ? &policy : nullptr);
  }
  // Thompson sampling: one posterior draw over the candidates (thompson.hpp).
  const Eigen::VectorXd f = thompson.draw(*ctx, opt.kernel, *post, posterior_points(), n,
                                          a.exact_max, a.features, policy);
  return argmax(f, n, excluded, nullptr);
}

}  // namespace gpb
