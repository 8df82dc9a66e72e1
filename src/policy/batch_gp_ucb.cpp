// Batch GP-UCB by hallucination (GP-BUCB, Desautels, Krause & Burdick 2014): within a round, each
// further point is chosen by UCB on the posterior whose variance already counts the earlier points
// of the batch (their rewards are not known yet, so the mean stays); the real rewards update the
// mean once the whole batch has been evaluated.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/policy/policy.hpp"
#include "policy/ucb_common.hpp"

namespace gpb {

namespace {

class BatchGpUcb final : public Policy {
 public:
  BatchGpUcb(const PolicyEnv& env, const BetaSchedule& beta, int q, bool distinct)
      : state_(env, beta), q_(q), distinct_(distinct) {}

  std::string name() const override { return "batch_gp_ucb"; }
  int batch_size() const override { return q_; }

  Selection select(const Round& round) override {
    const int runs = state_.env().runs();
    GPB_EXPECTS(round.q >= 1 && round.q <= q_,
                "batch_gp_ucb: round asks for " << round.q << " points, batch size is " << q_);
    Selection s;
    s.runs = runs;
    s.q = round.q;
    s.chosen.assign(static_cast<std::size_t>(runs) * round.q, -1);
    excluded_.assign(static_cast<std::size_t>(runs), {});  // this batch's picks, per run
    for (int i = 0; i < round.q; ++i) {
      const std::vector<int> pick =
          state_.choose(round.done + i + 1, distinct_ ? &excluded_ : nullptr);
      for (int r = 0; r < runs; ++r) {
        s.chosen[static_cast<std::size_t>(r) * round.q + i] = pick[r];
        if (distinct_) excluded_[static_cast<std::size_t>(r)].push_back(pick[r]);
      }
      state_.posterior().add_pending(pick.data());
    }
    return s;
  }

  void observe(const Selection& selection, const Rewards& rewards) override {
    GPB_EXPECTS(
        rewards.y.size() == selection.chosen.size() && selection.q == state_.posterior().pending(),
        "batch_gp_ucb: rewards do not match the pending batch");
    state_.posterior().resolve_pending(rewards.y.data());
  }

 private:
  detail::UcbState state_;
  int q_;
  bool distinct_;
  std::vector<std::vector<int>> excluded_;
};

}  // namespace

std::unique_ptr<Policy> make_batch_gp_ucb(const PolicyEnv& env, const BetaSchedule& beta, int q,
                                          bool distinct) {
  GPB_EXPECTS(q >= 1, "batch_gp_ucb.q must be >= 1, got " << q);
  GPB_EXPECTS(env.domain != nullptr, "batch_gp_ucb: PolicyEnv needs a domain");
  GPB_EXPECTS(
      !distinct || q <= env.domain->size(),
      "batch_gp_ucb.q must be <= N = " << env.domain->size() << " when distinct, got " << q);
  return std::make_unique<BatchGpUcb>(env, beta, q, distinct);
}

}  // namespace gpb
