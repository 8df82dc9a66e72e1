// Output warping of the Optimizer's model (FitOptions::warp): with r = top − g the distance below
// the best observed value (g = sign·y, larger is better), r is kept up to a knee (a quantile of r)
// and Box-Cox compressed beyond it, continuously with its slope, the exponent chosen by maximum
// likelihood in [0, 1]. It compresses the bad tail of heavy-tailed objectives (Rosenbrock spans
// 1 .. 1e6, and standardised values then cannot tell 1 from 1000), leaves the good half of the
// values as they are, and is the identity (λ = 1) where the bad tail is not heavy.
#pragma once

#include <vector>

namespace gpb::detail {

struct OutputWarp {
  double lambda = 1.0;  ///< Box-Cox exponent in [0, 1]; 1: the identity
  double top = 0.0;     ///< the best g when the warp was chosen
  double knee = 1.0;    ///< r beyond which the warp compresses (> 0)

  bool identity() const { return lambda >= 1.0; }
  bool operator==(const OutputWarp& o) const {
    return lambda == o.lambda && top == o.top && knee == o.knee;
  }
  bool operator!=(const OutputWarp& o) const { return !(*this == o); }
  /// The warped value: top − r for r ≤ knee, top − knee·(1 + BoxCox(r / knee; λ)) beyond.
  double forward(double g) const;
  /// d forward / d g (> 0).
  double slope(double g) const;
  /// The g whose warped value is h.
  double inverse(double h) const;
  /// The warp of the values g with its knee at the `knee_quantile` quantile of r (the
  /// ⌊q·n⌋-th smallest, in (0, 1)): λ maximising the Box-Cox likelihood of the warped values on
  /// a grid of [0, 1] (ties: the larger λ); the identity for fewer than 3 values or no spread.
  static OutputWarp choose(const std::vector<double>& g, double knee_quantile);
};

}  // namespace gpb::detail
