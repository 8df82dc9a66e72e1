/// @file policy.hpp
/// The Policy interface (DESIGN §3): one algorithm advancing R runs in lockstep.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/context.hpp"
#include "gpbandit/domain.hpp"
#include "gpbandit/kernel.hpp"

namespace gpb {

/// Everything a policy may know about its problem when it is built.
struct PolicyEnv {
  const Context* ctx = nullptr;
  const Domain* domain = nullptr;
  Kernel kernel;
  /// Global run ids of the runs advanced together (RNG streams are keyed by these).
  std::vector<std::uint32_t> run_ids;
  /// Evaluations per run (T).
  int horizon = 1;
  std::uint64_t seed = 0;
  /// Position of the policy in the experiment (keys its own random streams).
  std::uint32_t policy_index = 0;
  /// Gaussian noise variance λ of the surrogate model.
  double noise_variance = 1e-2;
  /// Break exact argmax ties at random (true) or by lowest index (false).
  bool random_ties = true;

  int runs() const { return static_cast<int>(run_ids.size()); }
};

/// One round of the experiment.
struct Round {
  int index = 1;  ///< 1-based round number
  int done = 0;   ///< evaluations per run completed before this round
  int q = 1;      ///< evaluations per run to select this round
};

/// Candidates chosen for every run: chosen[r·q + i] is the i-th choice of run r.
struct Selection {
  int runs = 0;
  int q = 0;
  std::vector<int> chosen;
  int at(int run, int i) const { return chosen[static_cast<std::size_t>(run) * q + i]; }
};

/// Rewards seen by the learner, laid out like Selection::chosen.
struct Rewards {
  std::vector<double> y;
};

/// An algorithm over R runs in lockstep. select() then observe() once per round.
class Policy {
 public:
  virtual ~Policy() = default;
  /// Name as it appears in runs.csv and summary.json.
  virtual std::string name() const = 0;
  /// Evaluations per round this policy wants (q ≥ 1).
  virtual int batch_size() const { return 1; }
  /// Chooses round.q candidates for every run.
  virtual Selection select(const Round& round) = 0;
  /// Feeds back the rewards of the last selection.
  virtual void observe(const Selection& selection, const Rewards& rewards) = 0;
};

/// Confidence-width schedule for UCB: score = μ + √β_t·σ.
struct BetaSchedule {
  enum class Kind {
    Srinivas,  ///< β_t = 2 ln(|D| t² π² / (6δ)) (Srinivas et al. 2010, finite domain)
    IgpUcb,    ///< √β_t = B + R·√(2(γ̂_{t−1} + 1 + ln(1/δ))) (Chowdhury & Gopalan 2017)
    Constant,  ///< β_t = value
  };
  Kind kind = Kind::Srinivas;
  double delta = 0.1;  ///< failure probability δ ∈ (0, 1)
  double value = 4.0;  ///< Constant: β
  double rkhs_bound = 1.0;      ///< IgpUcb: B, bound on ‖f‖_k
  double subgaussian = 0.1;     ///< IgpUcb: R, sub-Gaussian noise constant
  double scale = 1.0;           ///< multiplies √β_t (practical width shrinkage)

  /// √β_t·scale for the t-th evaluation (t ≥ 1) on a domain of n candidates, with information
  /// gain γ̂_{t−1}. @throws InvalidArgument for δ ∉ (0,1), value ≤ 0, B < 0, R < 0, scale ≤ 0.
  double width(int t, int n, double gamma) const;
  void validate() const;
  std::string describe() const;
};

/// GP-UCB over the finite domain, through FinitePosterior.
std::unique_ptr<Policy> make_gp_ucb(const PolicyEnv& env, const BetaSchedule& beta);
/// Batch GP-UCB (GP-BUCB, Desautels et al. 2014): q points per round, each chosen by UCB after
/// hallucinating the earlier ones (σ² only); μ is updated once the real rewards arrive.
/// `distinct` forbids choosing a candidate twice within one batch.
/// @throws InvalidArgument if q < 1 or q > N (with distinct).
std::unique_ptr<Policy> make_batch_gp_ucb(const PolicyEnv& env, const BetaSchedule& beta, int q,
                                          bool distinct);
/// Uniform random search over the domain (with replacement across rounds).
std::unique_ptr<Policy> make_random_search(const PolicyEnv& env);

}  // namespace gpb
