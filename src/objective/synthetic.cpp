// Classical closed-form test functions, maximised: −Branin and Hartmann-6.

#include <cmath>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// Evaluates `fn(point)` at every candidate the domain holds (all N, or a slice's) after checking
/// the domain's dimension.
template <class Fn>
Eigen::VectorXd evaluate(const Domain& domain, int dim, const char* name, Fn fn) {
  GPB_EXPECTS(domain.dim() == dim,
              name << " needs a " << dim << "-dimensional domain, got dimension " << domain.dim());
  const Eigen::MatrixXd& p = domain.points();
  Eigen::VectorXd f(p.cols());
  for (Eigen::Index j = 0; j < p.cols(); ++j) f(j) = fn(p.col(j).data());
  return f;
}

/// −Branin(x1, x2) with a = 1, b = 5.1/(4π²), c = 5/π, r = 6, s = 10, t = 1/(8π).
/// Maximum −0.397887 at (−π, 12.275), (π, 2.275), (9.42478, 2.475).
double neg_branin(const double* x) {
  const double a = 1.0, b = 5.1 / (4.0 * kPi * kPi), c = 5.0 / kPi;
  const double r = 6.0, s = 10.0, t = 1.0 / (8.0 * kPi);
  const double q = x[1] - b * x[0] * x[0] + c * x[0] - r;
  return -(a * q * q + s * (1.0 - t) * std::cos(x[0]) + s);
}

/// Hartmann-6: Σ_i α_i exp(−Σ_j A_ij (x_j − P_ij)²) (the negative of the usual minimisation
/// form). Maximum 3.32237 at (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573).
double hartmann6(const double* x) {
  static constexpr double kAlpha[4] = {1.0, 1.2, 3.0, 3.2};
  static constexpr double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                      {0.05, 10, 17, 0.1, 8, 14},
                                      {3, 3.5, 1.7, 10, 17, 8},
                                      {17, 8, 0.05, 10, 0.1, 14}};
  static constexpr double kP[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                      {2329, 4135, 8307, 3736, 1004, 9991},
                                      {2348, 1451, 3522, 2883, 3047, 6650},
                                      {4047, 8828, 8732, 5743, 1091, 381}};
  double sum = 0.0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0.0;
    for (int j = 0; j < 6; ++j) {
      const double diff = x[j] - 1e-4 * kP[i][j];
      inner += kA[i][j] * diff * diff;
    }
    sum += kAlpha[i] * std::exp(-inner);
  }
  return sum;
}

class BraninObjective final : public Objective {
 public:
  std::string name() const override { return "branin"; }
  Eigen::VectorXd values(const Context&, const Domain& domain, std::uint64_t,
                         std::uint32_t) const override {
    return evaluate(domain, 2, "branin", neg_branin);
  }
};

class Hartmann6Objective final : public Objective {
 public:
  std::string name() const override { return "hartmann6"; }
  Eigen::VectorXd values(const Context&, const Domain& domain, std::uint64_t,
                         std::uint32_t) const override {
    return evaluate(domain, 6, "hartmann6", hartmann6);
  }
};

}  // namespace

std::unique_ptr<Objective> make_branin_objective() {
  return std::make_unique<BraninObjective>();
}

std::unique_ptr<Objective> make_hartmann6_objective() {
  return std::make_unique<Hartmann6Objective>();
}

}  // namespace gpb
