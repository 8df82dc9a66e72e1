/// @file fed_pne.hpp
/// Fed-PNE and DP-Fed-PNE (specs/fed-pne.md §3–§6): the server (Alg. 2), the client (Alg. 1) and
/// a lockstep driver over R runs that is shared by the in-process and the MPI runtimes (only the
/// ClientPool, the transport, differs), so both give identical traces.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/privacy/noise_source.hpp"
#include "gpbandit/xarmed/objective.hpp"
#include "gpbandit/xarmed/partition.hpp"

namespace gpb::xarmed {

/// Parameters of Fed-PNE (defaults: paper E.1.5; δ = 1/M when delta_conf = 0).
struct FedPneParams {
  int k = 2;                ///< branching factor k of the partition, in [2, 16]
  double nu = 1.0;          ///< smoothness ν₁ > 0: diam(P_{h,i}) ≤ ν₁ρ^h
  double rho = 0.5;         ///< smoothness rate ρ ∈ (0, 1)
  double c = 0.1;           ///< confidence constant c > 0 of τ_h and b (before the DP factor)
  double c1 = 1.0;          ///< constant c₁ > 0 inside ln(c₁T/δ)
  double delta_conf = 0.0;  ///< δ; 0 → 1/M
  int depth_offset = 0;     ///< 1 = the literal reading of Alg. 2's depth counter
  std::uint64_t partition_seed = 0;  ///< seed of the partition's split axes (see Partition)
  double noise = 0.1;                ///< observation noise U(−noise, noise) per evaluation
  /// Pull order inside a phase (spec decision 4): false = node-major (t_m pulls of the first node,
  /// then the next, …), true = round-robin (node 1, 2, …, K, 1, 2, …). Every client follows the
  /// same order; only which rounds the truncated last phase plays, and the shape of the regret
  /// curve inside a phase, change.
  bool round_robin = false;
  /// Pull point (spec decision 6): false = the cell centre, true = a fresh uniform point of the
  /// cell per pull and client (fed_pne_pull_point); regret is then the clients' average of
  /// f* − g(x_{m,t}) per round, and each pull costs an evaluation (no caching).
  bool uniform_point = false;
  std::uint64_t pull_seed = 0;  ///< seed of the uniform pull points (the driver sets the config's)
  // DP-Fed-PNE (App. D)
  bool dp = false;          ///< DP-Fed-PNE: clamp rewards and add Gaussian privacy noise (Alg. 3)
  double dp_epsilon = 1.0;  ///< ε_dp > 0 of the per-reward Gaussian mechanism (when dp)
  double dp_delta = 0.01;   ///< δ_dp ∈ (0, 1) of the per-reward Gaussian mechanism (when dp)
  bool privacy_seeded = false;  ///< seeded Philox privacy noise (NOT private); default secure
  double dp_scale = 1.0;        ///< scale a of the reward map r ↦ a·r + s, then clamped to [0,1]
  double dp_shift = 0.0;        ///< shift s of that affine map
  /// Checks ranges. @throws InvalidArgument naming `where.field`.
  void validate(const std::string& where) const;
};

/// The point client m plays at pull s (0-based) of node n (0-based position in the phase's list) of
/// phase `phase` when pull_point = uniform: uniform in cell(depth, node), from Philox keyed by
/// (seed, run, 0x7400000 + m, phase·2^56 + n·2^32 + s), so the server recomputes it for the regret.
std::vector<double> fed_pne_pull_point(const Partition& part, int depth, std::uint64_t node,
                                       std::uint64_t seed, std::uint32_t run, int m,
                                       std::uint32_t phase, std::uint64_t n, std::uint64_t s);

/// σ_dp = √(2 ln(1.25/δ_dp)) / ε_dp (Gaussian mechanism, sensitivity 1).
double dp_sigma(double epsilon, double delta);
/// DP-Fed-PNE's release of one reward (App. D): clamp(dp_scale·r + dp_shift, 0, 1) + N(0, σ²)
/// drawn from `source` (privacy::gaussian_noise). With σ = dp_sigma(ε, δ) each released reward is
/// (ε, δ)-DP for ε < 1 (the classical Gaussian mechanism on sensitivity 1; the clamp bounds the
/// sensitivity); audited in tests/test_privacy_audit.cpp. @throws InvalidArgument if σ < 0.
double dp_fed_pne_release(double reward, const FedPneParams& p, double sigma,
                          privacy::NoiseSource& source);
/// τ_h = ⌈c²·ln(c₁T/δ)/ν²·ρ^{−2h}⌉ (natural log); c is the effective c (DP factor included).
double fed_pne_tau(double c, double c1, double nu, double rho, double delta, int M, long long T,
                   int h);

/// One phase as broadcast by the server (node indices at depth `depth`, ascending).
struct PhaseRequest {
  std::uint32_t phase = 0;           ///< phase number p, 1-based
  std::uint32_t depth = 0;           ///< depth h of every node of the phase
  std::uint64_t t_m = 0;             ///< pulls per node per client, ⌈τ_h / M⌉
  std::uint64_t rounds_left = 0;     ///< rounds left before the horizon, T − t
  bool truncated = false;            ///< last phase cut at T: no upload, no elimination
  std::vector<std::uint64_t> nodes;  ///< node indices i ∈ [1, k^h] of the frontier K, ascending
};

/// What the server records per phase (phases.csv).
struct PhaseRecord {
  std::uint32_t phase = 0;       ///< phase number p, 1-based
  std::uint32_t depth = 0;       ///< depth h of the phase's nodes
  std::size_t nodes = 0;         ///< |K|, nodes played in the phase
  std::size_t survivors = 0;     ///< nodes kept by the elimination (0 for a truncated phase)
  std::uint64_t t_m = 0;         ///< pulls per node per client
  std::uint64_t rounds = 0;      ///< rounds = pulls per client in the phase
  bool truncated = false;        ///< phase cut at the horizon T (no upload, no elimination)
  std::uint64_t bytes_down = 0;  ///< logical bytes down, all clients together (§5)
  std::uint64_t bytes_up = 0;    ///< logical bytes up, all clients together (0 if truncated)
};

/// The Fed-PNE server (Alg. 2 with the decisions of spec §8). Frontier only.
class FedPneServer {
 public:
  /// @throws InvalidArgument for bad parameters, M < 1 or T < 1.
  FedPneServer(const FedPneParams& p, int M, long long T);
  /// True once the horizon T is used up (no further phase).
  bool done() const { return t_ >= T_; }
  /// Builds the next phase (expansion loop of line 4). Call only when !done().
  const PhaseRequest& next();
  /// Finishes the current phase. `means` is M×K client-major (ignored for a truncated phase).
  void complete(const std::vector<double>& means);
  /// Records of every finished phase so far, in order (a truncated last phase included).
  const std::vector<PhaseRecord>& phases() const { return phases_; }
  /// Completed phases P.
  int rounds() const { return rounds_; }
  /// Phases broadcast: P, plus 1 if a truncated phase was played.
  int broadcasts() const { return static_cast<int>(phases_.size()); }
  /// Node statistics uploaded per client, Σ |K^p| over the completed phases.
  long long info_per_client() const { return info_; }
  /// Confidence width b of the current phase.
  double width() const { return width_; }
  /// Effective c (c·√(1 + 4σ_dp²) in DP mode).
  double c_effective() const { return c_eff_; }
  /// τ_h of fed_pne_tau with this server's c_effective(), c₁, ν₁, ρ and δ, at depth
  /// h + depth_offset.
  double tau(int h) const;

 private:
  FedPneParams p_;
  int M_;
  long long T_, t_ = 0;
  double delta_, c_eff_, width_ = 0;
  std::vector<std::uint64_t> frontier_{1};
  int depth_ = 0, rounds_ = 0;
  long long info_ = 0;
  PhaseRequest cur_;
  std::vector<PhaseRecord> phases_;
};

/// One client (Alg. 1; DP: Alg. 3). Noise of pull s of node position n in phase p of client m
/// in run r is Philox draw (p·2^56 + n·2^32 + s) of stream (seed, r, 0x7000000 + m) — a pure
/// function, so any process reproduces it (phase < 256, |K| < 2^24, t_m < 2^32 checked).
/// Privacy noise comes from `privacy` (one source per client, drawn in pull order).
class FedPneClient {
 public:
  /// Client m of M in run `run`; evaluates f's local objective f_m at the centres of `part`'s
  /// cells and draws observation noise from (seed, run). `privacy` is used when p.dp.
  /// @throws InvalidArgument if p.dp and `privacy` is null.
  FedPneClient(const FedPneParams& p, std::shared_ptr<const FedObjective> f,
               std::shared_ptr<const Partition> part, std::uint64_t seed, std::uint32_t run, int m,
               int M, std::unique_ptr<privacy::NoiseSource> privacy);
  /// K local means in broadcast order (empty for a truncated phase).
  std::vector<double> play(const PhaseRequest& req);
  /// This client's privacy noise source (null when not DP).
  const privacy::NoiseSource* privacy() const { return privacy_.get(); }

 private:
  FedPneParams p_;
  std::shared_ptr<const FedObjective> f_;
  std::shared_ptr<const Partition> part_;
  std::uint64_t seed_;
  std::uint32_t run_;
  int m_, M_;
  double sigma_dp_ = 0;
  std::unique_ptr<privacy::NoiseSource> privacy_;
};

/// Makes client m's privacy source: secure unless p.privacy_seeded (then Philox keyed by
/// (seed, run, m)). Null when !p.dp.
std::unique_ptr<privacy::NoiseSource> make_client_privacy(const FedPneParams& p, std::uint64_t seed,
                                                          std::uint32_t run, int m);

/// Transport between the server and the clients of several runs.
class ClientPool {
 public:
  virtual ~ClientPool() = default;
  /// reqs[j] is run j's phase (null once run j is done). On return means[j] holds M×K client-major
  /// means for each non-null, non-truncated request. @throws Error when a client fails.
  virtual void exchange(const std::vector<const PhaseRequest*>& reqs,
                        std::vector<std::vector<double>>& means) = 0;
  /// Bytes moved by the transport (0 in process).
  virtual std::uint64_t measured_bytes() const { return 0; }
};

/// Every client of every run in this process; each exchange is one batched parallel call over
/// (run, client).
class InProcessPool final : public ClientPool {
 public:
  /// Builds M clients for each run in `runs` (sharing one Partition from p.k and
  /// p.partition_seed), each with its make_client_privacy() source. `threads` > 0 caps the
  /// OpenMP threads of exchange() (0 = the OpenMP default).
  InProcessPool(const FedPneParams& p, std::shared_ptr<const FedObjective> f, int M,
                std::uint64_t seed, const std::vector<std::uint32_t>& runs, int threads = 0);
  void exchange(const std::vector<const PhaseRequest*>& reqs,
                std::vector<std::vector<double>>& means) override;
  /// Description of the clients' privacy noise source, or "none" without DP.
  std::string privacy_description() const;

 private:
  int M_;
  int threads_;
  std::vector<std::unique_ptr<FedPneClient>> clients_;  // run-major
};

/// Result of one run.
struct FedPneRun {
  std::uint32_t run = 0;            ///< run index
  std::vector<double> regret;       ///< per-client instant regret per round (length T)
  std::vector<PhaseRecord> phases;  ///< the server's phase records
  int rounds = 0;                   ///< completed phases P
  int broadcasts = 0;               ///< phases broadcast (P, plus 1 for a truncated phase)
  long long info_per_client = 0;    ///< node statistics uploaded per client, Σ |K^p|
  std::uint64_t bytes_down = 0;     ///< logical bytes down, summed over phases (§5)
  std::uint64_t bytes_up = 0;       ///< logical bytes up, summed over phases (§5)
};

/// Runs Fed-PNE for `runs` in lockstep through `pool`. Regret uses f's noise-free reference at
/// the node centres (per-client regret: every client pulls the same node in a round).
std::vector<FedPneRun> run_fed_pne(const FedPneParams& p, const FedObjective& f, int M, long long T,
                                   const std::vector<std::uint32_t>& runs, ClientPool& pool);

}  // namespace gpb::xarmed
