/// @file objective.hpp
/// Objectives (the unknown f over the finite domain) and observation noise.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/io/csv.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"

namespace gpb {

/// Zero-mean observation noise (except where stated) added to f(x).
struct NoiseModel {
  /// Noise distribution.
  enum class Kind {
    None,      ///< no noise
    Gaussian,  ///< N(0, sd²)
    Uniform,   ///< U[−R, R]; `scale` = R
    StudentT,  ///< scale·t_ν; `nu` > 0 (heavy tails; variance finite only for ν > 2)
    Pareto,  ///< scale·(P − α/(α−1)), P ~ Pareto(α, 1), α > 1: centred, one-sided heavy tail
    Laplace,  ///< Laplace(0, scale)
  };
  /// Which distribution.
  Kind kind = Kind::None;
  double scale = 0.0;  ///< sd (Gaussian), R (Uniform), scale (StudentT, Pareto, Laplace)
  double nu = 3.0;     ///< StudentT degrees of freedom
  double alpha = 3.0;  ///< Pareto shape

  /// @throws InvalidArgument naming the parameter (scale < 0, ν ≤ 0, α ≤ 1, ...).
  void validate() const;
  /// One draw; the number of Rng draws consumed depends only on the kind.
  double sample(Rng& rng) const;
  /// Human-readable description, e.g. "gaussian(sd=0.1)".
  std::string describe() const;
};
/// Parses a noise type name of the config. @throws InvalidArgument naming the bad value.
NoiseModel::Kind parse_noise_kind(const std::string& name);
/// The config name of a noise kind (inverse of parse_noise_kind).
const char* noise_kind_name(NoiseModel::Kind k);

/// An unknown function on a finite domain. Stateless: values() is a pure function of
/// (domain, seed, run), so any run can be replayed alone.
///
/// Thread safety: values() may be called from several threads at once (implementations that cache
/// do so behind a lock).
class Objective {
 public:
  /// Virtual destructor.
  virtual ~Objective() = default;
  /// Config name of the objective, e.g. "rkhs".
  virtual std::string name() const = 0;
  /// f at every candidate `domain` holds for run `run`: N values, or for a slice (one MPI rank's
  /// part of a grid) the values of candidates slice_begin()..slice_end() − 1, bit for bit those of
  /// the whole domain. Objectives that need every candidate (an exact gp_sample draw) throw
  /// InvalidArgument for a slice.
  virtual Eigen::VectorXd values(const Context& ctx, const Domain& domain, std::uint64_t seed,
                                 std::uint32_t run) const = 0;
  /// The reward the environment returns for candidate j with true value fj. The default adds
  /// `noise` drawn from `rng`; data-set objectives resample a row instead.
  virtual double reward(int j, double fj, const NoiseModel& noise, Rng& rng) const {
    (void)j;
    return fj + noise.sample(rng);
  }
  /// A domain the objective prescribes (data sets: their columns), if any.
  virtual std::optional<Domain> domain() const { return std::nullopt; }
  /// A kernel the objective prescribes (data sets: empirical covariance), if any.
  virtual std::optional<Kernel> kernel() const { return std::nullopt; }
  /// Instance constants (R, c₀, v₀) when the objective makes its own rewards (data sets,
  /// specs/ldp-bo.md §6.2: R = max|data − f|, c_emp = mean (data − f)², v_emp = mean data²);
  /// std::nullopt when the rewards are f + NoiseModel noise (see instance_constants()).
  virtual std::optional<InstanceConstants> reward_constants() const { return std::nullopt; }
  /// Noise variance σ_n² of the surrogate GP the objective prescribes (a fitted data set,
  /// specs/po-gp-ucb.md §2–3), used unless the config sets "noise_variance"; std::nullopt if none.
  virtual std::optional<double> surrogate_noise_variance() const { return std::nullopt; }
  /// A JSON object (text) describing how the instance was built, written to summary.json under
  /// "objective_info" (e.g. fitted hyperparameters); empty for none.
  virtual std::string info_json() const { return {}; }
};

/// R, c₀ of additive noise (v₀ left 0: B² + c₀ per run): uniform R and R²/3; Gaussian ∞ and
/// sd²; Student-t ∞ and scale²·ν/(ν−2) (∞ for ν ≤ 2); Laplace ∞ and 2·scale²; Pareto ∞ and its
/// variance; none: 0 and 0.
InstanceConstants noise_instance_constants(const NoiseModel& noise);

/// f = Σ_{i<m} a_i k(·, s_i), a_i ~ U[−1, 1], s_i drawn uniformly (with replacement) from the
/// domain's candidates; fresh per run unless `fixed` (then run 0's f for every run).
std::unique_ptr<Objective> make_rkhs_objective(const Kernel& kernel, int support, bool fixed);
/// A GP(0, k) sample path on the domain: exact (Cholesky of K + jitter, N ≤ 20000) or, for
/// stationary kernels with `features` > 0, random Fourier features; with `kronecker`, exact on a
/// grid domain through K = K_{d−1} ⊗ … ⊗ K_0 (SE kernel only; any N; specs/po-gp-ucb.md §7).
/// @throws InvalidArgument for features < 0, kronecker with features > 0 or a non-SE kernel;
/// values() throws if kronecker is asked on a domain that is not a grid.
std::unique_ptr<Objective> make_gp_sample_objective(const Kernel& kernel, int features, bool fixed,
                                                    bool kronecker = false);
/// f given as one value per candidate (candidate j has values[j]; a table column such as docking
/// scores, negated to minimise). @throws InvalidArgument if empty; values() throws if the domain's
/// size differs.
std::unique_ptr<Objective> make_lookup_objective(std::vector<double> values);
/// −Branin on 2-d points (maximum −0.397887 at three points of [−5,10]×[0,15]).
std::unique_ptr<Objective> make_branin_objective();
/// Hartmann-6 (maximised; maximum 3.32237 on [0,1]^6).
std::unique_ptr<Objective> make_hartmann6_objective();
/// A data set as a bandit: arms = columns of `data` (rows = samples); f = column means;
/// kernel = empirical covariance (or correlation when `correlation`) of the columns;
/// rewards = the value of a uniformly resampled row at the played arm.
/// @throws InvalidArgument if fewer than 2 rows, no column, non-finite, or a zero-variance column.
std::unique_ptr<Objective> make_dataset_objective(Eigen::MatrixXd data, bool correlation,
                                                  const std::string& label);
/// Same, with the kernel estimated from a separate sample `kernel_data` (same columns, e.g. the
/// light-sensor train.csv) while f and the rewards come from `data` (test.csv), spec §6.2.
/// @throws InvalidArgument as above (for either matrix) or if the column counts differ.
std::unique_ptr<Objective> make_dataset_objective(Eigen::MatrixXd data, Eigen::MatrixXd kernel_data,
                                                  bool correlation, const std::string& label);

}  // namespace gpb
