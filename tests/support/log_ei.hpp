// log EI by its direct formula, for the refinement tests that compare an asked point's acquisition
// with every candidate's (tests/test_optimizer_refine.cpp, tests/test_optimizer_space_refine.cpp).
#pragma once

#include <cmath>

namespace gpb::test {

/// log EI of N(m, v) over `best` (maximisation), for the checks of the tests (moderate z only).
inline double log_ei(double m, double v, double best) {
  const double s = std::sqrt(v), z = (m - best) / s;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * 3.14159265358979323846);
  return std::log(s * (z * cdf + pdf));
}

}  // namespace gpb::test
