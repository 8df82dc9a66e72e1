// gpb::Optimizer's output warp chosen by marginal likelihood (fit.warp_select): Box-Cox alone
// warps any skewed sample of y, whether the skew is the function's (x⁸: a heavy bad tail) or
// only the design's (a linear function observed mostly near its minimum); with warp_select the
// warp is kept for the first and dropped for the second, where the plain GP explains y better.
// The key round-trips through a config and a saved state. Its knee (fit.warp_knee): the distance
// below the best kept as it is up to that quantile, refused outside (0, 1) naming the key, and a
// state saved before the key existed keeps the median it was fitted with.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpbandit/error.hpp"
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

/// The warp's knee after one fit to 20 values of a heavy bad tail, r_i = i⁴ below the best,
/// with fit.warp_knee = q (absent from the config when q < 0), and the saved state.
double knee_after_fit(double q, std::string* saved = nullptr) {
  std::string knee = q < 0 ? "" : R"(, "warp_knee": )" + std::to_string(q);
  const OptimizerOptions o = gpb::parse_optimizer_config(
      R"({"domain": {"type": "box", "lower": [0], "upper": [1], "candidates": 64},
          "goal": "minimize", "fit": {"every": 0, "warp": true)" +
          knee + R"(}, "backend": "cpu"})",
      "cfg.json", ".");
  Optimizer opt(o);
  Eigen::MatrixXd x(20, 1);
  std::vector<double> y;
  for (int i = 0; i < 20; ++i) {
    x(i, 0) = (i + 0.5) / 20;
    y.push_back(std::pow(i, 4));  // minimised: the best is 0, r = y
  }
  opt.tell(x, y);
  opt.fit_hyperparameters();
  if (saved) *saved = opt.dumps();
  const nlohmann::json state = nlohmann::json::parse(opt.dumps());
  EXPECT_LT(state["model"]["warp"]["lambda"].get<double>(), 1.0);  // the tail is warped
  return state["model"]["warp"]["knee"].get<double>();
}

TEST(OptimizerWarp, TheKneeIsTheConfiguredQuantileOfTheDistanceBelowTheBest) {
  // r sorted is 0⁴, 1⁴, ..., 19⁴: the ⌊q·20⌋-th smallest.
  EXPECT_EQ(knee_after_fit(0.5), std::pow(10, 4));
  EXPECT_EQ(knee_after_fit(0.75), std::pow(15, 4));
  EXPECT_EQ(knee_after_fit(0.6), std::pow(12, 4));
  EXPECT_EQ(knee_after_fit(-1), std::pow(12, 4));  // the default, 0.6
  EXPECT_EQ(gpb::FitOptions().warp_knee, 0.6);
  std::string saved;
  knee_after_fit(0.5, &saved);
  EXPECT_EQ(Optimizer::loads(saved).options().fit.warp_knee, 0.5);
  // A state written before the key existed was fitted with the median knee and keeps it.
  nlohmann::json old = nlohmann::json::parse(saved);
  old["config"]["fit"].erase("warp_knee");
  EXPECT_EQ(Optimizer::loads(old.dump()).options().fit.warp_knee, 0.5);
}

TEST(OptimizerWarp, AKneeOutsideTheOpenUnitIntervalIsRefusedNamingTheKey) {
  for (const char* bad : {"0", "1", "1.5", "-0.25"}) {
    try {
      gpb::parse_optimizer_config(
          std::string(R"({"domain": {"type": "box", "lower": [0], "upper": [1], "candidates": 8},
                          "fit": {"warp": true, "warp_knee": )") +
              bad + "}}",
          "cfg.json", ".");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("fit.warp_knee"), std::string::npos) << e.what();
    }
  }
  gpb::OptimizerOptions o = gpb::parse_optimizer_config(
      R"({"domain": {"type": "box", "lower": [0], "upper": [1], "candidates": 8}})", "cfg.json",
      ".");
  o.fit.warp_knee = 1.0;
  EXPECT_THROW(Optimizer{o}, gpb::InvalidArgument);
}

}  // namespace
