/// @file algorithms.hpp
/// DP-GIBO (specs/dp-gibo.md §4, Algorithm 1), GIBO (μ = ∞), DP-GD / GD, random search and global
/// UCB-BO on a Task. Each function runs one run and returns its per-iteration trace.
#pragma once

#include <Eigen/Core>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/dpgibo/gradient_surrogate.hpp"
#include "gpbandit/dpgibo/task.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/privacy/noise_source.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::dpgibo {

/// How the evaluation points of an iteration are chosen (§3).
enum class Acquisition {
  Greedy,  ///< A1: greedy one-point trace decrements over random candidates in Box(θ, ℓ) ∩ Θ,
           ///< the 2d axis points and θ itself; the best n_restart candidates refined by
           ///< projected gradient ascent on the decrement; the pool redrawn per greedy step
  Axis,    ///< A3: the 2d points θ ± h* e_a (clamped to Θ), h* from the closed form
  Joint,   ///< A1's set, then block-coordinate sweeps: each point re-optimised (fresh pool and
           ///< refinement, as one A1 step) with the others fixed, ≤ `sweeps` sweeps (§3.3)
};
/// Kernel of the DP-GIBO surrogate (§2).
enum class SurrogateKernel {
  SE,          ///< squared exponential, isotropic or ARD (GradientGp)
  Polynomial,  ///< v·(xᵀz + c)^p: weight space (PolyWeightGp, p = 2) or function space
};
/// Update rule of θ (§4).
enum class StepRule {
  AdaGrad,  ///< acc += ĝ⊙ĝ; θ −= η ĝ/(√acc + 1e-8)
  Gd,       ///< θ −= η ĝ
  Normalized  ///< GIBO's normalised step θ −= η·ℓ⊙ĝ/‖ĝ‖ (length η·ℓ for isotropic ℓ)
};

/// Parameters of DP-GIBO / GIBO / DP-GD. Names in brackets are the config keys.
struct GiboOptions {
  double mu = 1.0;        ///< GDP level [mu]; +∞ = non-private (GIBO, GD)
  double B = 1.0;         ///< clipping norm [B]
  bool clip = true;       ///< [clip]; false only allowed when μ = ∞
  int T = 25;             ///< iterations [T], fixed in advance
  int b_fixed = 0;        ///< points per iteration [b]; 0 = adaptive on the trace
  double eps_bias = 0.5;  ///< trace tolerance ε of the adaptive rule [eps_bias] (not the DP ε)
  int b_max = 0;          ///< cap of the adaptive rule [b_max]; 0 = 2d
  Acquisition acq = Acquisition::Greedy;  ///< [acq]
  int n_cand = 256;                       ///< random candidates per greedy step [n_cand]
  StepRule step = StepRule::AdaGrad;      ///< [step]
  double eta = 0.3;                       ///< step size [eta]
  double lengthscale = 1;                 ///< SE ℓ [lengthscale] (isotropic)
  std::vector<double> lengthscales;  ///< ARD ℓ_a [lengthscale as an array]; empty = isotropic
  bool pool_redraw = true;      ///< A1: redraw the candidate pool before every greedy step [pool]
  int n_restart = 4;            ///< A1: candidates refined by gradient ascent per step [n_restart]
  int n_steps = 20;             ///< A1: projected gradient steps per refined candidate [n_steps]
  bool theta_in_batch = false;  ///< put θ_t itself first in every batch [theta_in_batch]
  bool eta_in_lengthscales = false;  ///< η is in units of ℓ (AdaGrad, GD) [eta_units]
  int history_k = 0;       ///< history = nearest(k): the GP keeps the k points of D nearest to θ_t
                           ///< (ℓ-scaled distance) before selecting; 0 = keep all [history]
  double variance = 1;     ///< SE s² [variance]
  double sigma2 = 0.0025;  ///< evaluation-noise variance the GP assumes [sigma2]
  double jitter = 1e-9;    ///< τ (×s²) [jitter]
  SurrogateKernel kernel = SurrogateKernel::SE;  ///< [kernel]: "se" | "polynomial"
  int degree = 2;                 ///< polynomial degree p [degree] (weight space: 2 only)
  double offset = 1;              ///< polynomial offset c [offset]
  bool poly_weight_space = true;  ///< [poly_impl]: "weight_space" | "function_space"
  double r_box = 0;  ///< half-width of the design box [r_box]; 0 = ℓ_a (SE) or 1 (polynomial)
  int sweeps = 3;    ///< acq = joint: block-coordinate sweeps [sweeps]
};

/// The lengthscales of o for dimension d: o.lengthscales when given, else d copies of
/// o.lengthscale.
Eigen::VectorXd lengthscales(const GiboOptions& o, int d);

/// Indices (ascending) of the k columns of X (d×N) nearest to θ in the ℓ-scaled distance
/// ‖(x − θ) ⊘ ℓ‖ (ties: lower index first); all of them when k ≥ N. O(N d + N log N).
std::vector<int> nearest_points(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                const Eigen::Ref<const Eigen::VectorXd>& theta,
                                const Eigen::Ref<const Eigen::VectorXd>& ell, int k);

/// Half-widths of the design box Box(θ, r) around θ (§3.2 decision 3): r_box when set, else the
/// lengthscales for SE, else 1 (the polynomial kernel has no lengthscale).
Eigen::VectorXd design_box(const GiboOptions& o, int d);

/// The surrogate the options name: GradientGp (SE with ℓ_a, or polynomial in function space) or
/// PolyWeightGp; σ² = o.sigma2, τ = o.jitter·o.variance. @throws InvalidArgument (bad options).
std::unique_ptr<GradientSurrogate> make_surrogate(const Context& ctx, const GiboOptions& o, int d);

/// Proj_Θ: clamps each coordinate of x to the task's box.
Eigen::VectorXd project(const Task& task, const Eigen::VectorXd& x);

/// One step of the rule (before the projection on Θ): AdaGrad updates `acc` (length d, start 0).
Eigen::VectorXd step_update(const GiboOptions& o, const Eigen::VectorXd& ell, Eigen::VectorXd& acc,
                            const Eigen::VectorXd& theta, const Eigen::VectorXd& g);

/// The cap on points per iteration: 2d (spec §3, decision 1).
inline int b_cap(int d) {
  return 2 * d;
}

/// Noise std of DP-GIBO and DP-GD: ν = 2B√T/(nμ) (0 when μ = ∞). Sensitivity of the clipped mean
/// under replace-one is 2B/n; each of the T steps is then μ/√T-GDP (§5).
/// @throws InvalidArgument if B ≤ 0, T < 1, n < 1 or μ ≤ 0.
double dp_noise_std(double B, int T, int n, double mu);

/// Checks the options for a task of dimension d (prefix names the config object in messages).
/// @throws InvalidArgument naming the field: μ ≤ 0, B ≤ 0, T < 1, b or b_max above 2d, clip off
/// with finite μ, eta ≤ 0, lengthscale/variance ≤ 0, sigma2 < 0, eps_bias ≤ 0, n_cand < 1.
void validate(const GiboOptions& o, int d, const std::string& prefix);

/// (1/n)Σ_i c_i G_{:,i}, c_i = min(1, B/‖G_{:,i}‖) when clip (1 for a zero column). `clipped`
/// receives how many columns were scaled down. Each term has norm ≤ B, so replacing one column
/// moves the result by at most 2B/n. O(dn).
Eigen::VectorXd clipped_mean(const Eigen::Ref<const Eigen::MatrixXd>& G, double B, bool clip,
                             int* clipped = nullptr);

/// One logged iteration. Diagnostics (loss, grad_norm, …) are evaluation-only: never fed back.
struct Iterate {
  int t = 0;                    ///< iteration (0 = the start, before any step)
  int b = 0;                    ///< points evaluated in this iteration
  long evaluations = 0;         ///< cumulative evaluations
  double trace = 0;             ///< posterior gradient-covariance trace after selection (public)
  double loss = 0;              ///< noise-free f at the iterate after the step (random search and
                                ///< UCB-BO: best noise-free f so far)
  double grad_norm = 0;         ///< ‖g‖ before noise
  double noise_norm = 0;        ///< ν‖w‖
  double clipped_fraction = 0;  ///< fraction of the n per-user gradients scaled down by clipping
  double theta1 = 0;            ///< first coordinate of the iterate
  /// ‖g − clipped mean of the true per-user gradients‖: the surrogate's estimation error of the
  /// statistic it privatises (GIBO on tasks with gradients; NaN otherwise).
  double bias = std::numeric_limits<double>::quiet_NaN();
  /// ‖g − ∇f(θ)‖: estimation error plus clipping bias (same availability as `bias`).
  double grad_error = std::numeric_limits<double>::quiet_NaN();
};

/// What one run returns.
struct RunTrace {
  std::vector<Iterate> rows;  ///< one row per iteration, starting with t = 0
  Eigen::VectorXd theta;      ///< final iterate θ⁽ᵀ⁾ (random search / UCB-BO: best point)
  double jitter_used = 0;     ///< largest Cholesky jitter (GIBO, UCB-BO)
};

/// Evaluation noise of a run (spec §7 decision 6): N(0, sd²) drawn per (point, user), the
/// default, or — `shared_per_point`, the decision's literal option — one draw per point added to
/// every user's loss (the paper's E.5 "observe f + λZ" read literally: the noise does not average
/// out over the users). Converts from a bare sd (per-user noise).
struct EvalNoise {
  /// Noise sd `sd_` (≥ 0), one draw per point when `shared` (implicit from a bare sd).
  EvalNoise(double sd_ = 0, bool shared = false) : sd(sd_), shared_per_point(shared) {}  // NOLINT
  double sd;              ///< σ of N(0, σ²); 0 = noise-free evaluations
  bool shared_per_point;  ///< one draw per point, added to every user's loss (else per user)
};

/// The randomness of one run: simulation streams (evaluation noise, acquisition) and the privacy
/// noise source (secure unless the experiment asks for seeded simulation).
struct RunRandomness {
  Rng* evaluation = nullptr;   ///< evaluation-noise stream (used when the noise sd is > 0)
  Rng* acquisition = nullptr;  ///< stream of random candidate points
  privacy::NoiseSource* privacy = nullptr;  ///< privacy noise; may be null for non-private runs
};

/// Chooses the evaluation points of one iteration at θ (spec §3: A1, the axis design or the joint
/// design) from the public state only (the surrogate's points, θ, the options), appends them to
/// `gp` and returns them (d×b). A1: θ first when o.theta_in_batch; then per greedy step a pool of
/// o.n_cand uniform points in Box(θ, r) ∩ Θ (r = design_box), the 2d axis points θ ± h* r_a and
/// θ (redrawn every step when o.pool_redraw, else drawn once), scored by exact one-point Schur
/// decrements; the best o.n_restart refined by projected gradient ascent on Δ (o.n_steps steps,
/// backtracking) inside the box; the best point is appended. Joint: A1's set, then up to o.sweeps
/// sweeps that re-optimise each point (except θ_t when o.theta_in_batch) with the others fixed
/// and keep a move only if it lowers the trace of the whole set. `pools`, when given, receives
/// each step's pool (d×q) for inspection.
Eigen::MatrixXd select_points(const Task& task, const GiboOptions& o, GradientSurrogate& gp,
                              const Eigen::VectorXd& theta, Rng& rng,
                              std::vector<Eigen::MatrixXd>* pools = nullptr);

/// DP-GIBO (Algorithm 1) from θ⁽⁰⁾; μ = ∞ gives GIBO. Evaluations return the task's per-user
/// losses plus the evaluation noise (EvalNoise). @throws InvalidArgument (validate()).
RunTrace run_dp_gibo(const Context& ctx, const Task& task, const GiboOptions& o,
                     const Eigen::VectorXd& theta0, EvalNoise noise, RunRandomness rnd);

/// DP-GD (μ finite) or GD (μ = ∞, clip off): true per-user gradients, clipped mean, noise ν, step.
/// Uses o.mu, B, clip, T, step, eta. @throws InvalidArgument if the task has no gradients.
RunTrace run_dp_gd(const Task& task, const GiboOptions& o, const Eigen::VectorXd& theta0,
                   RunRandomness rnd);

/// Random search: `evaluations` uniform points of Θ; logs the best noise-free f so far.
RunTrace run_random_search(const Task& task, int evaluations, Rng& rng);

/// Options of the global UCB-BO baseline (non-private reference).
struct UcbBoOptions {
  int evaluations = 100;   ///< budget
  int n_cand = 512;        ///< uniform candidates in Θ, redrawn every step
  double width = 2.0;      ///< β^{1/2}, constant
  double lengthscale = 1;  ///< SE ℓ
  double variance = 1;     ///< SE s²
};

/// GP-UCB minimising the mean observed loss ȳ (noise σ²/n; σ² when shared per point) on the engine
/// ops (kernel_matrix, Cholesky, ucb_argmax on −μ), prior mean = mean of the observations so far.
RunTrace run_ucb_bo(const Context& ctx, const Task& task, const UcbBoOptions& o, EvalNoise noise,
                    RunRandomness rnd);

}  // namespace gpb::dpgibo
