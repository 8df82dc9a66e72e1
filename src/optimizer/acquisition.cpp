// The Optimizer's acquisition rules over the candidates: GP-UCB (through FinitePosterior's fused
// argmax), expected improvement and probability of improvement (in log space, surrogate.hpp),
// Thompson sampling (pathwise conditioning of a prior draw), uniform random picks and the Sobol
// initial design; on a box, the refinement of refine.cpp follows the global step. See
// AcquisitionOptions in include/gpbandit/optimizer/optimizer.hpp.
#include <algorithm>
#include <cmath>
#include <limits>

#include "gpbandit/error.hpp"
#include "optimizer/state.hpp"

namespace gpb {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

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

int Optimizer::State::next_design_point(const std::vector<std::uint8_t>& excluded) const {
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(n), 0);
  for (int p : obs_point) {
    if (p < n) seen[static_cast<std::size_t>(p)] = 1;
  }
  for (int j = 0; j < n; ++j) {
    if (!excluded_at(excluded, j) && seen[static_cast<std::size_t>(j)] == 0) return j;
  }
  return -1;
}

int Optimizer::State::choose(std::vector<std::uint8_t>& excluded) {
  const AcquisitionOptions& a = opt.acquisition;
  if (asks_served < opt.initial_points || a.kind == AcquisitionKind::Random) {
    const DomainSpec::Kind k = opt.domain.kind;
    if (asks_served < opt.initial_points && opt.sobol_design &&
        (k == DomainSpec::Kind::Sobol || k == DomainSpec::Kind::Box)) {
      const int j = next_design_point(excluded);  // the scrambled Sobol prefix, in order
      if (j >= 0) return j;
    }
    int free = 0;
    for (int j = 0; j < n; ++j) free += excluded_at(excluded, j) ? 0 : 1;
    GPB_EXPECTS(free > 0, "ask: every candidate is excluded");
    auto k_th = static_cast<int>(policy.below(static_cast<std::uint64_t>(free)));
    for (int j = 0; j < n; ++j) {
      if (!excluded_at(excluded, j) && k_th-- == 0) return j;
    }
  }
  if (a.kind == AcquisitionKind::Thompson) {  // one posterior draw over the candidates
    const Eigen::VectorXd f = thompson.draw(*ctx, opt.kernel, *post, posterior_points(), n,
                                            thompson_exact_max(), a.features, policy);
    return argmax(f, n, excluded, nullptr);
  }
  const bool refining = opt.refine.enabled && !free_axes.empty();
  detail::AcquisitionRule rule;
  rule.kind = a.kind;
  if (a.kind == AcquisitionKind::Ucb) {
    rule.width = a.beta.width(post->rows() + 1, n, a.beta.uses_gamma() ? post->info_gain(0) : 0.0);
    if (!refining) {  // the engine's fused argmax
      const auto c = post->ucb_argmax(&rule.width, excluded.empty() ? nullptr : excluded.data(),
                                      opt.random_ties ? &tiebreak : nullptr);
      return c[0].index;
    }
  }
  // σ² first: in recompute mode its pass fills μ too (mean() first would be a pass of its own).
  const Eigen::Map<const Eigen::VectorXd> var(post->variance(0), post->size());
  const Eigen::Map<const Eigen::VectorXd> mu(post->mean(0), post->size());
  if (a.kind != AcquisitionKind::Ucb) {
    double incumbent = num_obs() > 0 ? kNegInf : 0.0;  // best posterior mean observed
    for (int p : obs_point) incumbent = std::max(incumbent, mu[p]);
    rule.threshold = incumbent + a.xi * warp.slope(warp.top) / y_scale;
  }
  Eigen::VectorXd score(n);
  // One score per candidate, independent of the others: split over the Context's threads (a
  // streamed space's 10⁸ log-EI evaluations would otherwise run on one core); same values.
  const int nt = ctx->threads_for(40.0 * n);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int j = 0; j < n; ++j) {
    score[j] = excluded_at(excluded, j) ? kNegInf : rule.value(mu[j], var[j]);
  }
  double top = kNegInf;
  for (int j = 0; j < n; ++j) top = std::max(top, score[j]);
  if (top == kNegInf) {  // no improvement possible anywhere: exploit
    score = mu.head(n);
  }
  const int c = argmax(score, n, excluded, opt.random_ties ? &policy : nullptr);
  if (!refining || top == kNegInf) return c;
  return refine(c, rule, score, excluded);
}

}  // namespace gpb
