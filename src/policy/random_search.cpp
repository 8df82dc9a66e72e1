// Uniform random search over the finite domain.
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"

namespace gpb {

namespace {

class RandomSearch final : public Policy {
 public:
  explicit RandomSearch(const PolicyEnv& env) : n_(env.domain->size()) {
    for (std::uint32_t run : env.run_ids)
      rng_.emplace_back(env.seed, run, stream_of(StreamId::Policy, env.policy_index));
  }

  std::string name() const override { return "random"; }

  Selection select(const Round& round) override {
    Selection s;
    s.runs = static_cast<int>(rng_.size());
    s.q = round.q;
    s.chosen.resize(static_cast<std::size_t>(s.runs) * s.q);
    for (int r = 0; r < s.runs; ++r) {
      for (int i = 0; i < s.q; ++i) {
        s.chosen[static_cast<std::size_t>(r) * s.q + i] = static_cast<int>(rng_[r].below(n_));
      }
    }
    return s;
  }

  void observe(const Selection&, const Rewards&) override {}

 private:
  int n_;
  std::vector<Rng> rng_;
};

}  // namespace

std::unique_ptr<Policy> make_random_search(const PolicyEnv& env) {
  GPB_EXPECTS(env.domain != nullptr && env.domain->size() >= 1,
              "random: PolicyEnv needs a non-empty domain");
  GPB_EXPECTS(!env.run_ids.empty(), "random: PolicyEnv needs at least one run");
  return std::make_unique<RandomSearch>(env);
}

}  // namespace gpb
