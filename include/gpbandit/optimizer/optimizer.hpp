/// @file optimizer.hpp
/// Ask/tell Bayesian optimisation of a user's own function over a finite candidate set: the
/// engine's policies (GP-UCB, Thompson sampling, expected improvement; batches by hallucination)
/// behind one stateful object that suggests points, takes back any evaluated points, predicts
/// anywhere, fits its hyperparameters and saves its whole state.
///
/// Quick start:
/// @code
///   gpb::OptimizerOptions o;
///   o.domain = gpb::DomainSpec::sobol({0, 0}, {1, 1}, 4096);
///   o.kernel = gpb::Kernel::ard(gpb::KernelType::Matern52, Eigen::Vector2d(0.2, 0.2));
///   gpb::Optimizer opt(o);
///   for (int i = 0; i < 50; ++i) {
///     const gpb::AskResult a = opt.ask();             // one candidate (q = 1)
///     opt.tell(a.indices, {f(a.points.row(0))});      // its reward (maximised by default)
///   }
///   opt.save("state.json");                           // resume later with Optimizer::load
/// @endcode
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/hyperfit.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/policy/policy.hpp"

namespace gpb {

/// How an Optimizer's candidate set is given. Saved with the state, so that loading rebuilds the
/// very same candidates (grids and Sobol sets from their parameters, point sets verbatim).
///
/// Grid, Sobol and Points are finite domains: every suggestion is one of their candidates. Box is
/// a continuous box [lower, upper]: its `count` Sobol points are only the global step of the
/// acquisition, and the optimizer refines beyond them (RefineOptions), so suggestions may be any
/// point of the box. A box may declare integer axes (values lower..upper, suggestions rounded)
/// and one-hot groups (a categorical parameter with k values as k axes in [0, 1], exactly one of
/// them 1 in every suggestion): the parameter description that Python's gpbandit.space maps
/// scikit-optimize's Real / Integer / Categorical dimensions onto.
struct DomainSpec {
  /// The kinds of candidate sets.
  enum class Kind {
    Grid,    ///< Cartesian grid (Domain::grid)
    Sobol,   ///< `count` points of a scrambled Sobol sequence in a box (Domain::sobol)
    Points,  ///< explicit points: a matrix, or a .csv / .npy file read once
    Box,     ///< a continuous box: `count` Sobol candidates, refined beyond them
    /// the feasible combinations of a ParameterSpace, encoded (Domain::from_space)
    Parameters,
    /// molecular (or any binary / count) fingerprints, packed (Domain::fingerprints): the
    /// tanimoto (bits) or minmax (counts) kernel, candidates told by index or by their words
    Fingerprints,
  };
  /// Which kind.
  Kind kind = Kind::Grid;
  ///@{
  /// Box corners (Grid, Sobol), one value per dimension.
  std::vector<double> lower, upper;
  ///@}
  std::vector<int> counts;  ///< Grid: points per axis
  int count = 0;            ///< Sobol: number of candidates N
  std::uint64_t seed = 0;   ///< Sobol, Box: scrambling seed
  /// Box: axes whose values are integers in [lower, upper] (suggestions are rounded there).
  std::vector<int> integer_axes;
  /// Box: log-integer axes, each holding ln(v) for an integer v in [round(e^lower), round(e^upper)]
  /// (a log-uniform integer parameter: the model sees orders of magnitude; suggestions are
  /// projected onto ln of the nearest integer, so v = round(e^x) is exact).
  std::vector<int> log_integer_axes;
  /// Box: one-hot groups {first axis, k}: axes first..first+k−1 lie in [0, 1] and every suggestion
  /// has exactly one of them 1 (the largest wins when a point is projected).
  std::vector<std::pair<int, int>> onehot_groups;
  Eigen::MatrixXd points;  ///< Points: N×d, one candidate per row
  std::string source;      ///< Points: the file they came from ("" for a matrix); informational
  /// Parameters: the space (shared, immutable); points are its encodings, reported by labels.
  std::shared_ptr<const ParameterSpace> space;
  /// Fingerprints: the candidates (shared, immutable).
  std::shared_ptr<const Fingerprints> fingerprints;

  /// A grid over [lower, upper] with counts[i] points on axis i (see Domain::grid).
  static DomainSpec grid(std::vector<double> lower, std::vector<double> upper,
                         std::vector<int> counts);
  /// `count` points of a scrambled Sobol sequence in the box [lower, upper] (see Domain::sobol).
  static DomainSpec sobol(std::vector<double> lower, std::vector<double> upper, int count,
                          std::uint64_t seed = 0);
  /// The continuous box [lower, upper], with `count` scrambled Sobol points as the candidates of
  /// the global step (the optimizer refines beyond them; see RefineOptions).
  static DomainSpec box(std::vector<double> lower, std::vector<double> upper, int count = 4096,
                        std::uint64_t seed = 0);
  /// The feasible combinations of `space` (encoded; see Domain::from_space).
  /// @throws InvalidArgument if space is null.
  static DomainSpec parameters(std::shared_ptr<const ParameterSpace> space);
  /// The N packed fingerprints `fp` as candidates (see Domain::fingerprints); the Optimizer takes
  /// the tanimoto kernel for bits and minmax for counts, fits their output scale and noise by
  /// marginal likelihood, and never refines (the candidates are the whole domain).
  /// @throws InvalidArgument if fp is null or empty.
  static DomainSpec from_fingerprints(std::shared_ptr<const Fingerprints> fp);
  /// Explicit candidates, one per row of the N×d matrix `rows`.
  static DomainSpec from_rows(Eigen::MatrixXd rows);
  /// Candidates read from a .csv (optional header) or .npy file (2-d float64/float32/integer
  /// array, or 1-d for d = 1). @throws InvalidArgument naming file:line or the bad header;
  /// IoError if unreadable.
  static DomainSpec from_file(const std::string& path);
  /// The candidate set (Box: the Sobol points projected onto the integer axes and one-hot groups,
  /// duplicates removed). @throws InvalidArgument for bad parameters (naming the field).
  Domain build() const;
  /// Dimension d of the candidates.
  int dim() const;
  /// Whether suggestions may leave the candidate set: a box, or a parameter space with a
  /// continuous parameter of two or more grid values (refinable_axes() not empty).
  bool continuous() const { return !refinable_axes().empty(); }
  /// The axes a refinement moves: every axis of a box; on a parameter space the features of its
  /// continuous parameters with two or more grid values (the others stay at the levels of the
  /// point refined); none otherwise.
  std::vector<int> refinable_axes() const;
  /// Box: moves the d coordinates of x onto the box (clamped), its integer axes (rounded) and its
  /// one-hot groups (the largest coordinate of a group becomes 1, the others 0; ties: the first).
  /// Parameters: clamps the features of the continuous parameters onto their boxes ([0, 1] in
  /// the encoding) and moves them onto the space's mixture constraints (project_onto_mixtures).
  /// Other kinds: nothing.
  void project(double* x) const;
  /// Checks the box, axes and groups. @throws InvalidArgument naming the field.
  void validate() const;
};

/// The acquisition rule of an Optimizer.
enum class AcquisitionKind {
  Ucb,       ///< GP-UCB: argmax μ + √β_t σ (BetaSchedule: Srinivas, IGP-UCB or constant)
  Thompson,  ///< Thompson sampling: argmax of one posterior sample over the candidates
  /// argmax E[max(f − f⁺ − ξ, 0)], f⁺ = best posterior mean observed; evaluated as log EI
  /// (LogEI, Ament et al. 2023: no underflow far from the incumbent, usable gradients)
  ExpectedImprovement,
  Random,                    ///< uniform over the candidates (a baseline)
  ProbabilityOfImprovement,  ///< argmax P(f > f⁺ + ξ), evaluated as log Φ
};
/// "ucb" (also "lcb", scikit-optimize's name when minimising) | "ts" | "ei" (also "logei") |
/// "pi" | "random", in any letter case. @throws InvalidArgument naming the bad value.
AcquisitionKind parse_acquisition_kind(const std::string& name);
/// The config name of an acquisition kind (inverse of parse_acquisition_kind).
const char* acquisition_kind_name(AcquisitionKind kind);

/// Settings of the acquisition rule.
///
/// Batches (ask(q) with q > 1) are chosen greedily: after each choice the point is added to the
/// posterior as a pending (hallucinated) observation, which shrinks σ² there and leaves μ alone
/// (GP-BUCB, Desautels et al. 2014); UCB, EI and TS then choose the next point on that posterior.
///
/// Thompson sampling draws f ~ GP posterior at the candidates (and at points told off the
/// candidate set) by pathwise conditioning: f = μ + f₀ − K(D, X_t) (K_t + λI)⁻¹ (f₀(X_t) + ε),
/// with f₀ a prior draw and ε ~ N(0, λI). When the posterior's point set has at most
/// `exact_max` points, f₀ is exact (a Cholesky factor of K(D, D), N² doubles, factored once per
/// hyperparameter setting in O(N³): 4096 points take 128 MiB); beyond that f₀ uses `features`
/// random Fourier features (stationary kernels, and products and sums of them), the conditioning
/// step staying exact. While hyperparameters are refitted automatically (FitOptions::every > 0,
/// the default) every refit would rebuild that factor, so exact draws are then limited to 512
/// points and larger sets use the random features (a 4096-point exact factor after every tell
/// cost 150 s over 60 calls against about 1 s for EI); set `fit.every = 0` to keep exact draws up
/// to exact_max.
struct AcquisitionOptions {
  /// The rule.
  AcquisitionKind kind = AcquisitionKind::Ucb;
  /// UCB: the width schedule √β_t (t = rows of the posterior + 1, |D| = candidates).
  BetaSchedule beta;
  /// EI: the improvement threshold ξ ≥ 0 over the incumbent, in the units of y.
  double xi = 0.0;
  /// TS: the largest posterior point set sampled exactly (≥ 1).
  int exact_max = 4096;
  /// TS: random Fourier features beyond exact_max (≥ 1).
  int features = 1024;
};

/// Continuous refinement on a box (DomainSpec::Kind::Box; ignored on finite domains, which are
/// never left). Each ask keeps the exhaustive acquisition over the Sobol candidates as its global
/// step, then:
///  1. local candidates: `local_points` in a trust region around the incumbent (the observation
///     with the best posterior mean) — a box of side `length`·w_i in unit coordinates, w_i the
///     fitted lengthscales over their geometric mean, perturbing each axis with probability
///     min(1, 20/d) as TuRBO does — plus `local_points`/4 Gaussian perturbations of the
///     incumbent (sd 10⁻² and 10⁻³·w_i) and of each of the `centres` best candidates (sd a quarter
///     of the Sobol spacing N^{−1/d});
///  2. the `starts` best points of the candidates and local candidates are polished by L-BFGS-B
///     on the acquisition in the box (at most `iterations` each), with ∇μ, ∇σ² from the kernel's
///     derivatives (SE, Matérn 3/2, 5/2; other kernels skip this step);
///  3. the best point found is projected (integer axes, one-hot groups) and asked instead of the
///     best candidate when its acquisition is higher; the candidate set grows by it
///     (FinitePosterior::add_candidates, one triangular solve), so the posterior stays exact.
/// The trust region doubles after 3 improvements in a row and halves after max(4, d) tells
/// without one (TuRBO's rule; improvement: better than the best by 10⁻³ of its magnitude); below
/// 2⁻⁷ it starts again from 0.8. UCB, EI and PI refine; TS and random stay on the candidates.
/// Cost per ask: O(M·(t² + t·d)) for the M local candidates and O(starts·iterations·(t² + t·d)).
struct RefineOptions {
  /// Refine on a box (false: suggestions stay on the Sobol candidates).
  bool enabled = true;
  /// Local candidates in the trust region per ask (≥ 0).
  int local_points = 1024;
  /// Best candidates of the global step whose neighbourhoods get local candidates (≥ 0).
  int centres = 3;
  /// Points polished by L-BFGS-B per ask (≥ 0; 0: no gradient step).
  int starts = 5;
  /// L-BFGS-B iterations per polished point (≥ 1).
  int iterations = 60;
  /// Coordinate candidates per ask (≥ 0): the incumbent with one to three axes moved anywhere
  /// in the box (a coordinate-wise search, which reaches other basins of separable functions).
  int coordinate_points = 0;
  /// Pull from the faces (≥ 0; 0: off): each coordinate of the chosen point within 1 % of the
  /// box's width of a face is moved back towards the incumbent's (the whole way, or 1/2, 1/4, 1/8
  /// of it, the first that qualifies) while the acquisition stays within `face_tolerance` of the
  /// chosen point's (in its units: log EI, log PI, or UCB's μ + √β·σ in standardised y). The
  /// posterior's variance grows towards the boundary, so the acquisition's maximum on a box
  /// drifts to its faces where the gain is tiny (bench/peers/st8_faces.py measures it).
  double face_tolerance = 0.0;
};

/// Fitting of the kernel hyperparameters (fit_hyperparameters()): by default after every tell
/// from `min_observations` on, maximum a posteriori in unit coordinates with standardised y.
/// A refit costs O(starts·iterations·t³) on the t ≤ max_rows observations; warm starts keep the
/// iterations few (measured in bench/RESULTS.md, "Own-function optimisation").
struct FitOptions {
  /// Refit automatically after every `every` new observations (0: only when asked).
  int every = 1;
  /// Automatic refits start once this many observations exist (≥ 2).
  int min_observations = 5;
  /// One lengthscale per axis (ARD) or one for all.
  bool ard = true;
  /// Random L-BFGS-B starts besides the default one.
  int restarts = 5;
  /// Observations used by a fit (a seeded subsample beyond that).
  int max_rows = 2000;
  /// Standardise y (mean 0, variance 1 over the observations) at each fit, and, when automatic
  /// refits are on (every > 0), after every tell before the first fit; the model then works in
  /// those units, and predictions are mapped back. With every = 0 the kernel and noise stay in
  /// the units of y until fit_hyperparameters() is called.
  bool normalize = true;
  /// Warp y before standardising it: the distance below the best observation is kept up to its
  /// `warp_knee` quantile and Box-Cox compressed beyond, the exponent chosen by maximum
  /// likelihood in [0, 1] at every fit (1, the identity, where the bad tail is not heavy). It
  /// compresses the bad tail of heavy-tailed objectives (Rosenbrock: 1 .. 1e6); predictions are
  /// mapped back through its inverse (the variance to first order). Off here; `minimize` (Python)
  /// turns it on.
  bool warp = false;
  /// With `warp`: the quantile of the distances below the best observation up to which y is kept
  /// as it is, in (0, 1). 0.6, chosen by measurement (bench/RESULTS.md, eighth round of the
  /// ablation): lower than 0.75 (the knee of the seventh round) on Levy-10 and Styblinski-Tang-8,
  /// paired over the same seeds, and not higher on the other seven functions; the median (0.5,
  /// the knee before) cost Branin its last digits, 0.9 lost the gain on Rosenbrock.
  double warp_knee = 0.6;
  /// With `warp`: at every fit both models are fitted, on the warped and on the plain
  /// standardised y, and the warp is kept only where its marginal likelihood with the warp's
  /// Jacobian (so both are densities of the same observed y) is the higher; otherwise the fit is
  /// the plain one. Smooth objectives whose plain GP fits well (Branin) keep their digits; heavy
  /// bad tails (Rosenbrock) keep the warp. Costs a second fit when the warp is not the identity.
  bool warp_select = false;
  /// Fit in unit coordinates: each axis scaled by the extent of the domain (the box of a Grid,
  /// Sobol or Box domain; the candidates' bounding box for point sets), so that the lengthscale
  /// prior means the same on every problem. False: the fitter standardises each input column by
  /// its standard deviation over the observations.
  bool unit_inputs = true;
  /// Maximum a posteriori fit: a log-normal prior on every lengthscale (in unit coordinates) with
  /// location ln(d)/2 and scale 1.1 (the lengthscale_prior_* fields below), and a log-normal prior
  /// on the noise variance (location −12, scale 1, in the units of standardised y:
  /// near-interpolation unless the data say otherwise; BoTorch's −4 leaves noise-free functions at
  /// regret ~1e-3, bench/RESULTS.md). The signal variance is bounded by 10 in every fit. False:
  /// maximum likelihood.
  bool prior = true;
  /// The log-normal lengthscale prior of the MAP fit (in unit coordinates, when `prior`):
  /// location `lengthscale_prior_loc` + `lengthscale_prior_log_d`·ln(d) and scale
  /// `lengthscale_prior_scale` on ln ℓ. Defaults ln(d)/2 and 1.1, chosen by measurement
  /// (bench/RESULTS.md, issue #30): BoTorch's √2 + ln(d)/2 and √3 (Hvarfner et al. 2024; the
  /// default before) let two of Hartmann-6's axes look irrelevant (ℓ ≈ 6–7 unit boxes) and left
  /// 6 of 10 seeds in its local basin; Optuna's (≈ location 0 and scale 1.1 on every d) found
  /// Hartmann-6's basin more often but lost Levy-10 on 10 of 10 seeds.
  double lengthscale_prior_loc = 0.0;
  /// The coefficient of ln(d) in the lengthscale prior's location.
  double lengthscale_prior_log_d = 0.5;
  /// The scale of the lengthscale prior (> 0).
  double lengthscale_prior_scale = 1.1;
  /// With `prior`: at every fit the model is fitted (MAP) under two lengthscale priors, the one
  /// above and the same without its ln(d) term (location `lengthscale_prior_loc` on every d), and
  /// the fit whose MAP has the larger log marginal likelihood log p(y | θ̂) is kept: the data
  /// choose the prior's location at each fit. The priors' densities are left out of the
  /// comparison: with them (the joint MAP over θ and the location), or with the Laplace
  /// approximation of the evidence, location 0 won almost every fit and lost Levy-4 and Levy-10
  /// (bench/RESULTS.md, issue #30). Both fits start from the current hyperparameters
  /// (warm_start). Costs a second fit; nothing changes where the two locations coincide
  /// (lengthscale_prior_log_d = 0 or d = 1). Opt-in: lower on noisy Hartmann-6 and
  /// Styblinski-Tang-8, but Branin's acceptance check (9 of seeds 0..9 below 1e-3 in 40 calls)
  /// fails with it (8 of 10).
  bool lengthscale_prior_select = false;
  /// At every fit the kernel is fitted in two structures, the product kernel over all inputs
  /// (ARD) and the additive kernel Σ_j v_j·k(x_j, x'_j) with one 1-d part of the same type per
  /// input (Duvenaud et al. 2011's first order; Kandasamy et al. 2015's Add-GP-UCB), and the
  /// one whose MAP explains y better is kept: the higher log marginal likelihood, the additive
  /// one's penalised by ½·ln(n) for each of its d − 1 extra variances (BIC). Separable
  /// objectives (Styblinski-Tang) are learnt from far fewer points by the additive kernel; the
  /// others keep the product. Applies to a stationary kernel (or the additive kernel this chose)
  /// in d ≥ 2; costs a second fit.
  bool kernel_select = false;
  /// Lower bound on the fitted noise variance, in the units of standardised y (> 0).
  double noise_floor = 1e-8;
  /// The GP's prior mean this many standard deviations of y worse than the observations' mean
  /// (≥ 0; 0: at the mean). Far from the observations (the box's faces and corners, where the
  /// posterior variance grows) the model then expects bad values, not average ones, so EI goes
  /// there less. The hyperparameters are fitted on y standardised as before.
  double mean_shift = 0.0;
  /// Also start the fit from the current hyperparameters (a refit after one more observation then
  /// converges in a few iterations).
  bool warm_start = true;
  /// With warm starts, the `restarts` random starts run only at every `restarts_every`-th fit (the
  /// others start from the current hyperparameters and the default point alone; ≥ 1).
  int restarts_every = 5;
};

/// Everything that defines an Optimizer (all of it is saved with the state).
struct OptimizerOptions {
  /// The candidate set.
  DomainSpec domain;
  /// The kernel (SE/Matérn, isotropic or ARD; linear, polynomial or precomputed also work, but
  /// cannot be fitted). Replaced by fitted values when hyperparameters are fitted.
  Kernel kernel = Kernel::matern(KernelType::Matern52, 1.0);
  /// Gaussian noise variance λ > 0 of the surrogate model (in the model's units of y).
  double noise_variance = 1e-2;
  /// The acquisition rule.
  AcquisitionOptions acquisition;
  /// Minimise y instead of maximising it.
  bool minimize = false;
  /// The first `initial_points` candidates asked for are an initial design: drawn uniformly at
  /// random from the candidates, or (`sobol_design`, Sobol and Box domains) the first candidates
  /// of the scrambled Sobol sequence in order, a space-filling design.
  int initial_points = 0;
  /// Take the initial design from the Sobol sequence's prefix (Sobol and Box domains only).
  bool sobol_design = true;
  /// Continuous refinement on a Box domain.
  RefineOptions refine;
  /// ask() never returns a candidate that was asked for and not yet told (also within a batch).
  bool distinct = true;
  /// ask() never returns a candidate that was already told (observed, or failed): every
  /// suggestion is a new experiment (BayBE's allow_recommending_already_measured = False). For
  /// finite domains, where a noise-free measurement is not worth repeating; on a Box the Sobol
  /// candidates are excluded, refined points off them are not checked. false: an observed
  /// candidate may be asked again (a noisy model may want a replicate).
  bool exclude_observed = false;
  /// Break exact argmax ties uniformly at random (else the lowest index).
  bool random_ties = true;
  /// Master seed: tie-breaks, Thompson draws, random picks, fits (counter-based Philox streams).
  std::uint64_t seed = 0;
  /// Hyperparameter fitting.
  FitOptions fit;
  /// Backend, CPU threads and memory budget of the engine (only `backend` is saved).
  ContextOptions context;
  /// Posterior rows reserved up front (the posterior grows past it as needed).
  int capacity = 256;
  /// tell() of points accepts points outside the candidates' bounding box (they are modelled as
  /// observations off the candidate set). false: such a point is refused with InvalidArgument
  /// naming it; a point far outside the box is almost always a unit or column mistake, and it
  /// would distort the fitted lengthscales.
  bool allow_outside = false;
  /// A told point that is not exactly a candidate but lies within this relative tolerance of an
  /// outstanding ask's candidate (|x_j − c_j| ≤ tol · max(w_j, |c_j|) on every axis j, w_j the
  /// candidates' extent on axis j) answers that ask: it is recorded at the candidate. 1e-5 covers
  /// points printed with 6 significant digits (`%.6g`) or 6 decimals (`%.6f`) in a box of width
  /// ≥ 0.05. 0 matches exact candidates only. The same tolerance widens the bounding box.
  double match_tolerance = 1e-5;
};

/// Points chosen by ask().
struct AskResult {
  Eigen::MatrixXd points;  ///< q×d, one chosen point per row
  /// q candidate indices into the domain; −1 for a point off the candidate set (refinement on a
  /// Box domain): tell such a point by its coordinates.
  std::vector<int> indices;
};

/// Posterior predictions at m points, in the units of y.
struct Prediction {
  Eigen::VectorXd mean;      ///< m posterior means
  Eigen::VectorXd variance;  ///< m posterior variances of f (noise excluded), ≥ 0
};

/// The best observation so far (by y: largest, or smallest when minimising).
struct BestObservation {
  Eigen::VectorXd point;  ///< its point (d)
  double value = 0;       ///< its y, as told
  int index = -1;         ///< its candidate index, −1 for a point off the candidate set
  int observation = -1;   ///< its position among the observations (tell order)
};

/// Ask/tell Bayesian optimisation over a finite candidate set, with one FinitePosterior inside.
///
/// - ask(q) returns q candidates; tell() takes any evaluated points back — asked or not, on the
///   candidate set or off it, in any order and batch size. Asked points not yet told are
///   hallucinated (GP-BUCB) while later points are chosen.
/// - Rewards are maximised (OptimizerOptions::minimize flips the sign internally).
/// - predict() gives the posterior mean and variance anywhere; fit_hyperparameters() fits the
///   kernel (ARD lengthscales, signal and noise variance) by marginal likelihood.
/// - dumps()/loads() and save()/load() keep the whole state as JSON (or .npz); loading replays the
///   posterior operations in their original order, so the loaded posterior, and every later
///   choice, is bit-identical to the uninterrupted run's (on the same backend).
///
/// Costs (N candidates, t observations): a tell of asked or candidate points is incremental, O(N·t)
/// per point. A tell of a point off the candidate set, a tell that answers only part of a pending
/// batch while another ask follows, and every change of hyperparameters rebuild the posterior by
/// replay, O(N·t²). UCB, EI: O(N) per choice on top; TS: O(N·t·d) plus the prior draw (O(N²)
/// exact, O(N·M·d) with M features).
///
/// Thread safety: one Optimizer may be shared between threads. Every member function locks the
/// object's own mutex for its whole duration, so calls from different threads are serialised
/// (never interleaved) and each sees the state the previous one left. The references returned by
/// options(), domain() and context() stay valid for the object's life; the kernel and
/// noise_variance inside options() change when hyperparameters are fitted, so while other threads
/// may call ask/tell/fit, read them through kernel() and noise_variance(), which copy under the
/// lock. A warning (gpb::warn) is emitted by the call that raised it, on its thread, after its
/// work is done; never by another thread's concurrent call. Moving, assigning or destroying an
/// Optimizer while another thread uses it is a data race (as for any object). Different Optimizers
/// share nothing but the process's OpenMP and Eigen thread settings. (tests/test_thread_stress.cpp:
/// 8 threads × 1000 mixed calls under ThreadSanitizer, `make check-tsan`.)
class Optimizer {
 public:
  /// Builds the candidate set, the Context and an empty posterior.
  /// @throws InvalidArgument naming the bad option, or, for a parameter space whose
  /// space_bytes() exceed the host memory available now, "domain.parameters: ..." naming the
  /// feasible count, the bytes and what to do (checked before anything is allocated);
  /// NoCudaBuildError / CudaError for a CUDA request that cannot be served.
  explicit Optimizer(OptimizerOptions options);
  /// Bytes an Optimizer over `space` holds at least, whatever its memory budget: the d×N
  /// encodings twice (the domain and the posterior's copy, 16·d·N) and 33·N of per-candidate
  /// state (the kernel diagonal, μ, σ², the acquisition's scores, the exclusion mask); V comes
  /// on top unless the posterior runs in recompute mode. O(1).
  static double space_bytes(const ParameterSpace& space);
  /// Per-candidate bytes of an Optimizer over a streamed space: the kernel diagonal, μ and σ²
  /// (8 each), the acquisition's scores (8) and the exclusion mask (1).
  static constexpr double kStreamedBytesPerCandidate = 33.0;
  /// Bytes an Optimizer over `space` holds when it streams the space (its encodings computed
  /// chunk by chunk, never held): kStreamedBytesPerCandidate·N plus the space's index
  /// (ParameterSpace::index_bytes) — the posterior runs in recompute mode, so no V. The Optimizer
  /// streams a parameter space whenever space_bytes() exceeds the Context's memory budget
  /// (ContextOptions::memory_budget_bytes; the default is 75 % of the memory available), and is
  /// then refused only when this exceeds the memory available. O(1).
  static double streamed_space_bytes(const ParameterSpace& space);
  /// Whether the candidates are a streamed parameter space (Domain::streamed_space): their
  /// encodings are computed when needed, domain().points() throws; Thompson sampling is refused
  /// and save() as .npz writes no candidates.npy. Points told off the space become extra
  /// observations, as on a materialised space (the posterior holds their encodings after the
  /// space's combinations).
  bool streams() const;
  /// Releases the posterior and the Context.
  ~Optimizer();
  /// Moves the whole state; the moved-from object may only be destroyed or assigned.
  Optimizer(Optimizer&&) noexcept;
  /// Move assignment (see the move constructor).
  Optimizer& operator=(Optimizer&&) noexcept;

  /// Chooses q ≥ 1 candidates (q ≤ N, and with `distinct` q ≤ the candidates not outstanding).
  /// The chosen candidates become outstanding until told or forgotten. A chosen candidate that
  /// was observed before is reported through gpb::warn (WarningKind::Model): the acquisition
  /// prefers measuring it again, which adds nothing for a noise-free function.
  /// @throws InvalidArgument for a bad q or when every candidate is excluded.
  AskResult ask(int q = 1);

  /// Tells y[i] observed at candidate indices[i] (any candidates, asked or not).
  ///
  /// Known noise: noise[i] is the variance of y[i]'s measurement error when it is known (e.g.
  /// from replicates), in y's units; NaN where it is not (empty: none known). An observation
  /// with a known noise enters the model with that variance (mapped like y into the model's
  /// units and at least FitOptions::noise_floor) instead of the fitted λ, so the posterior is that
  /// of K_t + Λ; fits keep the known variances fixed and fit λ for the other observations only
  /// (HyperFitOptions::known_noise). An ask answered by an observation with a known noise is
  /// resolved by a rebuild of the posterior (its pending row was hallucinated with λ).
  /// @throws InvalidArgument for sizes that differ, an index outside [0, N), a non-finite y or a
  /// noise that is negative or infinite (naming the position); nothing is recorded then.
  void tell(const std::vector<int>& indices, const std::vector<double>& y,
            const std::vector<double>& noise = {});
  /// Tells y[i] observed at the point in row i of the m×d matrix `points`. A point equal (bit for
  /// bit) to a candidate counts as that candidate; a point within match_tolerance of an
  /// outstanding ask's candidate answers that ask and is recorded at the candidate (points that
  /// went through a text file with fewer digits); any other point is added to the model as an
  /// observation off the candidate set (it is never asked for).
  /// @throws InvalidArgument for a wrong dimension, non-finite values, sizes that differ, a point
  /// outside the candidates' bounding box (unless allow_outside), a point off the candidate
  /// set with a precomputed kernel, or a bad noise; nothing is recorded then. `noise`: the
  /// known noise variances, as for the indices' tell.
  void tell(const Eigen::Ref<const Eigen::MatrixXd>& points, const std::vector<double>& y,
            const std::vector<double>& noise = {});

  /// Marks evaluations that failed (the function crashed or returned no number): no value enters
  /// the model, an outstanding ask at the point is released, and the point is never suggested
  /// again (a candidate is excluded from every later ask; a point off the candidate set is kept
  /// so that a refinement never returns it). Rows of the m×d `points`, bit-equal to a candidate
  /// or not. @throws InvalidArgument for a wrong dimension or a non-finite coordinate.
  void tell_failed(const Eigen::Ref<const Eigen::MatrixXd>& points);
  /// The same for candidate indices. @throws InvalidArgument for an index outside [0, N).
  void tell_failed(const std::vector<int>& indices);
  /// The points marked failed, one per row, in the order they were told.
  Eigen::MatrixXd failed_points() const;
  /// Releases every outstanding ask without an observation (an evaluation that failed or was
  /// abandoned); later asks may choose those candidates again. Returns how many were released.
  int forget_all();
  /// Releases one outstanding ask of each listed candidate index (an index listed twice releases
  /// two asks of it). Returns how many were released (indices.size()).
  /// @throws InvalidArgument naming an index that has no outstanding ask; nothing is released then.
  int forget(const std::vector<int>& indices);
  /// Releases the outstanding asks of the rows of the m×d `points`, each matched as tell() matches
  /// points (the candidate itself, or within match_tolerance of it). Returns m.
  /// @throws InvalidArgument naming a row that matches no outstanding ask, or for a wrong
  /// dimension; nothing is released then.
  int forget(const Eigen::Ref<const Eigen::MatrixXd>& points);

  /// Posterior mean and variance of f at the m×d `points` (any points), given the observations
  /// (pending asks do not count). O(m·t² + m·t·d). @throws InvalidArgument for a wrong dimension.
  Prediction predict(const Eigen::Ref<const Eigen::MatrixXd>& points) const;
  /// The same at every candidate (length N): O(N) when nothing is pending, else O(N·t²).
  Prediction predict_candidates() const;

  /// Fits the kernel's lengthscales (ARD per FitOptions::ard), its variance and λ by maximum
  /// marginal likelihood (fit_gp_hyperparameters: L-BFGS-B with restarts) on the observations,
  /// standardising y first (FitOptions::normalize); then rebuilds the posterior.
  /// @throws InvalidArgument with fewer than 2 observations, for a kernel other than SE,
  /// Matérn 3/2 or 5/2, or when an input column is constant on the observations.
  HyperFit fit_hyperparameters();

  /// Replaces the acquisition rule of later asks, e.g. for the last calls of a budget: UCB with a
  /// constant β near 0 chooses the posterior mean's best point (refined beyond the candidates on
  /// a box), which spends them on the incumbent's neighbourhood instead of on exploration
  /// (`minimize`'s exploit_last). Saved with the state; outstanding asks are kept.
  /// @throws InvalidArgument for options the constructor refuses (a bad β schedule, ξ < 0,
  /// exact_max or features < 1), or Thompson sampling on a streamed space; nothing changes then.
  void set_acquisition(const AcquisitionOptions& acquisition);

  /// The options, with the current (possibly fitted) kernel and noise variance (see the class's
  /// thread-safety note: use kernel() and noise_variance() while other threads fit).
  const OptimizerOptions& options() const;
  /// A copy of the current (possibly fitted) kernel.
  Kernel kernel() const;
  /// The current (possibly fitted) noise variance λ, in the model's units of y.
  double noise_variance() const;
  /// The candidate set (N × d).
  const Domain& domain() const;
  /// The Context the engine runs on.
  const Context& context() const;
  /// Observations told so far.
  int num_observations() const;
  /// The observed points, one per row (num_observations() × d), in tell order.
  Eigen::MatrixXd observed_points() const;
  /// The observed y, as told, in tell order.
  std::vector<double> observed_values() const;
  /// The known noise variance of each observation, as told, in tell order (NaN where none was
  /// given).
  std::vector<double> observed_noise() const;
  /// The candidate index of each observation (−1 for a point off the candidate set).
  std::vector<int> observed_indices() const;
  /// Candidates asked for and not yet told, in ask order (−1 for a point off the candidate set).
  std::vector<int> pending() const;
  /// The best observation so far. @throws InvalidArgument when there is none.
  BestObservation best() const;
  /// Hyperparameter fits done so far (explicit and automatic).
  int fits() const;
  /// Why the last automatic refit failed ("" when it did not).
  std::string last_fit_error() const;
  /// y = offset + scale·g, the map from the model's units g to those of y (after the sign flip of
  /// minimisation); offset 0, scale 1 until a fit standardises y.
  double y_offset() const;
  /// See y_offset().
  double y_scale() const;

  /// The whole state as JSON text: options, kernel, hyperparameters, every observation, pending
  /// asks, random-stream positions and the posterior's operation log (see loads()).
  std::string dumps() const;
  /// An Optimizer from dumps() text, on `context` if given (else the saved backend). Replays the
  /// posterior operations, so its posterior and later choices equal the original's bit for bit
  /// on the same backend. @throws InvalidArgument naming the bad field of the state.
  static Optimizer loads(const std::string& state_json,
                         const std::optional<ContextOptions>& context = std::nullopt);
  /// Writes the state atomically (temporary file, fsync, rename): JSON, or .npz when `path` ends
  /// in ".npz" (uncompressed arrays that numpy.load reads: the observations, the candidates and
  /// the JSON state as bytes). @throws IoError if the file cannot be written.
  void save(const std::string& path) const;
  /// Reads a state written by save() (JSON or .npz, by content). @throws IoError if unreadable;
  /// InvalidArgument for a malformed state (naming the file and the field).
  static Optimizer load(const std::string& path,
                        const std::optional<ContextOptions>& context = std::nullopt);

  /// Internal state (opaque to users).
  struct State;

 private:
  explicit Optimizer(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

/// Parses an optimizer config (JSON text; // and /* */ comments allowed, unknown keys are errors):
/// @code
///   {"domain": {"type": "box", "lower": [..], "upper": [..], "candidates": 4096,
///               "seed": (default: the optimizer's seed), "integer": [axis, ..],
///               "onehot": [[first axis, k], ..]}
///            | {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [50, 50]}
///            | {"type": "sobol", "lower": [..], "upper": [..], "count": 4096, "seed": 0}
///            | {"type": "csv" | "npy", "path": "candidates.csv"}
///            | {"type": "points", "points": [[0.1, 0.2], ...]},
///    "kernel": {"type": "matern52", "lengthscale": 0.2 | [0.2, 0.3], "variance": 1},
///    "noise_variance": 0.01,
///    "acquisition": {"type": "ucb", "beta": {"type": "srinivas", "delta": 0.1, "scale": 1}}
///                 | {"type": "ts", "exact_max": 4096, "features": 1024}
///                 | {"type": "ei" | "pi", "xi": 0} | {"type": "random"},
///    "goal": "maximize" | "minimize", "initial_points": 0, "initial_design": "sobol" | "random",
///    "refine": {"enabled": true, "local_points": 1024, "centres": 3, "starts": 5,
///               "iterations": 60},
///    "distinct": true, "tie_break": "random" | "lowest", "seed": 0, "capacity": 256,
///    "allow_outside": false, "match_tolerance": 1e-5,
///    "fit": {"every": 1, "min_observations": 5, "ard": true, "restarts": 5, "max_rows": 2000,
///            "normalize": true, "unit_inputs": true, "prior": true, "noise_floor": 1e-8,
///            "warm_start": true, "restarts_every": 5},
///    "backend": "auto" | "cpu" | "cuda", "threads": 0,
///    "memory_budget_mb": 4096 (default: automatic, ContextOptions::memory_budget_bytes = 0)}
/// @endcode
/// Relative paths resolve against `base_dir`. Every problem throws InvalidArgument
/// "<source>: <field>: <what>".
OptimizerOptions parse_optimizer_config(const std::string& json_text, const std::string& source,
                                        const std::string& base_dir);
/// The same from a file (relative paths resolve against its folder). @throws IoError if unreadable.
OptimizerOptions load_optimizer_config(const std::string& path);

/// What a config (JSON text) is: "command" (an optimizer config with an "objective", run by
/// `gpbandit run`), "optimizer" (an optimizer config without one: `gpbandit init` / Optimizer),
/// or "experiment" (anything else: a pipeline config of any family, or text that is not valid
/// JSON, which the experiment reader then reports). Decided by the keys only an optimizer config
/// has (objective with cmd, acquisition, goal, initial_points, distinct, tie_break, capacity,
/// fit, allow_outside, match_tolerance) and the absence of "policies" and "experiment", or by a
/// "domain" with nothing to run on it (no objective, policies, experiment, task or methods); a
/// misspelt "type" therefore reaches the reader that names it.
std::string config_kind(const std::string& json_text);

}  // namespace gpb
