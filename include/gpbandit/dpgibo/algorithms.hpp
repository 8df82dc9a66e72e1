/// @file algorithms.hpp
/// DP-GIBO (specs/dp-gibo.md §4, Algorithm 1), GIBO (μ = ∞), DP-GD / GD, random search and global
/// UCB-BO on a Task. Each function runs one run and returns its per-iteration trace.
#pragma once

#include <Eigen/Core>

#include <string>
#include <vector>

#include "gpbandit/context.hpp"
#include "gpbandit/dpgibo/task.hpp"
#include "gpbandit/privacy/noise_source.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::dpgibo {

class GradientGp;

/// How the evaluation points of an iteration are chosen (§3).
enum class Acquisition {
  Greedy,  ///< A1: greedy one-point trace decrements over random candidates in Box(θ, ℓ) ∩ Θ,
           ///< the 2d axis points and θ itself; the best n_restart candidates refined by
           ///< projected gradient ascent on the decrement; the pool redrawn per greedy step
  Axis,    ///< A3: the 2d points θ ± h* e_a (clamped to Θ), h* from the closed form
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
};

/// The lengthscales of o for dimension d: o.lengthscales when given, else d copies of
/// o.lengthscale.
Eigen::VectorXd lengthscales(const GiboOptions& o, int d);

/// Indices (ascending) of the k columns of X (d×N) nearest to θ in the ℓ-scaled distance
/// ‖(x − θ) ⊘ ℓ‖ (ties: lower index first); all of them when k ≥ N. O(N d + N log N).
std::vector<int> nearest_points(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                const Eigen::Ref<const Eigen::VectorXd>& theta,
                                const Eigen::Ref<const Eigen::VectorXd>& ell, int k);

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
};

/// What one run returns.
struct RunTrace {
  std::vector<Iterate> rows;  ///< one row per iteration, starting with t = 0
  Eigen::VectorXd theta;      ///< final iterate θ⁽ᵀ⁾ (random search / UCB-BO: best point)
  double jitter_used = 0;     ///< largest Cholesky jitter (GIBO, UCB-BO)
};

/// The randomness of one run: simulation streams (evaluation noise, acquisition) and the privacy
/// noise source (secure unless the experiment asks for seeded simulation).
struct RunRandomness {
  Rng* evaluation = nullptr;   ///< evaluation-noise stream (used when the noise sd is > 0)
  Rng* acquisition = nullptr;  ///< stream of random candidate points
  privacy::NoiseSource* privacy = nullptr;  ///< privacy noise; may be null for non-private runs
};

/// Chooses the evaluation points of one iteration at θ (spec §3: A1 or the axis design) from the
/// public state only (the GP's points, θ, the options), appends them to `gp` and returns them
/// (d×b). A1: θ first when o.theta_in_batch; then per greedy step a pool of o.n_cand uniform points
/// in Box(θ, ℓ) ∩ Θ, the 2d axis points θ ± h* e_a and θ (redrawn every step when o.pool_redraw,
/// else drawn once), scored by exact one-point Schur decrements; the best o.n_restart refined by
/// projected gradient ascent on Δ (o.n_steps steps, backtracking) inside the box; the best point
/// is appended. `pools`, when given, receives each step's pool (d×q) for inspection.
Eigen::MatrixXd select_points(const Task& task, const GiboOptions& o, GradientGp& gp,
                              const Eigen::VectorXd& theta, Rng& rng,
                              std::vector<Eigen::MatrixXd>* pools = nullptr);

/// DP-GIBO (Algorithm 1) from θ⁽⁰⁾; μ = ∞ gives GIBO. Evaluations return the task's per-user
/// losses plus N(0, eval_noise_sd²) per (point, user). @throws InvalidArgument (validate()).
RunTrace run_dp_gibo(const Context& ctx, const Task& task, const GiboOptions& o,
                     const Eigen::VectorXd& theta0, double eval_noise_sd, RunRandomness rnd);

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

/// GP-UCB minimising the mean observed loss ȳ (noise σ²/n) on the engine ops (kernel_matrix,
/// Cholesky, ucb_argmax on −μ), prior mean = mean of the observations so far.
RunTrace run_ucb_bo(const Context& ctx, const Task& task, const UcbBoOptions& o,
                    double eval_noise_sd, RunRandomness rnd);

}  // namespace gpb::dpgibo
