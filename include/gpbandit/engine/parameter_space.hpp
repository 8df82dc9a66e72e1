/// @file parameter_space.hpp
/// Mixed discrete product spaces (numeric values, integers, categoricals, gridded continuous
/// parameters) with constraints, addressed by index and never materialised.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <vector>

namespace gpb {

/// One parameter of a ParameterSpace: a finite list of levels and how they are encoded.
///
/// Every parameter has size() levels 0..size()−1. Numeric parameters (NumericDiscrete, Integer,
/// Continuous) have a value per level (sorted ascending, distinct) and are encoded as one feature,
/// (value − min) / (max − min) (0 when min = max). Categorical parameters have a label per level
/// and are encoded either one-hot (size() features) or by a descriptor table (one numeric row per
/// label, each column standardised over the labels: (x − mean) / sd, population sd; a constant
/// column encodes as 0).
///
/// Continuous: the box [lower, upper] is represented in the candidate set by `count` evenly
/// spaced values (endpoints included; the centre when count = 1). They are a discrete stand-in
/// for the global step of an acquisition; an optimizer's refinement may later go beyond them.
struct Parameter {
  /// The kinds of parameters.
  enum class Type {
    NumericDiscrete,  ///< a list of numbers
    Integer,          ///< lower, lower + step, …, ≤ upper
    Categorical,      ///< labels, one-hot or descriptor encoded
    Continuous,       ///< a box, represented by `count` grid values
  };
  std::string name;                   ///< unique within a space
  Type type = Type::NumericDiscrete;  ///< which kind
  std::vector<double> values;         ///< numeric: the value of each level (ascending)
  std::vector<std::string> labels;    ///< categorical: the label of each level
  /// Categorical with descriptors: labels.size() × k table (row i describes label i), raw.
  Eigen::MatrixXd descriptors;
  double lower = 0;  ///< smallest value (Continuous: the box's lower end)
  double upper = 0;  ///< largest value (Continuous: the box's upper end)

  /// A parameter taking the given values (sorted; duplicates are an error).
  /// @throws InvalidArgument naming the parameter if empty, not finite or duplicated.
  static Parameter numerical_discrete(std::string name, std::vector<double> values);
  /// Integers lower, lower + step, …, up to upper. @throws InvalidArgument if lower > upper,
  /// step < 1 or more than 2^31 − 1 levels.
  static Parameter integer(std::string name, long long lower, long long upper, long long step = 1);
  /// Labels encoded one-hot. @throws InvalidArgument if empty or a label repeats.
  static Parameter categorical(std::string name, std::vector<std::string> labels);
  /// Labels encoded by the rows of `table` (labels.size() × k, k ≥ 1, finite).
  /// @throws InvalidArgument naming the parameter for a shape mismatch or a non-finite entry.
  static Parameter categorical(std::string name, std::vector<std::string> labels,
                               Eigen::MatrixXd table);
  /// The box [lower, upper] with `count` grid values as its levels (see the class comment).
  /// @throws InvalidArgument if not finite, lower > upper or count < 1.
  static Parameter continuous(std::string name, double lower, double upper, int count);

  /// Number of levels.
  int size() const;
  /// Whether the levels are numbers (everything but Categorical).
  bool numeric() const { return type != Type::Categorical; }
  /// Whether an optimizer's refinement may move it off its levels: a continuous parameter with
  /// two or more grid values (with one, the box is that single value).
  bool refinable() const { return type == Type::Continuous && size() >= 2; }
  /// Number of encoded features: 1 (numeric), size() (one-hot) or the descriptor columns.
  int encoded_dim() const;
  /// The level's value (numeric) or label (categorical), as text (numbers by number_text).
  std::string text(int level) const;
};

/// A parameter value as text: the shortest of %.15g–%.17g that reads back as exactly `v`.
std::string number_text(double v);

/// A constraint over the parameters of a space (by parameter index).
///
/// - Linear: Σ coef·value ≤ rhs (+ tol) over numeric parameters.
/// - Mixture: Σ value = total within tol over numeric parameters.
/// - Exclusion: a forbidden combination, a conjunction of (parameter, set of levels): a
///   combination is infeasible when, for every term, its level of that parameter is in the set.
/// - Distinct: no two of the given categorical parameters take the same label (slots that share
///   labels, compared by label text).
struct Constraint {
  /// The kinds of constraints.
  enum class Type { Linear, Mixture, Exclusion, Distinct };
  Type type = Type::Linear;              ///< which kind
  std::vector<int> params;               ///< the parameters it involves (indices into the space)
  std::vector<double> coefs;             ///< Linear: one coefficient per parameter
  double rhs = 0;                        ///< Linear: the bound; Mixture: the total
  double tol = 1e-9;                     ///< Linear, Mixture: tolerance
  std::vector<std::vector<int>> levels;  ///< Exclusion: the forbidden levels per term

  /// Σ coefs[i]·value(params[i]) ≤ rhs (+ tol).
  static Constraint linear(std::vector<int> params, std::vector<double> coefs, double rhs,
                           double tol = 1e-9);
  /// Σ value(params[i]) = total within tol.
  static Constraint mixture(std::vector<int> params, double total = 1.0, double tol = 1e-6);
  /// Forbidden: level(params[i]) ∈ levels[i] for every i.
  static Constraint exclusion(std::vector<int> params, std::vector<std::vector<int>> levels);
  /// No two of params share a label.
  static Constraint distinct(std::vector<int> params);
};

/// The Cartesian product of parameters, restricted by constraints, addressed by index.
///
/// Raw index: mixed radix over the parameters, parameter 0 fastest (as Domain::grid): raw index
/// r has level (r / (s_0·…·s_{p−1})) mod s_p of parameter p. Feasible index k ∈ [0, size()): the
/// k-th feasible raw index in increasing order. Without constraints both coincide.
///
/// Lazy feasible index: the parameters are split into an inner block (the fastest ones, whose
/// product B is at least √(raw size), at most everything) and the outer part. The constructor
/// visits each of the raw_size()/B outer blocks once: a block whose outer levels already violate
/// a constraint (or cannot satisfy it whatever the inner levels, by bounds of the linear and
/// mixture sums) is skipped whole; the others are scanned combination by combination. It keeps the
/// prefix sums of the feasible counts per block, so memory is O(raw_size()/B) = O(√raw) 64-bit
/// counts (index_bytes()), never an N×d array; the constructor costs O(raw size · constraints) at
/// worst (less with pruned blocks). raw_of(k) binary-searches the blocks and scans one block:
/// O(log blocks + B). Encodings are computed from the index (encode, encode_range).
///
/// Thread safety: immutable after construction; any number of threads may read it at once.
class ParameterSpace {
 public:
  /// @throws InvalidArgument naming the parameter or constraint for bad input (duplicate names,
  /// a constraint naming a parameter out of range, a linear or mixture constraint over a
  /// categorical, a distinct constraint over a numeric parameter, a raw product over 2^62), and
  /// naming the constraints when nothing is feasible.
  ParameterSpace(std::vector<Parameter> params, std::vector<Constraint> constraints = {});

  /// Number of feasible combinations.
  long long size() const { return feasible_; }
  /// Number of combinations of the unconstrained product.
  long long raw_size() const { return raw_; }
  /// The parameters.
  const std::vector<Parameter>& parameters() const { return params_; }
  /// The constraints.
  const std::vector<Constraint>& constraints() const { return constraints_; }
  /// Index of the parameter named `name`. @throws InvalidArgument if none.
  int parameter_index(const std::string& name) const;
  /// Dimension d of an encoded combination (Σ encoded_dim()).
  int encoded_dim() const { return dim_; }
  /// Bytes held by the feasible index (the block prefix sums).
  std::size_t index_bytes() const { return prefix_.capacity() * sizeof(long long); }
  /// Number of parameters in the inner block (the fastest ones).
  int inner_params() const { return inner_; }

  /// Raw index of feasible combination k. @throws InvalidArgument unless 0 ≤ k < size().
  long long raw_of(long long k) const;
  /// Feasible index of raw index r, or −1 if r is infeasible. @throws InvalidArgument if out of
  /// [0, raw_size()).
  long long feasible_of(long long raw) const;
  /// Levels (one per parameter) of raw index r.
  std::vector<int> levels_of_raw(long long raw) const;
  /// Raw index of the levels. @throws InvalidArgument for a wrong count or a level out of range.
  long long raw_of_levels(const std::vector<int>& levels) const;
  /// Levels of feasible combination k.
  std::vector<int> combination(long long k) const { return levels_of_raw(raw_of(k)); }
  /// Whether the levels satisfy every constraint.
  bool feasible(const int* levels) const;
  /// Whether every constraint holds with the linear and mixture sums taken over `values` (one
  /// per parameter; a numeric parameter's value, which need not be on its list — a continuous
  /// parameter refined off its grid — and ignored for categoricals) and the exclusion and
  /// distinct rules over `levels`.
  bool feasible_values(const int* levels, const double* values) const;
  /// Encoded features (encoded_dim()) of feasible combination k.
  Eigen::VectorXd encode(long long k) const;
  /// Encoded features of the levels into out[0 .. encoded_dim()).
  void encode_levels(const int* levels, double* out) const;
  /// d × (end − begin) encodings of the feasible combinations [begin, end), in order; computed
  /// by one walk over the raw indices from raw_of(begin). @throws InvalidArgument for a bad range.
  Eigen::MatrixXd encode_range(long long begin, long long end) const;
  /// The levels whose encoding is nearest to x (per parameter: nearest value, largest one-hot
  /// entry, nearest descriptor row), which need not be feasible.
  std::vector<int> decode(const double* x) const;

 private:
  bool holds(int c, const int* levels, const double* values = nullptr) const;
  bool block_may_hold(const int* levels) const;  // outer levels set, inner ones free
  long long count_block(long long block, std::vector<int>& lv) const;
  std::string describe(int c) const;
  void build_encoders();
  void build_index();

  std::vector<Parameter> params_;
  std::vector<Constraint> constraints_;
  std::vector<long long> radix_;  // radix_[p] = s_0·…·s_{p−1}
  long long raw_ = 1, feasible_ = 0, block_ = 1;
  int inner_ = 0, dim_ = 0;
  std::vector<long long> prefix_;     // feasible count of blocks [0, b), b = 0..blocks
  std::vector<Eigen::MatrixXd> enc_;  // per parameter: encoded_dim × size table of features
  std::vector<double> lo_, hi_;       // per constraint: min / max of its sum over inner params
  std::vector<char> outer_only_;      // per constraint: involves no inner parameter
  std::vector<int> inner_cons_;       // the constraints that involve an inner parameter
  std::vector<std::vector<std::vector<int>>> ids_;  // Distinct: label ids per param and level
};

}  // namespace gpb
