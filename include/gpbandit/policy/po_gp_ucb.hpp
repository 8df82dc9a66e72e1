/// @file po_gp_ucb.hpp
/// The modeler of the PO-GP-UCB transform (Kharkovskii et al. 2020, Algorithm 2;
/// specs/po-gp-ucb.md §5): GP-UCB over the n released rows of Z = r^{-1/2} X̃ M.
///
/// Caveat (spec §12): the transform does not make the rows of X differentially private when
/// n > d. An adversary holding Z, the index of a row and d+1 other rows recovers that row exactly
/// (tests/test_po_gp_ucb.cpp, `PoReconstruction.*`). `epsilon` and `delta` are only the paper's
/// parameters that set ω.
#pragma once

#include <memory>

#include "gpbandit/policy/policy.hpp"
#include "gpbandit/privacy/po_curator.hpp"

namespace gpb {

/// Settings of the PO-GP-UCB policy.
struct PoGpUcbOptions {
  /// ε, δ (the paper's parameters that set ω), r (0 = auto: spec §6's largest r with
  /// σ_min ≥ ω), and the ω form.
  privacy::PoCuratorOptions curator;
  /// false: the non-private baseline, the same modeler over the rows of X itself (spec §5);
  /// ε, δ, r and ω are then unused.
  bool use_curator = true;
  /// Initial design (spec D6): n_init uniform indices per run from a stream shared by every
  /// po_gp_ucb policy of that run; they are the first n_init evaluations (they count in the
  /// simple regret's max; β_t's t counts the UCB steps after them).
  int n_init = 1;
  /// Spec D8: exclude rows already queried by that run from the argmax (default: literal
  /// Algorithm 2, re-selection allowed).
  bool exclude_queried = false;
  /// Spec §7 `epsilon_mode = calibrated`: if > 0, the data set's lowest paper ε; every ε is then
  /// multiplied by ε_low/calibrate_to with ε_low = 1.1·ε_crit(10), ε_crit(r) = ω(r, ε = 1)/σ_min,
  /// so the IF/ELSE pattern of the paper's tables is reproduced on stand-in data. 0: ε verbatim.
  double calibrate_to = 0;
  /// β_t = 2 ln(n t² π²/(6δ′)) with δ′ = δ_ucb/2 = 0.025 (spec §5, D2).
  BetaSchedule beta = [] {
    BetaSchedule b;
    b.kind = BetaSchedule::Kind::Srinivas;
    b.delta = 0.025;
    return b;
  }();
};

/// PO-GP-UCB: for every run, the curator releases Z from the domain's points (the rows of X),
/// with M drawn from the counter-based stream (seed, run, Projection), i.e. a fresh M per run,
/// shared by every PO-GP-UCB policy of that run (common random numbers across ε and nested across
/// r). The modeler runs GP-UCB with env.kernel (stationary) over the rows of Z; the chosen row
/// index is evaluated on the original domain. With options.use_curator = false the same modeler
/// runs over the rows of X (the non-private baseline). The first n_init evaluations of a run are
/// its shared initial indices. info_json() records ε used, δ, r, ω, σ_min and the branch (these
/// do not depend on the run). O(N·d² + N·d·r) set-up per run, then GP-UCB's cost.
/// @throws InvalidArgument for bad curator options (see po_curate_seeded), a non-stationary
/// kernel, n_init ∉ [0, N], calibrate_to < 0, or a bad beta schedule.
std::unique_ptr<Policy> make_po_gp_ucb(const PolicyEnv& env, const PoGpUcbOptions& options);

}  // namespace gpb
