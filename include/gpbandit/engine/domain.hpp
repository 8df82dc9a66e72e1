/// @file domain.hpp
/// Finite candidate sets: a d×N matrix of points, one column per candidate (column-major).
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/engine/fingerprint_kind.hpp"

namespace gpb {

class Fingerprints;    // gpbandit/engine/fingerprint.hpp
class ParameterSpace;  // gpbandit/engine/parameter_space.hpp

/// A finite domain of N candidates in d dimensions, or a contiguous slice of one.
///
/// Fingerprint domains (Domain::fingerprints): the candidates are N packed fingerprints of W
/// 64-bit words each, for the Tanimoto and MinMax kernels. points() then holds the words bit for
/// bit in its W×N doubles (column j = fingerprint j's W words: the very memory layout of the
/// row-major N×W words), so the posterior, sharding and the CUDA upload handle them as any point
/// set; they are bit patterns (some are NaN as doubles), never coordinates: read them with
/// fingerprints_of() or with memcpy, and use them only with a fingerprint kernel.
///
/// Points are stored as a d×N column-major matrix (candidate j is column j). A domain made from a
/// precomputed kernel has d = 1 and holds the indices 0..N−1 as its points.
///
/// Slices (sharding over MPI ranks): a slice holds only the candidates [slice_begin(),
/// slice_end()) of an N-candidate domain; size() is still N, points() has slice_end() −
/// slice_begin() columns (column j − slice_begin() is candidate j) and point(j) accepts only the
/// held candidates. A FinitePosterior on a sharded Context accepts the whole domain or exactly the
/// slice of its rank.
///
/// Thread safety: immutable after construction (a value type); any number of threads may read
/// one Domain at once.
class Domain {
 public:
  /// Cartesian grid over the box [lower, upper] with counts[i] points on axis i (endpoints
  /// included; a count of 1 puts the point at the box centre). Candidate order: axis 0 fastest.
  /// @throws InvalidArgument if sizes differ, a count < 1, lower > upper, or N overflows.
  static Domain grid(const std::vector<double>& lower, const std::vector<double>& upper,
                     const std::vector<int>& counts);
  /// Points given as an N×d matrix (one row per candidate), e.g. the rows of a data set.
  /// @throws InvalidArgument if empty or not finite.
  static Domain from_rows(const Eigen::MatrixXd& rows);
  /// Points from a CSV file (optional header line, one candidate per row, d numeric columns).
  /// @throws InvalidArgument naming file:line for ragged rows, non-numbers, NaN or Inf.
  /// @throws IoError if the file cannot be opened.
  static Domain from_csv(const std::string& path);
  /// N index points 0..N−1, for use with a precomputed N×N kernel.
  static Domain indices(int n);
  /// `count` points of a scrambled Sobol sequence in the box [lower, upper]: the first `count`
  /// points of a d-dimensional Sobol sequence (primitive polynomials mod 2 in increasing order,
  /// fixed initial direction numbers), scrambled by a random linear
  /// matrix scramble and digital shift (Matoušek) keyed by `seed`, then mapped to the box. Any
  /// prefix of 2^k points puts 2^(k−t) points in every elementary interval of volume 2^(t−k), as
  /// an unscrambled Sobol net does. O(count·d·32). Candidate order: the sequence order.
  /// @throws InvalidArgument if sizes differ, d > 1111, count < 1, count > 2^31 − 1, lower > upper
  /// or a bound is not finite.
  static Domain sobol(const std::vector<double>& lower, const std::vector<double>& upper, int count,
                      std::uint64_t seed = 0);
  /// The N fingerprints `fp` as candidates (candidate j = row j), dim() = fp.words(). O(N·W).
  static Domain fingerprints(const Fingerprints& fp);
  /// Fingerprints [begin, begin + fp.size()) of an N-candidate fingerprint domain, as a slice
  /// (e.g. the rows of one MPI rank). @throws InvalidArgument if not within [0, n_total).
  static Domain fingerprint_slice(const Fingerprints& fp, long long begin, long long n_total);
  /// Points from a .npy file: a 2-d array (N×d, one candidate per row; C or Fortran order) or a
  /// 1-d array (d = 1) of float64, float32 or integers (little-endian).
  /// @throws InvalidArgument naming the file for a bad header, dtype, shape, NaN or Inf;
  /// IoError if the file cannot be read.
  static Domain from_npy(const std::string& path);
  /// Points given as a d×N matrix (column j = candidate j), moved in without a copy.
  /// @throws InvalidArgument if empty or not finite.
  static Domain from_points(Eigen::MatrixXd points);
  /// The candidates [begin, end) of the grid `grid(lower, upper, counts)`, without building the
  /// others: the same coordinates bit for bit, O((end − begin)·d).
  /// @throws InvalidArgument as grid(), or if not 0 ≤ begin < end ≤ N.
  static Domain grid_slice(const std::vector<double>& lower, const std::vector<double>& upper,
                           const std::vector<int>& counts, long long begin, long long end);

  /// The feasible combinations of a parameter space as candidates: candidate k is
  /// space->encode(k) (d = space->encoded_dim()). The whole domain materialises its d×N encodings
  /// (8·d·N bytes: the FinitePosterior reads points()); a slice (space_slice) holds only its
  /// range, and points_of() computes any range from the space (ParameterSpace::encode_range), as a
  /// grid does, so slices and block-wise evaluation never need the whole d×N.
  /// @throws InvalidArgument if space is null, has more than 2^31 − 1 feasible combinations, or
  /// its 8·d·N bytes of encodings exceed the host memory available (checked before allocating).
  static Domain from_space(std::shared_ptr<const ParameterSpace> space);
  /// The candidates [begin, end) of from_space(space), computed without the others.
  /// @throws InvalidArgument as from_space() (the memory check on 8·d·(end − begin) bytes), or if
  /// not 0 ≤ begin < end ≤ N.
  static Domain space_slice(std::shared_ptr<const ParameterSpace> space, long long begin,
                            long long end);
  /// The feasible combinations of a parameter space as candidates that are never held: the same
  /// candidates, order, dim() and bounds as from_space(space), but the domain keeps no encodings
  /// (points() and point() throw; points_of() computes any range from the space). lower() and
  /// upper() are the bounding box of the feasible encodings, found by one blockwise pass over
  /// them at construction (O(N·d) time, O(d·65536) memory), so they equal from_space()'s bit for
  /// bit. A FinitePosterior over it computes each chunk's encodings when it needs them (CPU
  /// recompute mode; docs/spaces.md, "Streaming"). Memory: the space's index only.
  /// @throws InvalidArgument if space is null or has more than 2^31 − 1 feasible combinations.
  static Domain streamed_space(std::shared_ptr<const ParameterSpace> space);
  /// Whether the candidates are computed on demand and never held (streamed_space()).
  bool streams_points() const { return streams_; }
  /// The parameter space of a from_space() / space_slice() / streamed_space() domain (null
  /// otherwise).
  const ParameterSpace* space() const { return space_.get(); }
  /// The same, shared (a posterior over a streamed domain keeps the space alive through it).
  const std::shared_ptr<const ParameterSpace>& shared_space() const { return space_; }

  /// The candidates [begin, end) of this domain (which must hold them) as a slice of the same N.
  /// @throws InvalidArgument if [begin, end) is empty or not within [slice_begin(), slice_end()).
  Domain slice(long long begin, long long end) const;
  /// A slice of an N-candidate domain whose candidates [begin, begin + points.cols()) are
  /// `points` (d×n), e.g. the part of a data set scattered to one rank.
  /// @throws InvalidArgument if empty, not finite, or not within [0, n_total).
  static Domain from_slice(Eigen::MatrixXd points, long long begin, long long n_total);
  /// Coordinates of the candidates [begin, end) (d × (end − begin)): copies of held ones; a grid
  /// (or a slice of one) computes any range, bit for bit the whole grid's columns, so a function
  /// evaluated in blocks of the whole domain can be evaluated in the same blocks by a slice.
  /// @throws InvalidArgument if the range is empty or out of [0, N), or, for a domain that is
  /// not a grid or a parameter space, not held.
  Eigen::MatrixXd points_of(long long begin, long long end) const;
  /// Whether this is a grid (grid() or grid_slice()), whose every candidate points_of() computes.
  bool is_grid() const { return !counts_.empty(); }
  /// Whether points_of() computes every candidate (a grid or a parameter space), not only the
  /// held ones.
  bool computes_points() const { return is_grid() || space_ != nullptr; }
  /// Whether the candidates are packed fingerprints (points() holds words, not coordinates).
  bool is_fingerprint() const { return fp_bits_ > 0; }
  /// Positions per fingerprint (0 unless is_fingerprint()).
  int fingerprint_bits() const { return fp_bits_; }
  /// Bits or Counts (meaningful only when is_fingerprint()).
  FingerprintKind fingerprint_kind() const { return fp_kind_; }
  /// The held candidates [begin, end) of a fingerprint domain as Fingerprints.
  /// @throws InvalidArgument if not a fingerprint domain or the range is not held.
  Fingerprints fingerprints_of(long long begin, long long end) const;

  /// Number of candidates N (of the whole domain, also for a slice).
  int size() const { return static_cast<int>(total_); }
  /// Dimension of a point.
  int dim() const { return static_cast<int>(points_.rows()); }
  /// d × (held candidates) points: column j = candidate slice_begin() + j.
  /// @throws InvalidArgument for a streamed domain (streams_points(); use points_of()).
  const Eigen::MatrixXd& points() const {
    if (streams_) refuse_streamed("points()");
    return points_;
  }
  /// Pointer to candidate j's d coordinates (a held candidate: slice_begin() ≤ j < slice_end()).
  /// @throws InvalidArgument for a streamed domain (streams_points(); use points_of()).
  const double* point(int j) const {
    if (streams_) refuse_streamed("point()");
    return points_.data() + static_cast<Eigen::Index>(j - begin_) * dim();
  }
  /// First candidate held (0 for a whole domain).
  int slice_begin() const { return static_cast<int>(begin_); }
  /// One past the last candidate held (N for a whole domain).
  int slice_end() const { return static_cast<int>(begin_ + held_); }
  /// Whether this is a proper slice (holds fewer than N candidates).
  bool is_slice() const { return held_ != total_; }
  /// Box bounds (for a grid; otherwise the bounding box of the points).
  const Eigen::VectorXd& lower() const { return lower_; }
  /// Upper corner of the box (see lower()).
  const Eigen::VectorXd& upper() const { return upper_; }

 private:
  Domain() = default;
  explicit Domain(Eigen::MatrixXd points);
  [[noreturn]] static void refuse_streamed(const char* what);
  Eigen::MatrixXd points_;  // d × held_ (d × 0 when streamed)
  long long held_ = 0;      // candidates of the slice [begin_, begin_ + held_)
  bool streams_ = false;    // streamed_space(): points computed on demand, never held
  Eigen::VectorXd lower_, upper_;
  long long begin_ = 0;      // first candidate held
  long long total_ = 0;      // N
  std::vector<int> counts_;  // axis counts of a grid (empty otherwise)
  int fp_bits_ = 0;          // fingerprint positions (0: points are coordinates)
  FingerprintKind fp_kind_ = FingerprintKind::Bits;
  std::shared_ptr<const ParameterSpace> space_;  // from_space / space_slice (null otherwise)
};

}  // namespace gpb
