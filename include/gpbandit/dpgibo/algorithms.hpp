/// @file algorithms.hpp
/// DP-GIBO (specs/dp-gibo.md §4, Algorithm 1), GIBO (μ = ∞), DP-GD / GD, random search and global
/// UCB-BO on a Task. Each function runs one run and returns its per-iteration trace.
#pragma once

#include <Eigen/Core>

#include <vector>

#include "gpbandit/context.hpp"
#include "gpbandit/dpgibo/task.hpp"
#include "gpbandit/privacy/noise_source.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::dpgibo {

/// How the evaluation points of an iteration are chosen (§3).
enum class Acquisition {
  Greedy,  ///< A1: greedy one-point trace decrements over random candidates in Box(θ, ℓ) ∩ Θ
           ///< plus the 2d axis points (no gradient refinement of the best candidates)
  Axis,    ///< A3: the 2d points θ ± h* e_a (clamped to Θ), h* from the closed form
};
/// Update rule of θ (§4).
enum class StepRule { AdaGrad, Gd };

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
  double lengthscale = 1;                 ///< SE ℓ [lengthscale]
  double variance = 1;                    ///< SE s² [variance]
  double sigma2 = 0.0025;                 ///< evaluation-noise variance the GP assumes [sigma2]
  double jitter = 1e-9;                   ///< τ (×s²) [jitter]
};

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
