// DomainSpec: the Optimizer's candidate sets (grids, Sobol sets, point sets, continuous boxes with
// integer axes and one-hot groups) and the projection of a point onto a box's parameters.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/engine/space_values.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/io/csv.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "io/npy.hpp"

namespace gpb {

namespace {

/// Hash of a point's bits (−0 and +0 alike), for removing duplicate candidates.
struct RowHash {
  const Eigen::MatrixXd* pts;
  std::size_t operator()(Eigen::Index j) const {
    std::size_t h = 1469598103934665603ull;
    for (Eigen::Index k = 0; k < pts->rows(); ++k) {
      const double v = (*pts)(k, j) + 0.0;
      std::uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
    }
    return h;
  }
};
struct RowEqual {
  const Eigen::MatrixXd* pts;
  bool operator()(Eigen::Index a, Eigen::Index b) const { return pts->col(a) == pts->col(b); }
};

}  // namespace

DomainSpec DomainSpec::grid(std::vector<double> lower, std::vector<double> upper,
                            std::vector<int> counts) {
  DomainSpec s;
  s.kind = Kind::Grid;
  s.lower = std::move(lower);
  s.upper = std::move(upper);
  s.counts = std::move(counts);
  return s;
}

DomainSpec DomainSpec::sobol(std::vector<double> lower, std::vector<double> upper, int count,
                             std::uint64_t seed) {
  DomainSpec s;
  s.kind = Kind::Sobol;
  s.lower = std::move(lower);
  s.upper = std::move(upper);
  s.count = count;
  s.seed = seed;
  return s;
}

DomainSpec DomainSpec::box(std::vector<double> lower, std::vector<double> upper, int count,
                           std::uint64_t seed) {
  DomainSpec s = sobol(std::move(lower), std::move(upper), count, seed);
  s.kind = Kind::Box;
  return s;
}

DomainSpec DomainSpec::parameters(std::shared_ptr<const ParameterSpace> space) {
  GPB_EXPECTS(space != nullptr, "domain: the parameter space is null");
  DomainSpec s;
  s.kind = Kind::Parameters;
  s.space = std::move(space);
  return s;
}

DomainSpec DomainSpec::from_fingerprints(std::shared_ptr<const Fingerprints> fp) {
  GPB_EXPECTS(fp != nullptr && fp->size() > 0, "domain: the fingerprints are null or empty");
  DomainSpec s;
  s.kind = Kind::Fingerprints;
  s.fingerprints = std::move(fp);
  return s;
}

DomainSpec DomainSpec::from_rows(Eigen::MatrixXd rows) {
  DomainSpec s;
  s.kind = Kind::Points;
  s.points = std::move(rows);
  return s;
}

DomainSpec DomainSpec::from_file(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  DomainSpec s = from_rows(ext == ".npy" ? detail::read_npy_matrix(path) : read_csv_matrix(path));
  s.source = path;
  return s;
}

void DomainSpec::validate() const {
  if (kind != Kind::Box) return;
  const int d = static_cast<int>(lower.size());
  GPB_EXPECTS(d >= 1 && upper.size() == lower.size(),
              "domain.lower and domain.upper must have the same length >= 1, got "
                  << lower.size() << " and " << upper.size());
  std::vector<int> role(static_cast<std::size_t>(d), 0);  // 1: integer, 2: one-hot
  for (const int a : integer_axes) {
    GPB_EXPECTS(a >= 0 && a < d,
                "domain.integer: axis " << a << " is out of range [0, " << d << ")");
    GPB_EXPECTS(role[static_cast<std::size_t>(a)] == 0,
                "domain.integer: axis " << a << " is listed twice");
    role[static_cast<std::size_t>(a)] = 1;
    const double lo = lower[static_cast<std::size_t>(a)], hi = upper[static_cast<std::size_t>(a)];
    GPB_EXPECTS(std::floor(lo) == lo && std::floor(hi) == hi,
                "domain.integer: axis " << a << " has bounds " << lo << ", " << hi
                                        << " that are not integers");
  }
  for (const int a : log_integer_axes) {
    GPB_EXPECTS(a >= 0 && a < d,
                "domain.log_integer: axis " << a << " is out of range [0, " << d << ")");
    GPB_EXPECTS(role[static_cast<std::size_t>(a)] == 0,
                "domain.log_integer: axis " << a << " is listed twice or is an integer axis");
    role[static_cast<std::size_t>(a)] = 1;
    const double lo = lower[static_cast<std::size_t>(a)], hi = upper[static_cast<std::size_t>(a)];
    const double vlo = std::exp(lo), vhi = std::exp(hi);
    GPB_EXPECTS(std::isfinite(vhi) && std::round(vlo) >= 1 &&
                    std::abs(vlo - std::round(vlo)) <= 1e-9 * vlo &&
                    std::abs(vhi - std::round(vhi)) <= 1e-9 * vhi,
                "domain.log_integer: axis " << a << " has bounds " << lo << ", " << hi
                                            << " that are not ln of integers >= 1");
  }
  for (const auto& [first, k] : onehot_groups) {
    GPB_EXPECTS(k >= 2 && first >= 0 && first + k <= d,
                "domain.onehot: group {" << first << ", " << k
                                         << "} must have k >= 2 axes inside [0, " << d << ")");
    for (int a = first; a < first + k; ++a) {
      GPB_EXPECTS(role[static_cast<std::size_t>(a)] == 0,
                  "domain.onehot: axis " << a << " belongs to another group or is an integer axis");
      role[static_cast<std::size_t>(a)] = 2;
      GPB_EXPECTS(
          lower[static_cast<std::size_t>(a)] == 0 && upper[static_cast<std::size_t>(a)] == 1,
          "domain.onehot: axis " << a << " must have bounds 0 and 1");
    }
  }
}

std::vector<int> DomainSpec::refinable_axes() const {
  std::vector<int> axes;
  if (kind == Kind::Box) {
    axes.resize(lower.size());
    for (std::size_t a = 0; a < axes.size(); ++a) axes[a] = static_cast<int>(a);
  } else if (kind == Kind::Parameters && space) {
    int off = 0;
    for (const Parameter& p : space->parameters()) {
      if (p.refinable()) axes.push_back(off);
      off += p.encoded_dim();
    }
  }
  return axes;
}

void DomainSpec::project(double* x) const {
  if (kind == Kind::Parameters) {
    if (!space) return;
    int off = 0;  // refinable_axes() without its vector: this runs on every local candidate
    for (const Parameter& p : space->parameters()) {
      if (p.refinable()) x[off] = std::clamp(x[off], 0.0, 1.0);
      off += p.encoded_dim();
    }
    project_onto_mixtures(*space, x);
    return;
  }
  if (kind != Kind::Box) return;
  for (std::size_t a = 0; a < lower.size(); ++a) x[a] = std::clamp(x[a], lower[a], upper[a]);
  for (const int a : integer_axes) {
    const std::size_t k = static_cast<std::size_t>(a);
    x[k] = std::clamp(std::round(x[k]), lower[k], upper[k]);
  }
  for (const int a : log_integer_axes) {  // ln of the nearest integer (of e^x) in the bounds
    const std::size_t k = static_cast<std::size_t>(a);
    const double v = std::clamp(std::round(std::exp(x[k])), std::round(std::exp(lower[k])),
                                std::round(std::exp(upper[k])));
    x[k] = std::log(v);
  }
  for (const auto& [first, k] : onehot_groups) {
    const int best = static_cast<int>(std::max_element(x + first, x + first + k) - (x + first));
    for (int i = 0; i < k; ++i) x[first + i] = i == best ? 1.0 : 0.0;
  }
}

Domain DomainSpec::build() const {
  switch (kind) {
    case Kind::Grid:
      return Domain::grid(lower, upper, counts);
    case Kind::Sobol:
      return Domain::sobol(lower, upper, count, seed);
    case Kind::Box:
      break;
    case Kind::Parameters:
      return Domain::from_space(space);
    case Kind::Fingerprints:
      return Domain::fingerprints(*fingerprints);
    default:
      return Domain::from_rows(points);
  }
  validate();
  if (integer_axes.empty() && log_integer_axes.empty() && onehot_groups.empty())
    return Domain::sobol(lower, upper, count, seed);
  // Integer axes (log-integer ones in log) are sampled over [lo − ½, hi + ½] so that rounding gives
  // every value an equal share; then every point is projected and repeats are dropped (first
  // occurrence kept, so the Sobol order of the initial design survives).
  std::vector<double> lo = lower, hi = upper;
  for (const int a : integer_axes) {
    lo[static_cast<std::size_t>(a)] -= 0.5;
    hi[static_cast<std::size_t>(a)] += 0.5;
  }
  for (const int a : log_integer_axes) {  // v log-uniform: each integer gets ln((v+½)/(v−½))
    const std::size_t k = static_cast<std::size_t>(a);
    lo[k] = std::log(std::round(std::exp(lower[k])) - 0.5);
    hi[k] = std::log(std::round(std::exp(upper[k])) + 0.5);
  }
  const Eigen::MatrixXd pts = Domain::sobol(lo, hi, count, seed).points();
  Eigen::MatrixXd out(pts.rows(), pts.cols());
  std::unordered_set<Eigen::Index, RowHash, RowEqual> seen(16, RowHash{&out}, RowEqual{&out});
  Eigen::Index kept = 0;
  for (Eigen::Index j = 0; j < pts.cols(); ++j) {
    out.col(kept) = pts.col(j);
    project(out.col(kept).data());
    if (seen.insert(kept).second) ++kept;  // a repeat is overwritten by the next point
  }
  return Domain::from_points(out.leftCols(kept));
}

int DomainSpec::dim() const {
  if (kind == Kind::Parameters) return space->encoded_dim();
  if (kind == Kind::Fingerprints) return fingerprints->words();
  return kind == Kind::Points ? static_cast<int>(points.cols()) : static_cast<int>(lower.size());
}

}  // namespace gpb
