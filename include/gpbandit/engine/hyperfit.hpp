/// @file hyperfit.hpp
/// Maximum-likelihood fit of GP hyperparameters (specs/po-gp-ucb.md §3): length-scale(s), signal
/// variance σ_y² and noise variance σ_n² of a zero-mean GP with a stationary kernel (SE, Matérn
/// 3/2, Matérn 5/2; ARD or isotropic), by L-BFGS-B (LBFGSpp) on the log scale with analytic
/// gradients and several starts.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <vector>

#include "gpbandit/engine/kernel_type.hpp"

namespace gpb {

/// Hyperparameters of k(x,x′) = σ_y² κ(ρ), ρ² = Σ_j (x_j − x′_j)²/l_j², plus noise σ_n².
struct GpHyperparameters {
  Eigen::VectorXd lengthscales;  ///< l_j, length d (ARD) or 1 (isotropic: one l for all j)
  double signal_variance = 1.0;  ///< σ_y²
  double noise_variance = 1e-2;  ///< σ_n²
  /// A sum kernel's per-part variances v_p (HyperFitOptions::sum); empty otherwise (then
  /// signal_variance is the one variance; for a sum it is Σ_p v_p).
  Eigen::VectorXd part_variances;
};

/// One part of a composite kernel as the fit sees it (gpb::KernelPart without its values): a
/// stationary kernel on the columns [begin, begin + size) of X.
struct HyperFitPart {
  KernelType type = KernelType::Matern52;  ///< SE, Matern32 or Matern52
  int begin = 0;                           ///< first column
  int size = 1;                            ///< number of columns
  bool ard = true;  ///< one length-scale per column (when size > 1), else one for the part
};

/// Settings of fit_gp_hyperparameters. Bounds apply in the fit's standardised input units (each
/// column divided by its standard deviation for ARD, all columns by the root-mean-square column
/// standard deviation for the isotropic fit so that one length-scale still fits every axis; or X
/// as given with standardize_inputs = false) and assume y has roughly unit variance (the §2
/// pipeline standardises it). Defaults are spec §3's: maximum likelihood, no priors.
///
/// Priors (maximum a posteriori): with a scale > 0, ψ = ln θ ~ N(loc, scale²) for every
/// length-scale (lengthscale_prior_*) or for σ_n² (noise_prior_*), i.e. log-normal priors on θ;
/// the fit then maximises log p(y | X, θ) + Σ ln N(ψ; loc, scale²) over ψ.
struct HyperFitOptions {
  KernelType kernel = KernelType::SE;  ///< SE, Matern32 or Matern52
  bool ard = true;                     ///< one length-scale per input column (else one in all)
  int max_rows = 2000;                 ///< rows used: min(n, max_rows), drawn without replacement
  int random_starts = 5;  ///< log-uniform random starts besides (l = 1, σ_y² = 1, σ_n² = 1e−2)
  double lengthscale_lower = 1e-2;   ///< box bound on each length-scale (standardised inputs)
  double lengthscale_upper = 1e2;    ///< box bound on each length-scale (standardised inputs)
  double signal_lower = 1e-2;        ///< box bound on σ_y²
  double signal_upper = 1e2;         ///< box bound on σ_y²
  double noise_lower = 1e-8;         ///< box bound on σ_n²
  double noise_upper = 1.0;          ///< box bound on σ_n²
  int max_iterations = 500;          ///< L-BFGS iterations per start
  double relative_tolerance = 1e-8;  ///< stop when the objective changes by less (relative)
  std::uint64_t seed = 0;            ///< keys the row subsample and the random starts (Philox)
  /// Centre and scale the input columns (see above); false fits X as given (e.g. inputs already
  /// in unit coordinates, where the priors then mean the same on every problem).
  bool standardize_inputs = true;
  double lengthscale_prior_loc = 0.0;    ///< location of the log-normal length-scale prior
  double lengthscale_prior_scale = 0.0;  ///< its scale (≤ 0: no prior)
  double noise_prior_loc = 0.0;          ///< location of the log-normal noise-variance prior
  double noise_prior_scale = 0.0;        ///< its scale (≤ 0: no prior)
  /// A composite kernel (Kernel::product / Kernel::sum): its parts, which must cover the columns
  /// of X once each; empty: the single kernel `kernel`. With parts, the length-scales are the
  /// parts' in order (size values for a part fitted with ARD — part.ard and `ard` — else one),
  /// and a product has one signal variance, a sum one per part (GpHyperparameters::part_variances).
  std::vector<HyperFitPart> parts;
  bool sum = false;  ///< with parts: Σ_p v_p·u_p (else the product v·Π_p u_p)
  /// Known per-row noise variances of y (heteroscedastic, e.g. replicate variances): length n
  /// (one per row of X) with K_θ = K + Λ, Λ_ii = known_noise(i), or NaN where a row's noise is
  /// not known (that row gets the fitted σ_n²); empty: σ_n² on every row. Known values are ≥ 0,
  /// in y's units, and fixed (not fitted); when every row is known, σ_n² only meets its prior.
  Eigen::VectorXd known_noise;
  /// Further starts tried before the default one, in the caller's input units (e.g. the previous
  /// fit, clamped into the bounds); length-scales of length 1 or d as the fit's.
  std::vector<GpHyperparameters> starts;
};

/// The fit's result, in the caller's input units.
struct HyperFit {
  GpHyperparameters theta;    ///< the best fit over all starts (length-scales in input units)
  double log_likelihood = 0;  ///< log p(y | X_used, θ) on the rows used (standardised inputs)
  double log_posterior = 0;   ///< the objective maximised: log_likelihood plus the log priors
  int rows_used = 0;          ///< m
  int starts_converged = 0;   ///< starts that ended without an optimiser error
  int evaluations = 0;        ///< likelihood evaluations over all starts
};

/// log p(y | X, θ) = −½ yᵀK_θ⁻¹y − ½ ln|K_θ| − (m/2) ln 2π with K_θ = K + σ_n²I, by Cholesky
/// (jitter 1e−10·mean diag, ×10 up to 3 times). X is m×d (one row per point), y has length m.
/// If `grad` is not null it receives ∂/∂ψ for ψ = (ln l_1..ln l_q, ln σ_y², ln σ_n²), q = 1 or
/// d: ½ tr((ααᵀ − K_θ⁻¹) ∂K_θ/∂ψ_j), α = K_θ⁻¹y. O(m³ + m²·d). `known_noise` (m values, NaN:
/// unknown; HyperFitOptions::known_noise) replaces σ_n² on the rows where it is known.
/// @throws InvalidArgument for mismatched shapes, a kernel other than SE/Matérn 3/2/Matérn 5/2,
/// non-positive parameters or a negative known noise; NumericalError if K_θ stays indefinite
/// after the jitter.
double gp_log_likelihood(const Eigen::Ref<const Eigen::MatrixXd>& X,
                         const Eigen::Ref<const Eigen::VectorXd>& y, KernelType kernel,
                         const GpHyperparameters& theta, Eigen::VectorXd* grad = nullptr,
                         const Eigen::VectorXd* known_noise = nullptr);

/// log p(y | X, θ) for a composite kernel: the product v·Π_p u_p or (sum) Σ_p v_p·u_p of the
/// stationary `parts` (each on its columns of X). θ.lengthscales holds the parts' length-scales in
/// order (size values for a part with ard, one otherwise); a product reads θ.signal_variance, a sum
/// θ.part_variances. `grad` receives ∂/∂ψ for ψ = (ln l…, ln v (product) or ln v_1..ln v_P (sum),
/// ln σ_n²). O(m³ + m²·d). `known_noise` as above.
/// @throws InvalidArgument for parts that do not cover the columns once, a part type other than
/// SE/Matérn 3/2/5/2, mismatched counts or non-positive values; NumericalError as above.
double gp_log_likelihood(const Eigen::Ref<const Eigen::MatrixXd>& X,
                         const Eigen::Ref<const Eigen::VectorXd>& y,
                         const std::vector<HyperFitPart>& parts, bool sum,
                         const GpHyperparameters& theta, Eigen::VectorXd* grad = nullptr,
                         const Eigen::VectorXd* known_noise = nullptr);

/// Output scale and noise of a GP whose kernel shape is fixed (Tanimoto, MinMax, any kernel with
/// v = 1): the model y ~ N(m·1, v·K + λI) with m = mean(y).
struct ScaleNoiseFit {
  double mean = 0;             ///< m, the sample mean of y
  double signal_variance = 1;  ///< v̂
  double noise_variance = 0;   ///< λ̂
  double log_likelihood = 0;   ///< log p(y | v̂, λ̂) (the maximum found)
};

/// Maximum-likelihood v and λ for a fixed m×m kernel matrix K (symmetric PSD, the shape at v = 1)
/// and y − mean(y): one eigendecomposition K = U S Uᵀ, then the profile likelihood in the ratio
/// ρ = λ/v (v̂(ρ) = (1/m) Σ z_i²/(s_i + ρ), z = Uᵀ(y − m)) maximised over ln ρ in
/// [ln ratio_lower, ln ratio_upper] by a grid of 81 points refined by golden-section search.
/// O(m³) once, O(m) per likelihood evaluation.
/// @throws InvalidArgument if K is not m×m, y is not finite or has fewer than 2 values, y is
/// constant, or the ratio bounds are not 0 < lower < upper.
ScaleNoiseFit fit_scale_and_noise(const Eigen::Ref<const Eigen::MatrixXd>& K,
                                  const Eigen::Ref<const Eigen::VectorXd>& y,
                                  double ratio_lower = 1e-4, double ratio_upper = 1e2);

/// Maximum-likelihood (or, with priors, maximum a posteriori) hyperparameters: L-BFGS-B over ψ
/// within the option's box, from the given starts, the default start and `random_starts`
/// log-uniform ones; the best objective seen is kept (a start that fails mid-way still contributes
/// the best point it evaluated). O(starts·iterations·(m³ + m²d)).
/// @throws InvalidArgument naming the field (X/y shapes or non-finite values, fewer than 2 rows,
/// a constant input column, bad bounds or counts); NumericalError if every start failed.
HyperFit fit_gp_hyperparameters(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                const Eigen::Ref<const Eigen::VectorXd>& y,
                                const HyperFitOptions& options = {});

}  // namespace gpb
