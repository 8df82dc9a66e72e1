/// @file laplace.hpp
/// Clipping, Laplace noise and the Convert-to-Laplace (CTL) mechanism of LDP-BO
/// (specs/ldp-bo.md §3.1).
#pragma once

#include <string>

#include "gpbandit/privacy/noise_source.hpp"

namespace gpb::privacy {

/// Clamps y to [−bound, bound]. @throws InvalidArgument if bound ≤ 0 or y is NaN.
double clip(double y, double bound);

/// Laplace(0, scale) by the inverse CDF: −scale·sgn(u−½)·ln(1 − 2|u−½|), u ~ U(0,1).
/// The textbook sampler: its floating-point output leaks low-order bits of the input when added
/// to a value (Mironov 2012); used in reproduction runs only.
double laplace_inverse_cdf(double scale, NoiseSource& source);

/// Mironov's snapping mechanism: clamp_B(⌊clamp_B(x) + S·λ·ln(U)⌉_Λ), with S a random sign,
/// U uniform, Λ the smallest power of two ≥ λ, and rounding to the nearest multiple of Λ.
/// Guarantee (Mironov 2012, Thm 1): (1/λ + 2^{−49}·B/λ²)-DP for inputs in [−B, B] when
/// λ < B < 2^46·λ — i.e. slightly more than the nominal ε = sensitivity/λ; CtlMechanism
/// accounts for the excess by shrinking λ's ε budget accordingly.
/// @throws InvalidArgument if scale ≤ 0 or bound ≤ scale.
double laplace_snapping(double x, double scale, double bound, NoiseSource& source);

/// How CTL draws its Laplace noise.
enum class LaplaceSampler {
  InverseCdf,  ///< the paper's sampler (reproduction runs; leaks low-order bits)
  Snapping,    ///< Mironov's snapping mechanism (default; floating-point safe)
};

/// Convert-to-Laplace (Zhou & Tan 2021, Alg. CTL): y ↦ clip(y, B+R) + Laplace(𝓛),
/// 𝓛 = 2(B+R)/ε. ε-LDP for every real input thanks to the clip (spec D2).
class CtlMechanism {
 public:
  /// @throws InvalidArgument if ε ≤ 0, B ≤ 0 or R ≤ 0 (messages name "epsilon", "B", "R").
  CtlMechanism(double B, double R, double epsilon, bool clip = true,
               LaplaceSampler sampler = LaplaceSampler::Snapping);
  /// 𝓛 = 2(B+R)/ε.
  double scale() const { return scale_; }
  double epsilon() const { return epsilon_; }
  /// One privatised reward (fresh noise per call).
  double privatize(double y, NoiseSource& source) const;
  /// The guarantee this configuration gives, in words (for summary.json and docs).
  std::string guarantee() const;

 private:
  double B_, R_, epsilon_, scale_;
  bool clip_;
  LaplaceSampler sampler_;
};

}  // namespace gpb::privacy
