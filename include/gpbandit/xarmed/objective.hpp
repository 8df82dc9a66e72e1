/// @file objective.hpp
/// Federated objectives on a box (specs/fed-pne.md §9): client m of M queries f_m; regret is
/// measured on the noise-free global reference g with sup g = fstar().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/xarmed/partition.hpp"

namespace gpb::xarmed {

/// A federated objective family. Deterministic: the same (seed, run, m, M, x) gives the same value.
class FedObjective {
 public:
  virtual ~FedObjective() = default;
  /// Short name of the objective (written to summary.json).
  virtual std::string name() const = 0;
  /// The domain X, shared by every client.
  virtual const Box& box() const = 0;
  /// sup of the regret reference g (exact where known, else the value the spec assumes).
  virtual double fstar() const = 0;
  /// The regret reference g(x): regret of a pull at x is fstar() − g(x). For perturbed clients
  /// f = g + mean ξ, so the regret of f equals g's.
  virtual double global(std::uint32_t run, int M, const double* x) const = 0;
  /// Client m's local objective f_m(x) (m = 0..M−1) in run `run`.
  virtual double local(std::uint32_t run, int m, int M, const double* x) const = 0;
  /// (1/M) Σ_m f_m(x), summed in client order: what a centralised learner observes before noise.
  double mean_local(std::uint32_t run, int M, const double* x) const {
    double s = 0;
    for (int m = 0; m < M; ++m) s += local(run, m, M, x);
    return s / M;
  }
};

/// Options of make_objective.
struct ObjectiveSpec {
  std::string type;                  ///< garland | doublesine | himmelblau | linear | seir |
                                     ///< landmine_svm | digits_classifier
  bool perturbed = false;            ///< f_m = g + ξ_m, ξ_m ~ N(0,1) per (run, client)
  std::uint64_t seed = 0;            ///< seed of the perturbations
  double slope = 1.0;                ///< linear: f(x) = 1 − slope·|x − peak|
  double peak = 0.3141592653589793;  ///< linear: location of the maximum in [0,1]
  double shift = 0.0;                ///< added to g and f_m (e.g. 1 for Himmelblau in DP runs)
  /// f* as PyXAB's objective classes state it (spec decision 11): Garland 1 instead of the exact
  /// 0.997772 (every evaluation then adds 0.002228 of regret); the other objectives' PyXAB f*
  /// equals the exact one.
  bool fstar_pyxab = false;
};

/// Builds an objective. @throws InvalidArgument naming the field for an unknown type or value.
std::shared_ptr<const FedObjective> make_objective(const ObjectiveSpec& spec);

/// Garland g(x) = x(1−x)(4 − √|sin 60x|) on [0,1].
double garland(double x);
/// DoubleSine (PyXAB convention, ρ₁ = 0.3, ρ₂ = 0.8), range [−1, 0], max 0 at x = ½.
double double_sine(double x);
/// Normalised Himmelblau on [−5,5]², range [−1, 0].
double himmelblau(const double* x);
/// SEIR dosage objective: 1 − C(200)/N for population N and dose x ∈ [0,1] (RK4, h = 0.1 day).
double seir_reward(double x, double population);

}  // namespace gpb::xarmed
