// gpb::Optimizer's output warp chosen by marginal likelihood (fit.warp_select): Box-Cox alone
// warps any skewed sample of y, whether the skew is the function's (x⁸: a heavy bad tail) or
// only the design's (a linear function observed mostly near its minimum); with warp_select the
// warp is kept for the first and dropped for the second, where the plain GP explains y better.
// The key round-trips through a config and a saved state.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpbandit/optimizer/optimizer.hpp"

namespace {

using gpb::Optimizer;
using gpb::OptimizerOptions;

/// The Box-Cox exponent of the warp in use (1: none) after one fit to y = f(x) at
/// x_i = u_i^p, u_i = (i + 1/2) / 24, on [0, 1], minimised.
double lambda_after_fit(double p, double (*f)(double), bool select) {
  const OptimizerOptions o = gpb::parse_optimizer_config(
      R"({"domain": {"type": "box", "lower": [0], "upper": [1], "candidates": 64},
          "goal": "minimize", "fit": {"every": 0, "warp": true, "warp_select": )" +
          std::string(select ? "true" : "false") + R"(}, "backend": "cpu"})",
      "cfg.json", ".");
  Optimizer opt(o);
  Eigen::MatrixXd x(24, 1);
  std::vector<double> y;
  for (int i = 0; i < 24; ++i) {
    x(i, 0) = std::pow((i + 0.5) / 24, p);
    y.push_back(f(x(i, 0)));
  }
  opt.tell(x, y);
  opt.fit_hyperparameters();
  const std::string saved = opt.dumps();
  const nlohmann::json state = nlohmann::json::parse(saved);
  EXPECT_EQ(state["config"]["fit"]["warp_select"].get<bool>(), select);
  EXPECT_EQ(Optimizer::loads(saved).options().fit.warp_select, select);
  return state["model"]["warp"]["lambda"].get<double>();
}

double linear(double x) {
  return x;
}
double eighth_power(double x) {
  return std::pow(x, 8);
}

TEST(OptimizerWarp, KeptForTheFunctionsTailDroppedForTheDesignsSkew) {
  // Box-Cox on the values alone warps both samples.
  EXPECT_LT(lambda_after_fit(6, linear, false), 1.0);
  EXPECT_LT(lambda_after_fit(1, eighth_power, false), 1.0);
  // The marginal likelihood with the Jacobian keeps the warp for x⁸ only.
  EXPECT_LT(lambda_after_fit(1, eighth_power, true), 1.0);
  EXPECT_EQ(lambda_after_fit(6, linear, true), 1.0);
}

}  // namespace
