/// @file policy.hpp
/// The Policy interface (DESIGN §3): one algorithm advancing R runs in lockstep.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"

namespace gpb {

/// Constants of the bandit instance that heavy-tailed and LDP policies use in their widths and
/// truncation levels (specs/ldp-bo.md §1, §4, §6). Filled by the experiment runner from the
/// objective and the noise model; a policy parameter given in the config overrides them.
struct InstanceConstants {
  /// R: almost-sure bound on |η| (the noise); +∞ when the noise is unbounded (Gaussian,
  /// Student-t, ...). Data sets: max_{ρ,a} |data[ρ,a] − f(a)| (§6.2).
  double noise_bound = std::numeric_limits<double>::infinity();
  /// c₀ = E η²: the noise's second moment (U[−R,R]: R²/3; Student-t_ν: ν/(ν−2)·scale²;
  /// data sets: c_emp = mean of (data − f)²). +∞ when infinite.
  double noise_moment = 0.0;
  /// v₀ = E y² for data sets (v_emp = mean of data²); 0 means "synthetic": v₀ = B_r² + c₀ per
  /// run with B_r = f_sup[r] (the paper's v = B² + 3 for Student-t₃ noise).
  double reward_moment = 0.0;
};

/// Everything a policy may know about its problem when it is built.
struct PolicyEnv {
  /// Backend the policy's engine ops run on (must outlive the policy).
  const Context* ctx = nullptr;
  /// The finite domain (must outlive the policy).
  const Domain* domain = nullptr;
  /// Kernel of the surrogate GP.
  Kernel kernel;
  /// Global run ids of the runs advanced together (RNG streams are keyed by these).
  std::vector<std::uint32_t> run_ids;
  /// Evaluations per run (T).
  int horizon = 1;
  /// Master seed (keys the policy's random streams with run id and policy_index).
  std::uint64_t seed = 0;
  /// Position of the policy in the experiment (keys its own random streams).
  std::uint32_t policy_index = 0;
  /// Gaussian noise variance λ of the surrogate model.
  double noise_variance = 1e-2;
  /// Break exact argmax ties at random (true) or by lowest index (false).
  bool random_ties = true;
  /// B per run: max over the domain of |f| (specs/ldp-bo.md D12); empty when unknown (policies
  /// that need B then require it as a parameter). Filled by the runner per lockstep group.
  std::vector<double> f_sup;
  /// R, c₀, v₀ of the instance (see InstanceConstants).
  InstanceConstants instance;

  /// R, the number of runs advanced together.
  int runs() const { return static_cast<int>(run_ids.size()); }
};

/// What a policy asks the runner to do to its rewards before it sees them: Convert-to-Laplace
/// CTL(ε) with bound B + R (privacy/laplace.hpp). The learner then only ever sees ȳ.
struct LdpRequest {
  double B = 0;        ///< bound on |f| (> 0)
  double R = 0;        ///< bound on |η| (> 0)
  double epsilon = 0;  ///< privacy level ε (> 0)
  bool clip = true;    ///< clip y to ±(B+R) before the noise (spec D2)
};

/// One round of the experiment.
struct Round {
  int index = 1;  ///< 1-based round number
  int done = 0;   ///< evaluations per run completed before this round
  int q = 1;      ///< evaluations per run to select this round
};

/// Candidates chosen for every run: chosen[r·q + i] is the i-th choice of run r.
struct Selection {
  /// R, runs in the selection.
  int runs = 0;
  /// Choices per run.
  int q = 0;
  /// R·q candidate indices, run-major.
  std::vector<int> chosen;
  /// The i-th choice of run `run`.
  int at(int run, int i) const { return chosen[static_cast<std::size_t>(run) * q + i]; }
};

/// Rewards seen by the learner, laid out like Selection::chosen.
struct Rewards {
  /// R·q rewards, run-major (y[r·q + i] for the i-th choice of run r).
  std::vector<double> y;
};

/// An algorithm over R runs in lockstep. select() then observe() once per round.
///
/// Thread safety: one thread at a time (select() and observe() change the policy's posterior and
/// random streams); different policies may run on different threads at once.
class Policy {
 public:
  /// Virtual destructor.
  virtual ~Policy() = default;
  /// Name as it appears in runs.csv and summary.json.
  virtual std::string name() const = 0;
  /// Evaluations per round this policy wants (q ≥ 1).
  virtual int batch_size() const { return 1; }
  /// Chooses round.q candidates for every run.
  virtual Selection select(const Round& round) = 0;
  /// Feeds back the rewards of the last selection.
  virtual void observe(const Selection& selection, const Rewards& rewards) = 0;
  /// For local-DP policies: the CTL parameters the runner applies (user side) to every reward of
  /// local run `run` before observe(); std::nullopt (the default) for non-private policies.
  virtual std::optional<LdpRequest> ldp_request(int run) const {
    (void)run;
    return std::nullopt;
  }
  /// A JSON object (text) describing what the policy derived when it was built (e.g. the PO-GP-UCB
  /// curator's ω, σ_min and branch), written to summary.json under "policy_info"; empty for none.
  virtual std::string info_json() const { return {}; }
};

/// Confidence-width schedule for UCB: score = μ + √β_t·σ.
struct BetaSchedule {
  /// Which formula gives β_t.
  enum class Kind {
    Srinivas,  ///< β_t = 2 ln(|D| t² π² / (6δ)) (Srinivas et al. 2010, finite domain)
    IgpUcb,    ///< √β_t = B + R·√(2(γ̂_{t−1} + 1 + ln(1/δ))) (Chowdhury & Gopalan 2017)
    Constant,  ///< β_t = value
  };
  /// The schedule used.
  Kind kind = Kind::Srinivas;
  double delta = 0.1;        ///< failure probability δ ∈ (0, 1)
  double value = 4.0;        ///< Constant: β
  double rkhs_bound = 1.0;   ///< IgpUcb: B, bound on ‖f‖_k
  double subgaussian = 0.1;  ///< IgpUcb: R, sub-Gaussian noise constant
  double scale = 1.0;        ///< multiplies √β_t (practical width shrinkage)

  /// √β_t·scale for the t-th evaluation (t ≥ 1) on a domain of n candidates, with information
  /// gain γ̂_{t−1}. @throws InvalidArgument for δ ∉ (0,1), value ≤ 0, B < 0, R < 0, scale ≤ 0.
  double width(int t, int n, double gamma) const;
  /// True when width() reads its γ̂ argument (IGP-UCB only); callers skip the O(t) sum otherwise.
  bool uses_gamma() const { return kind == Kind::IgpUcb; }
  /// Checks the parameters. @throws InvalidArgument naming the bad one (as width()).
  void validate() const;
  /// Human-readable description, e.g. "srinivas(delta=0.1)".
  std::string describe() const;
  /// "srinivas" | "igp_ucb" | "constant" as a Kind.
  /// @throws InvalidArgument "beta.type: expected srinivas, igp_ucb or constant, got '<name>'".
  static Kind parse_kind(const std::string& name);
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

/// Settings shared by the heavy-tailed / LDP family (specs/ldp-bo.md §3.5–3.7, §4, §5).
struct HeavyTailedOptions {
  /// Parameter formulas (spec §4): practical constants or the theorems' ones.
  enum class Preset { Practical, Theory };
  /// Where the LDP moment bounds v, c come from.
  enum class MomentSource { Auto, Empirical, Bound };  ///< Auto: practical→empirical, theory→bound
  /// Which parameter formulas.
  Preset preset = Preset::Practical;
  /// LDP variant: widths/levels use 𝓛 = 2(B+R)/ε and the LDP moments, and the runner applies CTL.
  bool ldp = false;
  double epsilon = 1.0;  ///< ϵ (LDP only)
  bool clip = true;      ///< CTL clips to ±(B+R) (spec D2; `ctl_clip`)
  ///@{
  /// Overrides of the instance constants (std::nullopt: from PolicyEnv).
  std::optional<double> B, R, v, c;
  ///@}
  /// Source of the LDP moment bounds.
  MomentSource moment_source = MomentSource::Auto;
  double delta = 0.1;            ///< δ
  double eps_nys = 0.1;          ///< Nyström accuracy ε (ATA, MoMA)
  double alpha = 1.0;            ///< moment order 1+α, α ∈ (0, 1]
  bool gamma_log_t = false;      ///< TGP: γ̂_{t−1} ← ln(t−1) instead of the info gain (D3)
  bool ata_per_sample = false;   ///< ATA: truncate sample τ at its own level b_τ (D5)
  bool median_midpoint = false;  ///< MoMA: midpoint median instead of the lower median (D8)
  bool moma_aaai = false;        ///< MoMA: AAAI width exponent n^{1/(2(1+α))} (D6)
  int k_groups = 0;              ///< MoMA: k, 0 = the preset's formula (§4)
  /// Multiplies every confidence width β of the preset (TGP, ATA, MoMA); 1 = the paper's
  /// algorithm. A project knob for studying exploration, not in the paper (`width_scale`).
  double width_scale = 1.0;
  /// Multiplies every truncation level b (TGP, ATA; the widths keep the unscaled b); 1 = the
  /// paper's algorithm, a huge value switches truncation off (`level_scale`; project knob).
  double level_scale = 1.0;
};

/// TGP-UCB (Chowdhury & Gopalan 2019, Alg. 1) or, with options.ldp, LDP-TGP-UCB (Zhou & Tan
/// 2021, Alg. 2): exact GP (FinitePosterior) fed ŷ_t = y·1{|y| ≤ b_t}. One point per round.
/// @throws InvalidArgument for bad options or missing B / R.
std::unique_ptr<Policy> make_tgp_ucb(const PolicyEnv& env, const HeavyTailedOptions& options);
/// ATA-GP-UCB (C&G Alg. 2) or LDP-ATA-GP-UCB (Zhou & Tan Alg. 1): Nyström approximation,
/// history re-truncated along the directions of Ṽ^{−1/2}Φ every round. One point per round.
std::unique_ptr<Policy> make_ata_gp_ucb(const PolicyEnv& env, const HeavyTailedOptions& options);
/// MoMA-GP-UCB (Zhou & Tan Alg. 3) or LDP-MoMA-GP-UCB: epochs of k identical plays issued as one
/// batch (batch_size() = k; a shorter final batch is the truncated leftover epoch, spec D9);
/// median-of-means over the k least-squares estimates.
std::unique_ptr<Policy> make_moma_gp_ucb(const PolicyEnv& env, const HeavyTailedOptions& options);
/// Wraps `inner` so that the runner privatises its rewards with CTL (GP-UCB with an "ldp" block).
std::unique_ptr<Policy> make_ldp_wrapped(std::unique_ptr<Policy> inner,
                                         std::vector<LdpRequest> per_run);

}  // namespace gpb
