/// @file posterior.hpp
/// Exact GP posterior over a finite domain for R runs in lockstep, updated incrementally.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"

namespace gpb {

/// How FinitePosterior stores its state.
enum class PosteriorMode {
  /// Incremental when R·N·capacity·8 bytes fits the Context's budget, else Recompute, with a
  /// WarningKind::Performance warning through gpb::warn (gpbandit/io/log.hpp).
  Auto,
  Incremental,  ///< keep V = L⁻¹K(X_t, D) (t×N per run); O(N·t) per observation
  /// keep only L and α; mean() alone is K(D, X_t)·β (O(N·t), no V); σ² and ucb_argmax rebuild V
  /// chunk by chunk, O(N·t²)
  Recompute,
};

/// Construction options of FinitePosterior.
struct PosteriorOptions {
  /// Gaussian noise variance λ > 0 of the surrogate model (also the ridge of K_t + λI).
  double noise_variance = 1e-2;
  /// Expected number of rows per run (observations + pending); sizes V and decides Auto mode.
  int capacity = 256;
  /// Storage strategy (see PosteriorMode).
  PosteriorMode mode = PosteriorMode::Auto;
  /// Candidates per chunk in recompute mode.
  int chunk = 2048;
  /// CPU incremental mode: defer the row updates of blocks of candidates that cannot win the next
  /// UCB argmax (see FinitePosterior, "Lazy blocks"). Results are bit-identical either way; false
  /// applies every new row to every candidate at once (the O(N·t) per observation of the paper).
  bool lazy = true;
};

/// Host copy of the small factor state of one run of a FinitePosterior (see factor()).
struct PosteriorFactor {
  /// t×t lower triangular L with K_t + λI = L Lᵀ (up to the pivot floor, see FinitePosterior);
  /// the upper triangle is zero. Rows are in the order they were added (pending rows last).
  Eigen::MatrixXd L;
  /// α = L⁻¹y (length t); 0 for a pending row.
  Eigen::VectorXd alpha;
  /// λ_q, the noise variance of each row (length t): the posterior's λ unless the row was added
  /// with its own (observe(…, noise)), so K_t + Λ = L Lᵀ with Λ = diag(λ_q).
  Eigen::VectorXd noise;
  /// 1 for an observed or resolved row, 0 for a pending one (length t).
  std::vector<unsigned char> resolved;
  /// Candidate index a_q of each row (length t).
  std::vector<int> history;
};

/// Exact GP posterior (prior GP(0, k), Gaussian likelihood N(0, λ)) over the N candidates of a
/// Domain, for R independent runs advanced in lockstep.
///
/// Known per-observation noise (heteroscedastic): observe(), observe_batch() and add_pending()
/// take an optional noise variance λ_q for each row they append (null: λ for every row); the
/// posterior is then that of K_t + Λ, Λ = diag(λ_q). λ_q enters only its own row's pivot,
/// L[q,q] = √(λ_q + σ²_{q−1}[a_q]) (every other step is λ-free), so incremental, recompute, block
/// and lazy updates, sharding, add_candidates and the CUDA backend all hold it unchanged, and
/// factor() reports it (PosteriorFactor::noise). A pending row's λ_q is fixed when it is added:
/// resolving it with an observation of another noise needs a rebuild.
///
/// State per run: V (t×N, row q = v_q), the factor L of K_t + λI (t×t; L[q,p] = v_p[a_q],
/// L[q,q] = √(λ + σ²_{q−1}[a_q])), α = L⁻¹y, μ and σ² over the domain. An observation at
/// candidate a appends v = (k(x_a, D) − Σ_p L[t,p] v_p)/L[t,t], then μ += α_t v, σ² −= v².
/// A pending (hallucinated) point appends v and updates σ² only; resolving it later adds its
/// α v to μ. Repeated observations of one candidate are allowed (λ > 0). Pivot floor (jitter
/// escalation): L[q,q] = √max(λ + σ²_{q−1}[a_q], 10^{-10}·k(x_{a_q}, x_{a_q})), so that λ → 0
/// with repeated or fully explained candidates cannot overflow μ, σ² to ±inf or NaN; the floor
/// binds only when λ + σ² is below 10^{-10} of the prior variance (never for λ ≥ 10^{-10}·k(x,x);
/// tests/test_numerics_adversarial.cpp). Never forms an N×N
/// matrix. Recompute mode keeps only the factor (L, α) and rebuilds V chunk by chunk for σ² and
/// ucb_argmax() with the same floating-point operations in the same order, so both modes give
/// bit-identical σ², UCB scores and choices. Its mean() does not rebuild V: it returns
/// μ = K(D, X_t)·β with β = (K_t + λI)⁻¹y = L⁻ᵀα (one back substitution, O(t²); pending rows have
/// α = 0 and add nothing, as in incremental mode), O(N·t) kernel values and multiply-adds, so a
/// caller that reads only μ (a greedy batch) never pays the O(N·t²) rebuild. That μ equals
/// incremental mode's up to rounding (tests/test_posterior.cpp measures max |Δμ| ≤ 1e-12·max |μ|),
/// and it is bit-identical across chunk sizes, shards and streamed domains (each candidate's sum
/// runs over the rows in order). The CUDA backend's recompute mode still rebuilds V for mean().
///
/// Lazy blocks (CPU incremental mode, PosteriorOptions::lazy): the candidates are put in a
/// spatial order (recursive median splits; not for a precomputed kernel) and cut into blocks of
/// 512, each of which remembers how many rows it has applied. observe() and add_pending() only
/// append the factor row (and first bring the block of the row's candidate up to date) once the
/// domain has at least 32 blocks or N·t ≥ 4·10⁶; below that, and for add_pending() when V is
/// stored in float (Precision::Mixed), they apply the row everywhere, as the eager update.
/// resolve_pending() adds α_q v_q to μ in the blocks that have applied row q; the others add it
/// when they catch up. ucb_argmax() bounds the UCB score a stale block can reach: with A² = Σ α_q²
/// over the resolved rows it has not applied (a pending row has α = 0: it only lowers σ²),
/// |μ_t − μ_s| ≤ A·σ_s and σ_t ≤ σ_s by Cauchy–Schwarz on Σ α_q v_q
/// (Σ v_q² ≤ σ_s²), so μ_t + w·σ_t ≤ μ_s + (max(w, 0) + A)·σ_s (inflated by 10⁻⁹ relative and
/// σ_s² by 10⁻⁹·k(x,x) for rounding); blocks are brought up to date in decreasing order of that
/// bound until the best exact score beats every remaining bound. Bringing a block up to date runs
/// the same per-element steps in the same order as the eager update, so μ, σ², V, the choice and
/// its tie count are bit-identical to lazy = false (ties are counted and drawn in candidate
/// order); mean(), variance(), rows_at(), apply_rows() and the growth of V bring every block up
/// to date first. The saving is the rows of blocks far below the maximum (not computed until they
/// could matter) and the cache reuse of a block's rows when it catches up several at once; for
/// GP-BUCB (batch_gp_ucb), a batch's hallucinated rows reach only the blocks whose UCB bound
/// still reaches the best score of some pick, instead of all N candidates per pick.
///
/// Sharding (Context with a Communicator of K > 1 ranks, e.g. under mpirun): rank q holds the
/// candidates [⌊N·q/K⌋, ⌊N·(q+1)/K⌋) (slice()); V, μ, σ², the kernel diagonal and the lazy-block
/// state exist only for that slice, while the factor state (L, α, pivot variances, history and
/// the candidates' coordinates, O(R·t²)) is replicated. The domain given may be the whole domain
/// or exactly this rank's Domain slice. Every method below that changes or reads the posterior is
/// collective: all ranks call it in the same order with the same arguments. observe() and
/// add_pending() send each run's column at its candidate from the owner to every rank (t + 1 + d
/// doubles per run, one bitwise-OR MPI_Allreduce for all runs); ucb_argmax() is a local argmax
/// per run then one MPI_Allreduce of (score, lowest index, tie count) over all runs at once; the
/// tie rank is drawn from the run's stream exactly as on one rank, and only when it is not the
/// lowest tie do the ranks exchange their tie counts and the owner's k-th tie (two more small
/// collectives). mean() and variance() gather the N values to every rank (collective, O(N)).
/// Indices (observe, add_pending, history, choices) and the exclusion mask (R×N) are global, so
/// μ, σ², choices and tie counts equal the one-rank posterior's bit for bit for any K ≤ N.
/// K > N throws InvalidArgument. memory_budget_bytes applies per rank (to its slice).
///
/// Backends: the Context chooses the implementation. On the CPU everything is host memory. On
/// CUDA, V (R × capacity × N, run dimension first; float when the Context's precision is Mixed),
/// μ and σ² live on the device and the small factor state (L, α, history) on the host; one fused
/// kernel per observation appends the row for every run, ucb_argmax reduces on the device, and
/// mean()/variance() copy one run to host memory on demand. Recompute mode is also chosen when
/// cudaMalloc of V fails (never an abort). CUDA follows the CPU's per-element operation order;
/// results agree up to the last-ulp accuracy of exp() in the two math libraries.
///
/// Thread safety: one thread at a time, even for const methods (mean(), variance() and
/// ucb_argmax() bring lazy blocks and recompute-mode caches up to date). Different posteriors
/// may be used by different threads at once, also on one shared Context. gpb::Optimizer wraps
/// one behind a lock.
class FinitePosterior {
 public:
  /// @throws InvalidArgument if runs < 1, N = 0, λ ≤ 0 or not finite, capacity < 1, the
  /// Context's communicator has more ranks than candidates, or `domain` is a slice other than
  /// this rank's.
  FinitePosterior(const Context& ctx, const Kernel& kernel, const Domain& domain, int runs,
                  const PosteriorOptions& options = {});
  /// Releases host and device buffers.
  ~FinitePosterior();
  /// Moves the state; the moved-from object may only be destroyed or assigned.
  FinitePosterior(FinitePosterior&&) noexcept;
  /// Move assignment (see the move constructor).
  FinitePosterior& operator=(FinitePosterior&&) noexcept;

  /// R, the number of runs advanced in lockstep.
  int runs() const;
  /// N, the number of candidates.
  int size() const;
  /// Rows per run so far (observed + pending); the same for every run.
  int rows() const;
  /// Pending (hallucinated, not yet resolved) rows per run.
  int pending() const;
  /// Whether the posterior runs in recompute-and-stream mode.
  bool recompute_mode() const;
  /// λ, the Gaussian noise variance of the model.
  double noise_variance() const;
  /// This rank's candidates [begin, end) (the whole [0, N) when not sharded).
  std::pair<int, int> slice() const;

  /// Observes y[r] at candidate index[r] for every run r (arrays of length R), with noise
  /// variance noise[r] (null: λ; see "Known per-observation noise"). Only allowed when no row is
  /// pending. O(N·t) per run (incremental), O(t²) (recompute).
  /// @throws InvalidArgument on a bad index, a non-finite y or a noise that is not finite and > 0.
  void observe(const int* index, const double* y, const double* noise = nullptr);
  /// Observes a batch of q rewards per run as one block update: index and y are R×q, run-major
  /// (index[r·q + i], y[r·q + i]); the same posterior as q calls of observe() with the batch's
  /// columns i = 0..q−1 in order (rows appended in that order), up to rounding. CPU incremental
  /// mode: the q new rows of V come from one matrix product and one triangular solve over the
  /// candidates, V_new = L_bb⁻¹ (K(X_b, D) − L_b· V), in float when V is (Precision::Mixed: μ, σ²
  /// about 1e-5 from double); L_b· holds the old rows at the batch's candidates, L_bb is
  /// the Cholesky factor of the batch's posterior covariance plus λI (observe()'s pivot floor):
  /// O(q·t·N) in GEMM/TRSM rather than q rank-one passes, O(q·(t + q)·R) doubles shared when
  /// sharded. CPU recompute mode appends only the factor rows (nothing N-sized), the rows q
  /// observe() calls would append, bit for bit, computed for the whole batch at once (the
  /// batch's columns over the old rows in groups, its factor block in tiles, on every thread:
  /// O(q·t² + q²·t + q³) steps, several times faster than row by row). CUDA applies the rows one
  /// by one. noise: R×q run-major row noise variances, or null (λ). Only allowed when no row is
  /// pending. @throws InvalidArgument if q < 1, on a bad index, a non-finite y or a bad noise.
  void observe_batch(int q, const int* index, const double* y, const double* noise = nullptr);
  /// Hallucinates candidate index[r] for every run: σ² update only; with noise (R values) as
  /// the rows' noise variances, else λ.
  void add_pending(const int* index, const double* noise = nullptr);
  /// Resolves every pending row with its reward: y is R×P run-major (y[r·P + i] for the
  /// i-th pending row of run r), in the order the rows were added.
  void resolve_pending(const double* y);
  /// Appends m candidates (the columns of the d×m `points`) to the domain: they get the indices
  /// N, …, N + m − 1 and the posterior of every run at them, so that the candidate set can grow
  /// with the points an optimizer visits (DESIGN §7b). Each new candidate's column of V costs one
  /// triangular solve with the factor already held, O(t²) per run (plus t kernel evaluations),
  /// and μ, σ² there follow from it; every earlier row, and every later observe / add_pending /
  /// resolve_pending, treats the new candidates exactly as if the domain had held them from the
  /// start: μ, σ² and V are bit-identical to that posterior's (in Precision::Mixed, up to the
  /// float rounding of V for rows that were pending when the candidate was added). The CPU keeps
  /// spare candidate capacity (doubling, so the copies of V amortise to O(R·t) per candidate);
  /// CUDA computes the columns on the host from the host factor (the same recurrence, so CPU
  /// and CUDA agree as for every other op) and moves V, μ, σ² on the device to the new width.
  /// Pending rows may exist: the new candidates get their σ² updates and, once resolved, their
  /// μ updates. @throws InvalidArgument for a dimension other than the domain's, a non-finite
  /// coordinate, a precomputed kernel (its points are indices into a fixed matrix) or a sharded
  /// posterior (its slices are fixed).
  void add_candidates(const Eigen::Ref<const Eigen::MatrixXd>& points);

  /// Posterior mean over the domain for run r (length N; valid until the next update).
  /// Recompute mode (CPU): K(D, X_t)·β, O(N·t), without rebuilding V (see the class notes).
  /// Sharded: gathered from every rank (collective).
  const double* mean(int run) const;
  /// Posterior variance over the domain for run r (length N; clamped at 0). Sharded: gathered
  /// from every rank (collective).
  const double* variance(int run) const;
  /// UCB argmax for every run: width[r] multiplies σ; excluded (R×N run-major over the whole
  /// domain, may be null; a sharded rank reads only its slice); tiebreak[r] (may be null).
  /// Returns R choices (the same on every rank).
  std::vector<UcbChoice> ucb_argmax(const double* width, const std::uint8_t* excluded,
                                    std::vector<Rng>* tiebreak) const;
  /// The same with the exclusions as lists: excluded[r] holds the global indices of the
  /// candidates run r may not choose (any order, repeats allowed; R lists). Nothing N-sized is
  /// needed: a sharded rank marks the listed candidates of its slice in a mask of the slice, so
  /// GP-BUCB's distinct batches cost R·q indices instead of an R×N mask per rank. Same choices
  /// as the equivalent mask. @throws InvalidArgument on a wrong list count or an index out of
  /// [0, N).
  std::vector<UcbChoice> ucb_argmax(const double* width,
                                    const std::vector<std::vector<int>>& excluded,
                                    std::vector<Rng>* tiebreak) const;
  /// The stored rows at some candidates: a t×m matrix whose column i holds v_p[candidates[i]]
  /// for every row p < t = rows() (run r). With the factor (factor()) it gives the joint
  /// posterior of those candidates: Cov_t(a, b) = k(x_a, x_b) − Σ_p v_p[a] v_p[b] (GP-BUCB's
  /// batch covariance, pathwise Thompson sampling). O(t·m). Sharded: collective, each column
  /// from its owner. @throws InvalidArgument for a bad run or index; on CUDA with mixed
  /// precision.
  Eigen::MatrixXd rows_at(int run, const std::vector<int>& candidates) const;
  /// Vᵀ B over the candidates this rank holds: out(j, c) = Σ_p v_p[j]·B(p, c) for every held
  /// candidate j (in candidate order, slice() on a sharded Context) and every column c of the
  /// t×b matrix B, t = rows(). With B = L⁻¹R it is K(D, X_t)(K_t + λI)⁻¹R, the pathwise update of
  /// b Thompson draws at once. One GEMM of (n×t)·(t×b) in incremental mode (CPU and CUDA);
  /// recompute mode rebuilds V chunk by chunk. @throws InvalidArgument for a bad run or a B
  /// without t rows; on CUDA with mixed precision.
  Eigen::MatrixXd apply_rows(int run, const Eigen::Ref<const Eigen::MatrixXd>& B) const;
  /// γ̂ = ½ Σ_q ln(L[q,q]²/λ_q) = ½ ln|I + Λ^{−1/2}K_tΛ^{−1/2}| over every row of run r (pending
  /// included; ½ ln|I + λ⁻¹K_t| when every row has λ).
  double info_gain(int run) const;
  /// Candidate indices of run r's rows, in order.
  const std::vector<int>& history(int run) const;
  /// Copy of run r's factor state (L, α, resolved flags, history; host memory, O(t²)). With the
  /// kernel and the points of the history it gives the posterior at any point x, not only at the
  /// candidates: μ(x) = (L⁻ᵀα)ᵀ k(X_t, x), σ²(x) = k(x, x) − ‖L⁻¹ k(X_t, x)‖², and the leading
  /// rows alone give the posterior of those rows (the factor of a prefix is the prefix of the
  /// factor). @throws InvalidArgument if run is out of range.
  PosteriorFactor factor(int run) const;

  /// Bytes V would take in incremental mode for R runs, N candidates and `capacity` rows.
  static double incremental_bytes(int runs, int n, int capacity);

  /// Backend state (CPU or CUDA); opaque to users.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpb
