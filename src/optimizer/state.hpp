/// @file state.hpp
/// The state behind gpb::Optimizer (internal), shared by the files of src/optimizer/:
/// optimizer.cpp (ask, tell, the posterior's bookkeeping), acquisition.cpp (the choice rules),
/// predict.cpp (posteriors at arbitrary points), fit.cpp (hyperparameters), serialize.cpp (state
/// as JSON / .npz) and config.cpp (the config format).
///
/// The posterior. One FinitePosterior (one run) over the candidates followed by the points told off
/// the candidate set ("extras"). Every operation applied to it is logged (observe an observation,
/// add a pending candidate, resolve the pending rows with observations), so that loading replays
/// the log and rebuilds the very same posterior. Whenever the log cannot be extended (a tell that
/// answers only some pending rows, an observation while rows are pending, a new extra point, new
/// hyperparameters), the posterior is rebuilt from the observations in tell order and the log
/// restarts from that canonical sequence. A new extra (a point told off the candidate set, or a
/// point a refinement on a box suggests) grows the posterior (FinitePosterior::add_candidates)
/// instead: the grown posterior equals one built over the candidates and every extra, which is
/// what loading builds before it replays the log.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/io/log.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "gpbandit/rng.hpp"
#include "optimizer/surrogate.hpp"
#include "optimizer/thompson.hpp"
#include "optimizer/warp.hpp"

namespace gpb {

/// One operation applied to the posterior, in order (see the file comment).
struct PosteriorOp {
  /// Kinds of operations.
  enum class Kind { Observe, Pending, Resolve };
  Kind kind = Kind::Observe;
  int value = 0;         ///< Observe: observation id; Pending: candidate index
  std::vector<int> ids;  ///< Resolve: the observation id answering each pending row, in order
};

/// An asked candidate not yet told.
struct OutstandingAsk {
  int candidate = 0;  ///< candidate index
  int slot = -1;      ///< its pending row among the posterior's pending rows, −1 if not added
};

struct Optimizer::State {
  /// Serialises every public member function of the Optimizer (see its thread-safety note).
  mutable std::mutex mu;
  OptimizerOptions opt;                ///< options; kernel and noise_variance are the current ones
  std::unique_ptr<Context> ctx;        ///< the engine's backend
  Domain domain = Domain::indices(1);  ///< the N candidates
  int n = 0;                           ///< N
  int d = 0;                           ///< dimension
  Eigen::VectorXd box_lo, box_hi;      ///< the candidates' bounding box (d values each)
  bool warned_recompute = false;       ///< the recompute-mode warning was queued
  /// A warning not yet emitted, and the thread whose call raised it.
  struct QueuedWarning {
    std::thread::id thread;
    WarningKind kind;
    std::string text;
  };
  std::vector<QueuedWarning> queued;  ///< warnings not yet emitted, of every thread's calls

  // Observations, in tell order.
  std::vector<double> obs_x;  ///< d values per observation
  std::vector<double> obs_y;  ///< y as told
  /// Known noise variance of each observation, in y's units (tell's `noise`); NaN: not known (the
  /// model's fitted λ). Empty when none was ever told (states of older versions alike).
  std::vector<double> obs_noise;
  std::vector<int> obs_point;  ///< posterior point: candidate (< N) or N + extra index
  std::vector<double> extras;  ///< d values per point off the candidate set, first-seen order
  std::vector<int> failed;     ///< posterior points of failed evaluations (tell_failed), in order

  // Asks and the posterior's bookkeeping.
  std::vector<OutstandingAsk> outstanding;  ///< in ask order
  std::vector<int> slot_answer;  ///< per pending row: the observation answering it, or −1
  std::vector<int> unposted;     ///< observations not in the posterior (answering no pending row)
  std::unique_ptr<FinitePosterior> post;  ///< over the candidates and post_extras extras
  int post_extras = 0;
  std::vector<PosteriorOp> log;  ///< operations applied to `post` since it was built
  bool dirty = false;            ///< hyperparameters changed: rebuild before the next use
  int asks_served = 0;           ///< candidates returned by ask() so far

  // Unit coordinates of the domain (fits, refinement): x = unit_lower + u ⊙ unit_width.
  Eigen::VectorXd unit_lower, unit_width;
  // The axes the refinement moves (DomainSpec::refinable_axes; empty: no refinement).
  std::vector<int> free_axes;
  // Trust region of the refinement on a box (RefineOptions; saved).
  double tr_length = 0.8;
  int tr_success = 0, tr_failure = 0;
  double tr_best = 0.0;  ///< best sign·y told so far (valid once there is an observation)

  // The model's units: g = (warp(sign·y) − y_offset) / y_scale, sign = −1 when minimising.
  double y_offset = 0.0;
  double y_scale = 1.0;
  detail::OutputWarp warp;  ///< the identity unless FitOptions::warp (chosen with the offset)

  // Random streams (Philox positions are saved).
  std::vector<Rng> tiebreak;  ///< one stream (FinitePosterior::ucb_argmax takes a vector)
  Rng policy{0, 0, 0};        ///< Thompson draws, EI ties, random picks

  // Fits.
  int fits = 0;
  int obs_at_last_fit = 0;
  std::string last_fit_error;

  // Caches (not saved; rebuilt on demand).
  detail::ThompsonSampler thompson;                         ///< TS draws (keeps the prior factor)
  std::unordered_multimap<std::uint64_t, int> point_index;  ///< point hash → posterior point
  int indexed_points = 0;                                   ///< points hashed so far
  /// Streamed space: the encodings of the candidates asked, told or failed so far.
  mutable std::unordered_map<int, Eigen::VectorXd> encoded;

  /// Builds the domain, the Context, the streams and an empty posterior from `options`.
  explicit State(OptimizerOptions options);

  /// +1, or −1 when minimising.
  double sign() const { return opt.minimize ? -1.0 : 1.0; }
  /// Observation i's y in the model's units.
  double model_y(int i) const {
    return (warp.forward(sign() * obs_y[static_cast<std::size_t>(i)]) - y_offset) / y_scale;
  }
  /// Observation i's known noise variance in the model's units, where h = (w(g) − offset)/scale:
  /// the variance told times (w'(g)/scale)² (first order through the warp), at least the fit's
  /// noise floor (FitOptions::noise_floor); NaN when its noise is not known.
  double model_noise(int i, const detail::OutputWarp& w, double scale) const;
  /// The same with the current warp and scale.
  double model_noise(int i) const { return model_noise(i, warp, y_scale); }
  /// model_noise of every observation for a fit with warp w and scale (NaN where not known), or
  /// an empty vector when no observation has a known noise.
  Eigen::VectorXd known_noise(const detail::OutputWarp& w, double scale) const;
  /// Coordinates of posterior point p (a candidate or an extra).
  /// A streamed space's candidates are encoded on first use and kept (`encoded`).
  const double* point(int p) const;
  /// Number of extras.
  int num_extras() const { return static_cast<int>(extras.size()) / d; }
  /// Number of observations.
  int num_obs() const { return static_cast<int>(obs_y.size()); }

  /// The posterior point equal to x (coordinate by coordinate), or −1.
  int find_point(const double* x);
  /// Whether find_point decodes a point into its candidate (a whole parameter space, streamed or
  /// held) instead of looking it up in point_index.
  bool decodes_points() const;
  /// Applies one operation to the posterior and logs it.
  void apply(const PosteriorOp& op);
  /// A fresh posterior over the candidates and every extra, fed every observation in tell order.
  void rebuild();
  /// An empty posterior over the candidates and the first `extras_in_posterior` extras; clears the
  /// log and the pending bookkeeping (outstanding asks keep no slot).
  void reset_posterior(int extras_in_posterior);
  /// Brings the posterior up to date with the observations; with `for_ask` also adds every
  /// outstanding ask as a pending row.
  void sync(bool for_ask);
  /// Records observation (x, y) at posterior point p, with its known noise variance (NaN: not
  /// known), and matches it against the asks.
  void record(const double* x, double y, int p, double noise);
  /// The candidate of an outstanding ask within OptimizerOptions::match_tolerance of x (the
  /// nearest, in the max-norm scaled per axis), or −1 (asks.cpp).
  int match_ask(const double* x) const;
  /// Throws InvalidArgument naming the first row of `points` outside the candidates' bounding
  /// box (beyond the tolerance), unless OptimizerOptions::allow_outside (asks.cpp).
  void check_inside(const Eigen::Ref<const Eigen::MatrixXd>& points, const char* what) const;
  /// Refuses points given by coordinates on a fingerprint domain (its points are packed words).
  void refuse_fingerprint_points(const char* what) const;
  /// Removes the outstanding asks at these positions of `outstanding` (any order, no repeats);
  /// marks the posterior for rebuilding when one of them was a pending row (asks.cpp).
  void drop_asks(std::vector<std::size_t> positions);
  /// Queues a WarningKind::Model warning for each chosen candidate that was observed already.
  void warn_repeats(const std::vector<int>& chosen);
  /// Queues a WarningKind::Performance warning, once per Optimizer, when the posterior runs in
  /// recompute mode.
  void warn_recompute(int capacity);
  /// Queues a warning of the current call (tagged with the calling thread); under the lock.
  void queue_warning(WarningKind kind, std::string text);
  /// Emits the warnings this thread's call queued through gpb::warn (another thread's stay for
  /// that thread's own flush: a warning surfaces on the call that raised it, never on a
  /// concurrent call of another thread); called without the lock, once a public call's work is
  /// done (a handler that throws then loses nothing).
  void flush_warnings();
  /// Refits when FitOptions::every says so (failures are kept in last_fit_error); before the
  /// first fit, re-standardises y after every tell (FitOptions::normalize).
  void maybe_refit();
  /// The output warp (FitOptions::warp; else the identity), then the offset and scale that
  /// standardise the warped sign·y over the observations (0, 1 without normalize). With
  /// `plain` the warp is the identity whatever FitOptions::warp says.
  void standardization(double& offset, double& scale, detail::OutputWarp& w,
                       bool plain = false) const;
  /// Maps the model's mean and variance at some points back to the units of y.
  void to_y_units(Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;
  /// Appends x (d values) as an extra point and, unless a rebuild is due, grows the posterior by
  /// it. Returns its posterior point index.
  int add_extra(const double* x);
  /// Marks posterior point p failed and releases an outstanding ask at it.
  void mark_failed(int p);
  /// Updates the trust region with one told value.
  void update_trust_region(double y);
  /// Fits the hyperparameters to the observations and marks the posterior for rebuilding
  /// (fit.cpp; see Optimizer::fit_hyperparameters).
  HyperFit fit();
  /// One fit of the current kernel's structure (fit() without FitOptions::kernel_select).
  HyperFit fit_structure();
  /// The fit of a fingerprint kernel (tanimoto, minmax): its output scale and the noise by
  /// maximum marginal likelihood (fit_scale_and_noise) on the standardised observations.
  HyperFit fit_fingerprint();
  /// A fit's bookkeeping: y's offset (less FitOptions::mean_shift), scale and warp kept, the
  /// fit counted, the posterior marked for rebuilding and Thompson's draw invalidated.
  void fitted(double offset, double scale, const detail::OutputWarp& w);

  /// One point by the acquisition rule (acquisition.cpp): a posterior point index; on a box the
  /// refinement may add a new extra (then `excluded`, when not empty, grows by one excluded entry).
  /// `excluded` has one byte per posterior point (extras always excluded from the global step) or
  /// is empty for none.
  int choose(std::vector<std::uint8_t>& excluded);
  /// The continuous refinement around the global step's choice `c` (refine.cpp; RefineOptions):
  /// the posterior point to ask, c itself when nothing beats it. `score`: the rule's value at the
  /// N candidates (−∞ where excluded).
  int refine(int c, const detail::AcquisitionRule& rule, const Eigen::VectorXd& score,
             std::vector<std::uint8_t>& excluded);
  /// RefineOptions::face_tolerance: the coordinates of `x` on a face of the box moved back towards
  /// the incumbent's (unit coordinates `u_inc`) while the acquisition stays within the tolerance
  /// of `value`, which is updated. O(d·(t² + t·d)).
  void pull_from_faces(const detail::Surrogate& sur, const detail::AcquisitionRule& rule,
                       const Eigen::VectorXd& u_inc, Eigen::VectorXd& x, double& value);
  /// The largest posterior point set Thompson sampling draws exactly:
  /// AcquisitionOptions::exact_max, capped at 512 while hyperparameters are refitted automatically
  /// (each refit changes the kernel, and the exact prior factor costs O(N³) to rebuild; random
  /// features cost O(N·M·d) per draw).
  int thompson_exact_max() const {
    return opt.fit.every > 0 ? std::min(opt.acquisition.exact_max, 512) : opt.acquisition.exact_max;
  }
  /// The first candidate of the Sobol prefix that is neither excluded nor observed (the initial
  /// design), or −1.
  int next_design_point(const std::vector<std::uint8_t>& excluded) const;
  /// Posterior mean and variance at the d×m points, model units, given the first `rows` rows of
  /// the posterior (predict.cpp). O(m·rows² + m·rows·d).
  void predict_model(const Eigen::Ref<const Eigen::MatrixXd>& points, int rows,
                     Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;
  /// The points of the posterior's first `rows` rows (d×rows).
  Eigen::MatrixXd history_points(int rows) const;
  /// Points of the posterior (candidates, then its extras): d×(N + post_extras).
  Eigen::MatrixXd posterior_points() const;
};

}  // namespace gpb
