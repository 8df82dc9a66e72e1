// gpb::Optimizer's kernel structure chosen by the data (fit.kernel_select): each fit also fits the
// additive kernel (one 1-d part of the same type per input) and keeps the structure of the higher
// log marginal likelihood, the additive one penalised by BIC for its d − 1 extra variances. A
// separable function (a sum of 1-d terms) is given the additive kernel; one whose inputs interact
// keeps the product. The choice is undone when the data change, and the key (off by default)
// round-trips through a config and a state.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gpbandit/optimizer/optimizer.hpp"

namespace {

using gpb::Optimizer;
using gpb::OptimizerOptions;

constexpr int kDim = 4;

Optimizer make(bool select) {
  return Optimizer(gpb::parse_optimizer_config(
      std::string(R"({"domain": {"type": "box", "lower": [0, 0, 0, 0], "upper": [1, 1, 1, 1],
                      "candidates": 64}, "goal": "minimize",
                      "fit": {"every": 0, "kernel_select": )") +
          (select ? "true" : "false") + R"(}, "backend": "cpu"})",
      "cfg.json", "."));
}

/// Tells y = f(x) at n uniform points of [0, 1]^4 (std::mt19937 seeded `seed`) and fits.
void tell_and_fit(Optimizer& opt, double (*f)(const Eigen::VectorXd&), int n, unsigned seed) {
  Eigen::MatrixXd x(n, kDim);
  std::vector<double> y;
  std::mt19937 words(seed);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < kDim; ++j) x(i, j) = words() / 4294967296.0;
    y.push_back(f(x.row(i).transpose()));
  }
  opt.tell(x, y);
  opt.fit_hyperparameters();
}

double separable(const Eigen::VectorXd& x) {  // Σ_j sin(6 x_j): no interaction
  return x.unaryExpr([](double v) { return std::sin(6.0 * v); }).sum();
}
double interacting(const Eigen::VectorXd& x) {  // one product of every input
  return std::sin(12.0 * x[0] * x[1] * x[2] * x[3]) + 4.0 * x[0] * x[1] * x[2] * x[3];
}

bool additive(const gpb::Kernel& k) {
  return k.composite() && k.type() == gpb::KernelType::Sum;
}

TEST(OptimizerKernelSelect, SeparableDataChooseTheAdditiveKernelInteractingDataTheProduct) {
  Optimizer sep = make(true);
  tell_and_fit(sep, separable, 40, 1);
  ASSERT_TRUE(additive(sep.kernel())) << sep.kernel().describe();
  EXPECT_EQ(sep.kernel().parts().size(), static_cast<std::size_t>(kDim));
  Optimizer inter = make(true);
  tell_and_fit(inter, interacting, 40, 1);
  EXPECT_FALSE(inter.kernel().composite()) << inter.kernel().describe();
  EXPECT_EQ(inter.kernel().type(), gpb::KernelType::Matern52);
  // Off (the default), the separable data keep the product kernel.
  Optimizer off = make(false);
  tell_and_fit(off, separable, 40, 1);
  EXPECT_FALSE(off.kernel().composite());
  EXPECT_FALSE(gpb::FitOptions().kernel_select);
}

TEST(OptimizerKernelSelect, TheChoiceFollowsTheDataBackToTheProductAndSurvivesAState) {
  Optimizer opt = make(true);
  tell_and_fit(opt, separable, 40, 2);
  ASSERT_TRUE(additive(opt.kernel()));
  // The state keeps the additive kernel and the key; predictions are unchanged.
  const Optimizer loaded = Optimizer::loads(opt.dumps());
  EXPECT_TRUE(loaded.options().fit.kernel_select);
  EXPECT_TRUE(additive(loaded.kernel()));
  const Eigen::MatrixXd at = Eigen::MatrixXd::Constant(1, kDim, 0.3);
  EXPECT_NEAR(loaded.predict(at).mean[0], opt.predict(at).mean[0], 1e-9);
  // Many interacting observations later, the product explains y better again.
  tell_and_fit(opt, interacting, 80, 3);
  EXPECT_FALSE(opt.kernel().composite()) << opt.kernel().describe();
}

}  // namespace
