/// @file laplace.hpp
/// Clipping, Laplace noise and the Convert-to-Laplace (CTL) mechanism of LDP-BO
/// (specs/ldp-bo.md §3.1).
#pragma once

#include <string>

#include "gpbandit/privacy/noise_source.hpp"

namespace gpb::privacy {

/// Clamps y to [−bound, bound]. @throws InvalidArgument if bound ≤ 0 or y is NaN.
double clip(double y, double bound);

/// Laplace(0, scale) by the inverse CDF: −scale·sgn(u−½)·ln(1 − 2|u−½|), u = source.uniform()
/// (spec §3.1 line 4; u = ½ gives exactly 0). @throws InvalidArgument if scale ≤ 0 or not finite.
/// The textbook sampler: its floating-point output leaks low-order bits of the input when added
/// to a value (Mironov 2012); used in reproduction runs only.
double laplace_inverse_cdf(double scale, NoiseSource& source);

/// Mironov's snapping mechanism: clamp_B(⌊clamp_B(x) ⊕ S⊗λ⊗LN(U*)⌉_Λ), with S a random sign
/// (its own bit), U* uniform on (0, 1) at full floating-point resolution (every double drawn with
/// probability proportional to its spacing), Λ the smallest power of two ≥ λ, and ⌊·⌉_Λ the exact
/// rounding to the nearest multiple of Λ (ties away from zero). Outputs are multiples of Λ or ±B.
/// Guarantee (Mironov, "On Significance of the Least Significant Bits for Differential Privacy",
/// CCS 2012, Thm 1): if x = f(D) with f of sensitivity 1, the output is
/// (1/λ + 2^{−49}·B/λ)-DP, provided λ < B < 2^46·λ, arithmetic is IEEE double with
/// round-to-nearest and the logarithm is faithfully rounded (glibc's log is). This is slightly
/// MORE than the nominal 1/λ. For sensitivity Δ ≠ 1 apply it to x/Δ with scale λ/Δ and bound B/Δ
/// and multiply the output by Δ (what CtlMechanism does): then ε' = Δ/λ + 2^{−49}·B/λ.
/// Test: tests/test_privacy.cpp (Snapping*).
/// @throws InvalidArgument if x is NaN, scale is not a positive normal number, bound ≤ scale,
/// bound is not finite, or bound ≥ 2^46·scale (outside the theorem's range).
double laplace_snapping(double x, double scale, double bound, NoiseSource& source);

/// How CTL draws its Laplace noise.
enum class LaplaceSampler {
  InverseCdf,  ///< the paper's sampler (reproduction runs; leaks low-order bits)
  Snapping,    ///< Mironov's snapping mechanism (default; floating-point safe)
};

/// Convert-to-Laplace (Zhou & Tan 2021, Alg. CTL): y ↦ clip(y, B+R) + Laplace(𝓛),
/// 𝓛 = 2(B+R)/ε. Guarantees (see guarantee(); tests in tests/test_privacy.cpp):
///  - InverseCdf: ε-LDP for every real input thanks to the clip (spec D2) — in exact real
///    arithmetic only (Zhou & Tan Lemma 1). The floating-point sampler has no proven guarantee
///    (Mironov 2012: its low-order bits leak the input); reproduction runs only.
///  - Snapping: the snapping mechanism applied in units of the sensitivity Δ = 2(B+R): input
///    clip(y)/Δ ∈ [−½, ½], scale 1/ε, clamp bound B' = ½ + 40/ε rounded up to a multiple of Λ'
///    (clamp binds with probability ≈ 2·10^{−18}), output multiplied by Δ. Proven
///    ε' = ε·(1 + 2^{−49}·B') (Mironov 2012, Thm 1) — slightly more than the nominal ε, which is
///    the paper's claim for exact arithmetic; proven_epsilon() returns ε'. The noise law is the
///    Laplace(𝓛) law rounded to a grid of spacing Δ·Λ' (Λ' = smallest power of two ≥ 1/ε), so
///    its variance is ≈ 2𝓛² + (ΔΛ')²/12, not exactly 2𝓛², and its mean is y_c only up to a
///    bias of at most ≈ 3% of the grid spacing ΔΛ' (≤ 0.8% when 1/ε is a power of two; computed
///    from the rounded Laplace law), so E[ȳ] = y_c holds only approximately.
/// With clip = false both guarantees hold only for inputs |y| ≤ B+R (the paper's assumption).
class CtlMechanism {
 public:
  /// @throws InvalidArgument if ε ≤ 0, B ≤ 0 or R ≤ 0, or one is not finite (messages name
  /// "epsilon", "B", "R"), or, for Snapping, ε is so large (> ~10^{14}) that the theorem's range
  /// λ < B' < 2^46·λ cannot be met.
  CtlMechanism(double B, double R, double epsilon, bool clip = true,
               LaplaceSampler sampler = LaplaceSampler::Snapping);
  /// 𝓛 = 2(B+R)/ε.
  double scale() const { return scale_; }
  /// The nominal ε the mechanism was built with.
  double epsilon() const { return epsilon_; }
  /// One privatised reward (fresh noise per call). @throws InvalidArgument if y is NaN.
  double privatize(double y, NoiseSource& source) const;
  /// The guarantee this configuration gives, in words (for summary.json and docs); never more
  /// than what is proven for the floating-point implementation.
  std::string guarantee() const;
  /// The ε proven for this floating-point implementation: ε·(1 + 2^{−49}·B') for Snapping
  /// (slightly above epsilon()), +∞ for InverseCdf (no floating-point guarantee).
  double proven_epsilon() const;
  /// |privatize(y)| ≤ output_bound(): Δ·B' for Snapping, +∞ for InverseCdf.
  double output_bound() const;

 private:
  double B_, R_, epsilon_, scale_;
  bool clip_;
  LaplaceSampler sampler_;
};

}  // namespace gpb::privacy
