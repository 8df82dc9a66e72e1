/// @file po_data.hpp
/// Bandit instances of the PO-GP-UCB experiments (specs/po-gp-ucb.md §2, §3, §7): a table of
/// inputs X (n×d) and raw outputs y, the spec's preprocessing pipeline (log outputs, standardise,
/// maximum-likelihood fit, isotropic rescaling, centring, max-norm scaling), and an Objective
/// that prescribes the resulting domain, SE kernel and noise variance.
///
/// The loan and property generators are seeded LOOK-ALIKES of the paper's data sets (whose data are
/// not available): every constant is a project choice of the spec, not the paper's data. Real
/// data can be loaded with read_xy_csv.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <string>

#include "gpbandit/engine/hyperfit.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb {

/// Raw inputs and outputs of one data set, before preprocessing.
struct XyTable {
  Eigen::MatrixXd X;  ///< n×d, one row per candidate
  Eigen::VectorXd y;  ///< n raw outputs
  std::string label;  ///< e.g. "branin", "loan_like"
};

/// Branin-Hoo on the 31×31 grid x₁ ∈ [−5, 10], x₂ ∈ [0, 15] (step 0.5), y = branin(x) > 0 (raw,
/// to be minimised; the §2 pipeline takes −ln). Row i·31 + j is (−5 + 0.5i, 0.5j).
XyTable branin_grid_table();

/// LoanLike (spec §7; a seeded look-alike of the LendingClub loans, not real data): n rows of
/// (funded_amnt_inv, int_rate %, annual_inc) and y = exp(0.1·ℓ), a gross-return-like ratio, with
/// ℓ = g_RFF(x) + 0.5·z_rate + N(0, 0.1²). Maximised. O(n·2000·d).
/// @throws InvalidArgument if n < 2.
XyTable loan_like_table(int n, std::uint64_t seed);

/// PropertyLike (spec §7; a seeded look-alike of the URA Singapore transactions, not real data):
/// n (lon, lat) points from 10 rotated anisotropic Gaussian clusters in [103.6, 104.0] ×
/// [1.24, 1.46] and y = exp(ℓ) "price per m²", ℓ = 9.5 − 1.5·dist/0.2° + 0.3·g(x) + N(0, 0.05²),
/// g an exact SE-GP draw (l = 0.03°). Minimised. O(n³) (Cholesky). @throws InvalidArgument if n
/// < 2.
XyTable property_like_table(int n, std::uint64_t seed);

/// PropertyHedonic (a seeded look-alike of the URA Singapore transactions, not real data, built
/// so that the instance is as hard as the paper's property results imply): the PropertyLike
/// locations and ℓ = 9.6 − 0.6·dist/0.2° + 0.2·g(x) + 0.15·e, with g an exact SE-GP draw
/// (l = 0.04°, a district effect) and e ~ N(0, 1) per property (project, floor, age: the part
/// of the price no location model predicts); y = exp(ℓ), minimised. Its statistics (fitted
/// signal-to-noise, near-optimal count) are recorded by the objective's info_json. O(n³).
/// @throws InvalidArgument if n < 2.
XyTable property_hedonic_table(int n, std::uint64_t seed);

/// Reads a CSV with header `x1,…,xd,y` (any header names; the last column is y, raw).
/// @throws IoError if unreadable; InvalidArgument naming file:line for ragged rows, NaN or Inf,
/// fewer than 2 columns or 2 rows, or (when `positive_y`, i.e. a log will be taken) y ≤ 0.
XyTable read_xy_csv(const std::string& path, bool positive_y);

/// Options of the §2 pipeline.
struct PoPreprocessOptions {
  bool log_output = true;    ///< step 1: y ← ln y
  bool minimise = false;     ///< step 1: y ← −y (after the log)
  bool centre_first = true;  ///< steps 5–6 order (false: scale_then_centre, spec D3)
  double max_norm = 25.0;    ///< step 6: largest row norm
  HyperFitOptions fit;       ///< step 3 (fit.ard: ARD or one isotropic length-scale)
};

/// The pipeline's output: the preprocessed instance and how it was obtained.
struct PoPreprocessed {
  Eigen::MatrixXd X;             ///< n×d, isotropic, centred, max row norm = max_norm
  Eigen::VectorXd y;             ///< n standardised outputs (maximised)
  double lengthscale = 1.0;      ///< SE length-scale on X (= the scale factor c)
  double signal_variance = 1.0;  ///< σ_y² (standardised units)
  double noise_variance = 1e-2;  ///< σ_n² (standardised units)
  double y_mean = 0;             ///< mean of the (logged, signed) outputs before standardising
  double y_sd = 1;               ///< sd of the (logged, signed) outputs before standardising
  double scale = 1.0;            ///< c of step 6
  HyperFit fit;                  ///< the raw fit (length-scales in the raw input units)
};

/// Steps 1–6 of spec §2: y ← ±ln y; standardise y; ML fit on the raw X; X ← X·diag(1/l);
/// centre; c ← max_norm / max‖x_i‖, X ← cX, l ← c (or scale then centre). O(n·d + fit).
/// @throws InvalidArgument for non-positive y with log_output, a constant y, bad options or
/// shapes; NumericalError if the fit fails.
PoPreprocessed po_preprocess(const XyTable& table, const PoPreprocessOptions& options);

/// Rows whose standardised output lies within `width`·σ_y of the best (the number of
/// near-optimal points of an instance; σ_y² = the fitted signal variance). O(n).
int near_optimal_count(const PoPreprocessed& data, double width);

/// An Objective over a preprocessed table: prescribes the domain (the rows of X), the SE kernel
/// (lengthscale, σ_y²) and the surrogate noise variance σ_n²; f = y and a reward is the stored
/// value with no added noise (spec D9). info_json() records the fit and the scaling.
std::unique_ptr<Objective> make_po_table_objective(PoPreprocessed data, std::string label);

}  // namespace gpb
