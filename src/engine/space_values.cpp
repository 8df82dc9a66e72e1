// Numeric values off a ParameterSpace's lists (include/gpbandit/engine/space_values.hpp).
#include "gpbandit/engine/space_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpbandit/error.hpp"

namespace gpb {

namespace {

const Parameter& numeric_parameter(const ParameterSpace& space, int p) {
  GPB_EXPECTS(p >= 0 && p < static_cast<int>(space.parameters().size()),
              "parameter space: parameter " << p << " out of range [0, "
                                            << space.parameters().size() << ")");
  const Parameter& par = space.parameters()[static_cast<std::size_t>(p)];
  GPB_EXPECTS(par.numeric(), "parameter '" << par.name
                                           << "': categorical, so only its labels have an "
                                              "encoding (a label off its list has none)");
  return par;
}

/// The encoding of value v (ParameterSpace's numeric encoder: the same operations).
double affine(const Parameter& par, double v) {
  const double w = par.values.back() - par.values.front();
  return w > 0 ? (v - par.values.front()) / w : 0.0;
}

/// The value of feature f by the affine map's inverse (no search for a shortest text: for sums
/// checked against a tolerance, where value_of_feature's ulps do not matter and its cost would).
double plain_value(const Parameter& par, double f) {
  return par.values.front() + f * (par.values.back() - par.values.front());
}

/// Doubles searched on each side of the inverse map's value (value_of_feature).
constexpr int kUlps = 16;

/// Significant digits of the shortest %.*g text that reads back as v.
int shortest_digits(double v) {
  char buf[40];
  for (int digits = 1; digits < 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) return digits;
  }
  return 17;
}

}  // namespace

double encode_value(const ParameterSpace& space, int p, double value) {
  const Parameter& par = numeric_parameter(space, p);
  GPB_EXPECTS(std::isfinite(value),
              "parameter '" << par.name << "': value " << value << " is not finite");
  return affine(par, value);
}

double value_of_feature(const ParameterSpace& space, int p, double feature) {
  const Parameter& par = numeric_parameter(space, p);
  for (const double v : par.values) {
    if (affine(par, v) == feature) return v;
  }
  // The inverse map is not exact in floating point: of the doubles within a few ulps of it whose
  // encoding is exactly `feature`, the one with the shortest decimal text (0.08 rather than
  // 0.08000000000000002, the value a user typed), the nearest on a tie.
  const double w = par.values.back() - par.values.front();
  const double guess = par.values.front() + feature * w;
  double best = guess;
  int best_digits = 99;
  for (int k = -kUlps; k <= kUlps; ++k) {
    double v = guess;
    for (int i = 0; i < std::abs(k); ++i) v = std::nextafter(v, k < 0 ? -HUGE_VAL : HUGE_VAL);
    if (affine(par, v) != feature) continue;
    const int digits = shortest_digits(v);
    if (digits < best_digits ||
        (digits == best_digits && std::abs(v - guess) < std::abs(best - guess))) {
      best = v;
      best_digits = digits;
    }
  }
  return best;
}

int feature_offset(const ParameterSpace& space, int p) {
  const auto& ps = space.parameters();
  GPB_EXPECTS(p >= 0 && p < static_cast<int>(ps.size()),
              "parameter space: parameter " << p << " out of range [0, " << ps.size() << ")");
  int off = 0;
  for (int q = 0; q < p; ++q) off += ps[static_cast<std::size_t>(q)].encoded_dim();
  return off;
}

std::string value_text(const ParameterSpace& space, int p, const double* x, int level) {
  const Parameter& par = space.parameters()[static_cast<std::size_t>(p)];
  if (!par.numeric()) return par.text(level);
  return number_text(value_of_feature(space, p, x[feature_offset(space, p)]));
}

void project_onto_mixtures(const ParameterSpace& space, double* x) {
  const auto& ps = space.parameters();
  for (const Constraint& c : space.constraints()) {
    if (c.type != Constraint::Type::Mixture) continue;
    std::vector<std::size_t> movable;  // positions in c.params
    double sum = 0;
    for (std::size_t i = 0; i < c.params.size(); ++i) {
      const int p = c.params[i];
      const Parameter& par = ps[static_cast<std::size_t>(p)];
      sum += c.coefs[i] * plain_value(par, x[feature_offset(space, p)]);
      if (par.refinable()) movable.push_back(i);
    }
    for (int pass = 0; pass < 4 && !movable.empty() && std::abs(c.rhs - sum) > 0.25 * c.tol;
         ++pass) {
      double weight = 0;
      for (const std::size_t i : movable) weight += c.coefs[i] * c.coefs[i];
      const double step = (c.rhs - sum) / weight;
      std::vector<std::size_t> still;
      for (const std::size_t i : movable) {
        const int p = c.params[i];
        const Parameter& par = ps[static_cast<std::size_t>(p)];
        double& f = x[feature_offset(space, p)];
        const double old = plain_value(par, f);
        const double v = std::clamp(old + step * c.coefs[i], par.lower, par.upper);
        f = affine(par, v);
        sum += c.coefs[i] * (plain_value(par, f) - old);
        if (v > par.lower && v < par.upper) still.push_back(i);  // may move again
      }
      movable = std::move(still);
    }
  }
}

bool feasible_at(const ParameterSpace& space, const double* x) {
  const std::vector<int> levels = space.decode(x);
  const auto& ps = space.parameters();
  std::vector<double> values(ps.size(), 0.0);
  int off = 0;
  for (std::size_t p = 0; p < ps.size(); ++p) {
    if (ps[p].numeric()) values[p] = plain_value(ps[p], x[off]);
    off += ps[p].encoded_dim();
  }
  return space.feasible_values(levels.data(), values.data());
}

}  // namespace gpb
