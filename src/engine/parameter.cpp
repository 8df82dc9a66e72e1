// Parameters and constraints of a ParameterSpace: construction and checks.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <utility>

#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

Parameter Parameter::numerical_discrete(std::string name, std::vector<double> values) {
  GPB_EXPECTS(!values.empty(), "parameter '" << name << "': values must not be empty");
  for (double v : values)
    GPB_EXPECTS(std::isfinite(v), "parameter '" << name << "': value " << v << " is not finite");
  std::sort(values.begin(), values.end());
  for (std::size_t i = 1; i < values.size(); ++i)
    GPB_EXPECTS(values[i] != values[i - 1],
                "parameter '" << name << "': value " << values[i] << " appears twice");
  Parameter p;
  p.name = std::move(name);
  p.type = Type::NumericDiscrete;
  p.lower = values.front();
  p.upper = values.back();
  p.values = std::move(values);
  return p;
}

Parameter Parameter::integer(std::string name, long long lower, long long upper, long long step) {
  GPB_EXPECTS(lower <= upper,
              "parameter '" << name << "': lower = " << lower << " must be <= upper = " << upper);
  GPB_EXPECTS(step >= 1, "parameter '" << name << "': step must be >= 1, got " << step);
  const long long n = (upper - lower) / step + 1;
  GPB_EXPECTS(n <= std::numeric_limits<int>::max(),
              "parameter '" << name << "': more than 2^31 - 1 levels");
  Parameter p;
  p.name = std::move(name);
  p.type = Type::Integer;
  for (long long i = 0; i < n; ++i) p.values.push_back(static_cast<double>(lower + i * step));
  p.lower = p.values.front();
  p.upper = p.values.back();
  return p;
}

Parameter Parameter::categorical(std::string name, std::vector<std::string> labels) {
  GPB_EXPECTS(!labels.empty(), "parameter '" << name << "': labels must not be empty");
  std::set<std::string> seen;
  for (const auto& l : labels)
    GPB_EXPECTS(seen.insert(l).second,
                "parameter '" << name << "': label '" << l << "' appears twice");
  Parameter p;
  p.name = std::move(name);
  p.type = Type::Categorical;
  p.labels = std::move(labels);
  return p;
}

Parameter Parameter::categorical(std::string name, std::vector<std::string> labels,
                                 Eigen::MatrixXd table) {
  Parameter p = categorical(std::move(name), std::move(labels));
  GPB_EXPECTS(table.rows() == static_cast<Eigen::Index>(p.labels.size()) && table.cols() >= 1,
              "parameter '" << p.name << "': the descriptor table is " << table.rows() << " x "
                            << table.cols() << ", expected one row per label (" << p.labels.size()
                            << ") and at least one column");
  GPB_EXPECTS(table.allFinite(), "parameter '" << p.name << "': a descriptor is not finite");
  p.descriptors = std::move(table);
  return p;
}

Parameter Parameter::continuous(std::string name, double lower, double upper, int count) {
  GPB_EXPECTS(std::isfinite(lower) && std::isfinite(upper) && lower <= upper,
              "parameter '" << name << "': the box [" << lower << ", " << upper
                            << "] must be finite with lower <= upper");
  GPB_EXPECTS(count >= 1, "parameter '" << name << "': count must be >= 1, got " << count);
  GPB_EXPECTS(count == 1 || lower < upper,
              "parameter '" << name << "': count > 1 needs lower < upper");
  Parameter p;
  p.name = std::move(name);
  p.type = Type::Continuous;
  p.lower = lower;
  p.upper = upper;
  for (int k = 0; k < count; ++k) {
    p.values.push_back(count == 1       ? 0.5 * (lower + upper)
                       : k == count - 1 ? upper
                                        : lower + (upper - lower) * k / (count - 1.0));
  }
  if (count == 1) p.lower = p.upper = p.values[0];
  return p;
}

int Parameter::size() const {
  return static_cast<int>(numeric() ? values.size() : labels.size());
}

int Parameter::encoded_dim() const {
  if (numeric()) return 1;
  return descriptors.size() > 0 ? static_cast<int>(descriptors.cols()) : size();
}

std::string number_text(double v) {
  char buf[32];
  for (int digits = 15; digits <= 17; ++digits) {  // the shortest text that reads back as v
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string Parameter::text(int level) const {
  if (!numeric()) return labels[static_cast<std::size_t>(level)];
  return number_text(values[static_cast<std::size_t>(level)]);
}

Constraint Constraint::linear(std::vector<int> params, std::vector<double> coefs, double rhs,
                              double tol) {
  GPB_EXPECTS(!params.empty() && params.size() == coefs.size(),
              "linear constraint: needs one coefficient per parameter, got "
                  << coefs.size() << " for " << params.size() << " parameters");
  Constraint c;
  c.type = Type::Linear;
  c.params = std::move(params);
  c.coefs = std::move(coefs);
  c.rhs = rhs;
  c.tol = tol;
  return c;
}

Constraint Constraint::mixture(std::vector<int> params, double total, double tol) {
  GPB_EXPECTS(params.size() >= 1, "mixture constraint: needs at least one parameter");
  Constraint c;
  c.type = Type::Mixture;
  c.coefs.assign(params.size(), 1.0);
  c.params = std::move(params);
  c.rhs = total;
  c.tol = tol;
  return c;
}

Constraint Constraint::exclusion(std::vector<int> params, std::vector<std::vector<int>> levels) {
  GPB_EXPECTS(!params.empty() && params.size() == levels.size(),
              "exclusion constraint: needs one set of levels per parameter, got "
                  << levels.size() << " for " << params.size() << " parameters");
  Constraint c;
  c.type = Type::Exclusion;
  c.params = std::move(params);
  c.levels = std::move(levels);
  return c;
}

Constraint Constraint::distinct(std::vector<int> params) {
  GPB_EXPECTS(params.size() >= 2, "distinct constraint: needs at least two parameters");
  Constraint c;
  c.type = Type::Distinct;
  c.params = std::move(params);
  return c;
}

}  // namespace gpb
