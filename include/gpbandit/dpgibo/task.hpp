/// @file task.hpp
/// Tasks of DP-GIBO experiments (specs/dp-gibo.md §1, §8): a box Θ of hyperparameters, n users each
/// owning one private record, and a per-user loss L(θ, x_i) (minimised on average).
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gpb::dpgibo {

/// A per-user black-box objective on a box. Implementations are immutable after construction
/// (their data are drawn once from the experiment seed) and thread-compatible.
class Task {
 public:
  virtual ~Task() = default;
  /// Short name, e.g. "normal_location(d=5, n=50)".
  virtual std::string describe() const = 0;
  /// d, the dimension of θ.
  virtual int dim() const = 0;
  /// n, the number of users (records).
  virtual int users() const = 0;
  /// Lower box bounds (length dim()).
  virtual const Eigen::VectorXd& lower() const = 0;
  /// Upper box bounds (length dim()).
  virtual const Eigen::VectorXd& upper() const = 0;
  /// Noise-free per-user losses L(θ, x_i), length n.
  virtual Eigen::VectorXd losses(const Eigen::Ref<const Eigen::VectorXd>& theta) const = 0;
  /// f(θ) = mean_i L(θ, x_i).
  double objective(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
    return losses(theta).mean();
  }
  /// Whether per_user_gradients() is available (DP-GD needs it).
  virtual bool has_gradients() const { return false; }
  /// ∇_θ L(θ, x_i) for every user, d×n. @throws InvalidArgument when has_gradients() is false.
  virtual Eigen::MatrixXd per_user_gradients(const Eigen::Ref<const Eigen::VectorXd>& theta) const;
  /// The minimiser of f when known in closed form (quadratics), else empty.
  virtual std::optional<Eigen::VectorXd> optimum() const { return std::nullopt; }
};

/// Normal location (E-DP6 / quadratic): x_i ~ N(centre·1, spread²·I_d), L = ½‖θ − x_i‖², minimiser
/// x̄. Box [lo, hi]^d. @throws InvalidArgument for d < 1, n < 1, spread < 0, lo ≥ hi.
std::unique_ptr<Task> make_normal_location(int d, int n, double centre, double spread, double lo,
                                           double hi, std::uint64_t seed);

/// Weighted Huber regression (E-DP7): y_i = x_iᵀθ* + e_i, θ* = 1, x_i ~ N(0, I_d), e_i ~ N(0, 1),
/// L = ρ_c(y_i − x_iᵀθ)·min(1, 2/‖x_i‖²). Box [lo, hi]^d. Per-user gradients available.
std::unique_ptr<Task> make_huber(int d, int n, double c, double lo, double hi, std::uint64_t seed);

/// GP-regression lengthscale tuning (GP-LS-d): inputs U[0, input_range]^d, targets
/// f + N(0, 0.1²), f ~ GP(0, SE ℓ=1, s²=1) drawn once; the first n_train points train, the next
/// n_val points are the users; L(θ, x_i) = (y_i − m_θ(x_i))² with m_θ the GP posterior mean
/// (s² = 1, noise 0.01, ARD lengthscales e^θ). Box [−2, 2]^d. Each evaluation factors one
/// n_train×n_train matrix. input_range = 1 is the unit cube; the experiments' default is
/// gp_lengthscale_scaled_range(d) (specs/dp-gibo.md §8). The draws do not depend on input_range
/// (the same uniforms are multiplied by it), so input_range = 1 gives the unit-cube task bit for
/// bit. @throws InvalidArgument for d < 1, n_val < 1, n_train < 1 or input_range not in (0, ∞).
std::unique_ptr<Task> make_gp_lengthscale(int d, int n_train, int n_val, std::uint64_t seed,
                                          double input_range = 1.0);

/// L_d = √(15/d), the GP-LS-d input range of specs/dp-gibo.md §8 ("input_range": "scaled"): it
/// keeps the mean squared input distance d·L_d²/6 at 2.5 ℓ_data², its value at the paper's d = 15
/// (where L_15 = 1 exactly). @throws InvalidArgument for d < 1.
double gp_lengthscale_scaled_range(int d);

/// SVR tuning substitute (E-DP5, specs/dp-gibo.md §8): Friedman #1 data generated here,
/// x ∈ U[0,1]^p, y = 10 sin(πx₁x₂) + 20(x₃−½)² + 10x₄ + 5x₅ + N(0,1), standardised with training
/// statistics; ε-SVR (libsvm, RBF exp(−γ‖u−v‖²)) on u = x ⊘ e^{θ_{1..p}}; θ = (log-lengthscales
/// ∈ [−2,2]^p, ln ε_svr ∈ [ln 0.01, 0], ln C ∈ [ln 0.1, ln 3], ln γ ∈ [ln 0.01, ln 5]), d = p + 3;
/// L = squared validation error (standardised units). Each evaluation trains one SVR.
/// @throws InvalidArgument if p < 5, or when the build has no libsvm.
std::unique_ptr<Task> make_svr_friedman(int p, int n_train, int n_val, std::uint64_t seed);

}  // namespace gpb::dpgibo
