// GP-UCB (Srinivas et al. 2010; IGP-UCB of Chowdhury & Gopalan 2017) over a finite domain.
#include "gpbandit/error.hpp"
#include "gpbandit/policy/policy.hpp"
#include "policy/ucb_common.hpp"

namespace gpb {

namespace {

class GpUcb final : public Policy {
 public:
  GpUcb(const PolicyEnv& env, const BetaSchedule& beta) : state_(env, beta) {}

  std::string name() const override { return "gp_ucb"; }

  Selection select(const Round& round) override {
    GPB_EXPECTS(round.q == 1, "gp_ucb selects one point per round, asked for " << round.q);
    Selection s;
    s.runs = state_.env().runs();
    s.q = 1;
    s.chosen = state_.choose(round.done + 1, nullptr);
    return s;
  }

  void observe(const Selection& selection, const Rewards& rewards) override {
    GPB_EXPECTS(selection.q == 1 && rewards.y.size() == selection.chosen.size(),
                "gp_ucb: rewards do not match the selection");
    state_.posterior().observe(selection.chosen.data(), rewards.y.data());
  }

 private:
  detail::UcbState state_;
};

}  // namespace

std::unique_ptr<Policy> make_gp_ucb(const PolicyEnv& env, const BetaSchedule& beta) {
  return std::make_unique<GpUcb>(env, beta);
}

}  // namespace gpb
