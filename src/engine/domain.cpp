// Finite domains: grids, point sets from data, index sets for precomputed kernels.

#include "gpbandit/engine/domain.hpp"

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/engine/parameter_space.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "engine/detail/sobol.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/io/csv.hpp"
#include "io/npy.hpp"

namespace gpb {
namespace {

constexpr std::int64_t kMaxCandidates = std::numeric_limits<int>::max();

void check_grid_args(const std::vector<double>& lower, const std::vector<double>& upper,
                     const std::vector<int>& counts) {
  GPB_EXPECTS(lower.size() == upper.size() && lower.size() == counts.size(),
              "domain.lower, domain.upper and domain.counts must have the same length, got "
                  << lower.size() << ", " << upper.size() << " and " << counts.size());
  GPB_EXPECTS(!counts.empty(), "domain.counts must not be empty (dimension >= 1)");
  std::int64_t n = 1;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    GPB_EXPECTS(std::isfinite(lower[i]),
                "domain.lower[" << i << "] must be finite, got " << lower[i]);
    GPB_EXPECTS(std::isfinite(upper[i]),
                "domain.upper[" << i << "] must be finite, got " << upper[i]);
    GPB_EXPECTS(lower[i] <= upper[i], "domain.lower[" << i << "] = " << lower[i]
                                                      << " must be <= domain.upper[" << i
                                                      << "] = " << upper[i]);
    GPB_EXPECTS(counts[i] >= 1, "domain.counts[" << i << "] must be >= 1, got " << counts[i]);
    n *= counts[i];
    GPB_EXPECTS(n <= kMaxCandidates, "domain.counts: the grid has more than "
                                         << kMaxCandidates << " candidates (product of counts)");
  }
}

/// Coordinate k of an axis with `count` points on [lo, hi]; exact endpoints, centre when count 1.
double axis_value(double lo, double hi, int count, int k) {
  if (count == 1) return 0.5 * (lo + hi);
  if (k == count - 1) return hi;
  return lo + (hi - lo) * (static_cast<double>(k) / static_cast<double>(count - 1));
}

}  // namespace

Domain::Domain(Eigen::MatrixXd points)
    : points_(std::move(points)), held_(points_.cols()), total_(points_.cols()) {
  lower_ = points_.rowwise().minCoeff();
  upper_ = points_.rowwise().maxCoeff();
}

Domain Domain::grid(const std::vector<double>& lower, const std::vector<double>& upper,
                    const std::vector<int>& counts) {
  check_grid_args(lower, upper, counts);
  long long n = 1;
  for (int c : counts) n *= c;
  return grid_slice(lower, upper, counts, 0, n);
}

Domain Domain::grid_slice(const std::vector<double>& lower, const std::vector<double>& upper,
                          const std::vector<int>& counts, long long begin, long long end) {
  check_grid_args(lower, upper, counts);
  const int d = static_cast<int>(counts.size());
  long long n = 1;
  for (int c : counts) n *= c;
  GPB_EXPECTS(begin >= 0 && begin < end && end <= n,
              "domain: slice [" << begin << ", " << end << ") of a grid of " << n
                                << " candidates is empty or out of range");
  Eigen::MatrixXd pts(d, end - begin);
  // Axis 0 fastest: candidate j has digit (j / stride_i) % counts[i] on axis i.
  long long stride = 1;
  for (int i = 0; i < d; ++i) {
    const int c = counts[i];
    for (long long j = begin; j < end; ++j) {
      const int k = static_cast<int>((j / stride) % c);
      pts(i, j - begin) = axis_value(lower[i], upper[i], c, k);
    }
    stride *= c;
  }
  Domain dom(std::move(pts));
  dom.begin_ = begin;
  dom.total_ = n;
  dom.lower_ = Eigen::Map<const Eigen::VectorXd>(lower.data(), d);
  dom.upper_ = Eigen::Map<const Eigen::VectorXd>(upper.data(), d);
  dom.counts_ = counts;
  return dom;
}

Eigen::MatrixXd Domain::points_of(long long begin, long long end) const {
  GPB_EXPECTS(begin >= 0 && begin < end && end <= total_,
              "domain: candidates [" << begin << ", " << end << ") are empty or not within [0, "
                                     << total_ << ")");
  if (space_ && streams_) return space_->encode_range(begin, end);
  if (begin >= begin_ && end <= begin_ + points_.cols()) {
    return points_.middleCols(begin - begin_, end - begin);
  }
  if (space_) return space_->encode_range(begin, end);
  GPB_EXPECTS(is_grid(), "domain: candidates [" << begin << ", " << end
                                                << ") are not held by this slice [" << begin_
                                                << ", " << begin_ + points_.cols()
                                                << ") and the domain is not a grid");
  const std::vector<double> lo(lower_.data(), lower_.data() + lower_.size());
  const std::vector<double> up(upper_.data(), upper_.data() + upper_.size());
  return grid_slice(lo, up, counts_, begin, end).points_;
}

Domain Domain::from_space(std::shared_ptr<const ParameterSpace> space) {
  GPB_EXPECTS(space != nullptr, "domain: the parameter space is null");
  return space_slice(space, 0, space->size());
}

Domain Domain::space_slice(std::shared_ptr<const ParameterSpace> space, long long begin,
                           long long end) {
  GPB_EXPECTS(space != nullptr, "domain: the parameter space is null");
  const long long n = space->size();
  GPB_EXPECTS(n <= kMaxCandidates, "domain: the parameter space has "
                                       << n << " feasible combinations, more than a domain's "
                                       << kMaxCandidates);
  GPB_EXPECTS(begin >= 0 && begin < end && end <= n,
              "domain: slice [" << begin << ", " << end << ") of a parameter space of " << n
                                << " combinations is empty or out of range");
  // Refused before the allocation: encodings whose 8·d·n bytes exceed the host memory available
  // now (skipped where that cannot be read); docs/spaces.md, "Index and memory".
  const double bytes = 8.0 * space->encoded_dim() * static_cast<double>(end - begin);
  const std::size_t avail = available_host_memory();
  GPB_EXPECTS(avail == 0 || bytes <= static_cast<double>(avail),
              "domain: the encodings of the parameter space's combinations ["
                  << begin << ", " << end << ") (" << space->encoded_dim() << " × " << end - begin
                  << " doubles) need " << bytes / 1e9 << " GB, more than the "
                  << static_cast<double>(avail) / 1e9
                  << " GB of memory available; take a smaller slice (Domain::space_slice) or "
                     "compute blocks (Domain::points_of, ParameterSpace::encode_range)");
  Domain dom(space->encode_range(begin, end));
  dom.begin_ = begin;
  dom.total_ = n;
  dom.space_ = std::move(space);
  return dom;
}

Domain Domain::slice(long long begin, long long end) const {
  GPB_EXPECTS(begin >= begin_ && begin < end && end <= begin_ + held_,
              "domain: slice [" << begin << ", " << end << ") is empty or not within the held "
                                << "candidates [" << begin_ << ", " << begin_ + held_ << ")");
  Domain dom = *this;
  if (!streams_) dom.points_ = points_.middleCols(begin - begin_, end - begin);
  dom.begin_ = begin;
  dom.held_ = end - begin;
  return dom;
}

Domain Domain::streamed_space(std::shared_ptr<const ParameterSpace> space) {
  GPB_EXPECTS(space != nullptr, "domain: the parameter space is null");
  const long long n = space->size();
  GPB_EXPECTS(n <= kMaxCandidates, "domain: the parameter space has "
                                       << n << " feasible combinations, more than a domain's "
                                       << kMaxCandidates);
  const int d = space->encoded_dim();
  Domain dom;
  dom.points_.resize(d, 0);
  dom.lower_ = Eigen::VectorXd::Constant(d, std::numeric_limits<double>::infinity());
  dom.upper_ = -dom.lower_;
  constexpr long long kPass = 65536;  // the bounding box, one block of encodings at a time
  for (long long b = 0; b < n; b += kPass) {
    const Eigen::MatrixXd x = space->encode_range(b, std::min(n, b + kPass));
    dom.lower_ = dom.lower_.cwiseMin(x.rowwise().minCoeff());
    dom.upper_ = dom.upper_.cwiseMax(x.rowwise().maxCoeff());
  }
  dom.total_ = n;
  dom.held_ = n;
  dom.streams_ = true;
  dom.space_ = std::move(space);
  return dom;
}

void Domain::refuse_streamed(const char* what) {
  throw InvalidArgument(std::string("domain: ") + what +
                        " of a streamed parameter-space domain (Domain::streamed_space): its "
                        "encodings are never held; use points_of(begin, end)");
}

Domain Domain::from_slice(Eigen::MatrixXd points, long long begin, long long n_total) {
  GPB_EXPECTS(points.rows() >= 1 && points.cols() >= 1, "domain: the slice is empty");
  GPB_EXPECTS(begin >= 0 && begin + points.cols() <= n_total && n_total <= kMaxCandidates,
              "domain: slice [" << begin << ", " << begin + points.cols() << ") is not within [0, "
                                << n_total << ")");
  GPB_EXPECTS(points.allFinite(), "domain: the slice has a coordinate that is not finite");
  Domain dom(std::move(points));
  dom.begin_ = begin;
  dom.total_ = n_total;
  return dom;
}

namespace {

/// Checks a d×N point set (`points(i, j)`: coordinate i of candidate j) for emptiness, size and
/// finiteness; messages count candidates as "point j, coordinate i".
void check_points(const Eigen::MatrixXd& points) {
  GPB_EXPECTS(points.rows() >= 1 && points.cols() >= 1,
              "domain: the point set is empty (" << points.cols() << " x " << points.rows() << ")");
  GPB_EXPECTS(points.cols() <= kMaxCandidates, "domain: too many points ("
                                                   << points.cols() << ", at most "
                                                   << kMaxCandidates << ")");
  for (Eigen::Index j = 0; j < points.cols(); ++j) {
    for (Eigen::Index i = 0; i < points.rows(); ++i) {
      GPB_EXPECTS(std::isfinite(points(i, j)), "domain: point " << j << ", coordinate " << i
                                                                << " is not finite ("
                                                                << points(i, j) << ")");
    }
  }
}

}  // namespace

Domain Domain::from_rows(const Eigen::MatrixXd& rows) {
  return from_points(rows.transpose());
}

Domain Domain::from_points(Eigen::MatrixXd points) {
  check_points(points);
  return Domain(std::move(points));
}

Domain Domain::from_csv(const std::string& path) {
  return from_rows(read_csv_matrix(path));
}

Domain Domain::sobol(const std::vector<double>& lower, const std::vector<double>& upper, int count,
                     std::uint64_t seed) {
  GPB_EXPECTS(lower.size() == upper.size(),
              "domain.lower and domain.upper must have the same "
              "length, got "
                  << lower.size() << " and " << upper.size());
  GPB_EXPECTS(!lower.empty(), "domain.lower must not be empty (dimension >= 1)");
  GPB_EXPECTS(lower.size() <= static_cast<std::size_t>(detail::kSobolMaxDim),
              "domain: a Sobol domain has at most " << detail::kSobolMaxDim << " dimensions, got "
                                                    << lower.size());
  GPB_EXPECTS(count >= 1, "domain.count must be >= 1, got " << count);
  for (std::size_t i = 0; i < lower.size(); ++i) {
    GPB_EXPECTS(std::isfinite(lower[i]) && std::isfinite(upper[i]),
                "domain.lower[" << i << "] and domain.upper[" << i << "] must be finite");
    GPB_EXPECTS(lower[i] <= upper[i], "domain.lower[" << i << "] = " << lower[i]
                                                      << " must be <= domain.upper[" << i
                                                      << "] = " << upper[i]);
  }
  const int d = static_cast<int>(lower.size());
  Eigen::MatrixXd pts = detail::sobol_points(d, count, seed);
  for (int i = 0; i < d; ++i) {
    pts.row(i) = (lower[static_cast<std::size_t>(i)] +
                  (upper[static_cast<std::size_t>(i)] - lower[static_cast<std::size_t>(i)]) *
                      pts.row(i).array())
                     .matrix();
  }
  Domain dom(std::move(pts));
  dom.lower_ = Eigen::Map<const Eigen::VectorXd>(lower.data(), d);
  dom.upper_ = Eigen::Map<const Eigen::VectorXd>(upper.data(), d);
  return dom;
}

Domain Domain::from_npy(const std::string& path) {
  const std::int64_t n = detail::npy_points_shape(path).first;  // read once, d × N, no copies
  GPB_EXPECTS(n <= std::numeric_limits<int>::max(), path << ": N = " << n
                                                         << " candidates exceeds the limit "
                                                         << std::numeric_limits<int>::max());
  return from_points(detail::read_npy_points(path, 0, n));
}

Domain Domain::fingerprint_slice(const Fingerprints& fp, long long begin, long long n_total) {
  GPB_EXPECTS(begin >= 0 && begin + fp.size() <= n_total && n_total <= kMaxCandidates,
              "domain: fingerprints [" << begin << ", " << begin + fp.size()
                                       << ") are not within [0, " << n_total << ")");
  Eigen::MatrixXd words(fp.words(), fp.size());
  static_assert(sizeof(double) == sizeof(std::uint64_t), "one word per double");
  std::memcpy(words.data(), fp.data().data(), fp.data().size() * sizeof(std::uint64_t));
  Domain dom;
  dom.points_ = std::move(words);
  dom.held_ = dom.points_.cols();
  dom.lower_ = Eigen::VectorXd::Zero(fp.words());  // no box: the points are bit patterns
  dom.upper_ = Eigen::VectorXd::Zero(fp.words());
  dom.begin_ = begin;
  dom.total_ = n_total;
  dom.fp_bits_ = fp.bits();
  dom.fp_kind_ = fp.kind();
  return dom;
}

Domain Domain::fingerprints(const Fingerprints& fp) {
  return fingerprint_slice(fp, 0, fp.size());
}

Fingerprints Domain::fingerprints_of(long long begin, long long end) const {
  GPB_EXPECTS(is_fingerprint(), "domain: the candidates are not fingerprints");
  GPB_EXPECTS(begin >= begin_ && begin < end && end <= begin_ + points_.cols(),
              "domain: fingerprints [" << begin << ", " << end << ") are empty or not held ["
                                       << begin_ << ", " << begin_ + points_.cols() << ")");
  const Eigen::Index w = points_.rows();
  std::vector<std::uint64_t> words(static_cast<std::size_t>((end - begin) * w));
  std::memcpy(words.data(), points_.data() + (begin - begin_) * w,
              words.size() * sizeof(std::uint64_t));
  return Fingerprints::from_words(std::move(words), end - begin, fp_bits_, fp_kind_);
}

Domain Domain::indices(int n) {
  GPB_EXPECTS(n >= 1, "domain: the number of indices must be >= 1, got " << n);
  Eigen::MatrixXd pts(1, n);
  for (int j = 0; j < n; ++j) pts(0, j) = static_cast<double>(j);
  return Domain(std::move(pts));
}

}  // namespace gpb
