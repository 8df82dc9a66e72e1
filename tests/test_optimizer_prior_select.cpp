// gpb::Optimizer's lengthscale prior location chosen by the data (fit.lengthscale_prior_select):
// each fit also fits the prior without its ln(d) term and keeps the fit of the higher log
// marginal likelihood. On a function that varies quickly along every axis (short lengthscales)
// the location 0 is chosen; on a linear one (long lengthscales) ln(d)/2 (the log marginal
// likelihoods differ by 0.7 and 0.5 nats, printed by the test). The chosen fit equals
// the fit made with that prior alone. The key (off by default) round-trips through a config and
// a state.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "gpbandit/optimizer/optimizer.hpp"

namespace {

using gpb::Optimizer;
using gpb::OptimizerOptions;

constexpr int kDim = 8;
constexpr int kPoints = 60;

/// The fitted lengthscales (unit box) and the log marginal likelihood after one fit to y = f(x)
/// at kPoints uniform points of [0, 1]^8 (std::mt19937's words, seeded 1, over 2^32).
struct Fitted {
  Eigen::VectorXd lengthscales;
  double log_likelihood = 0;
};

Fitted fit_with(double (*f)(const Eigen::VectorXd&), const std::string& fit_keys) {
  const OptimizerOptions o = gpb::parse_optimizer_config(
      R"({"domain": {"type": "box", "lower": [0, 0, 0, 0, 0, 0, 0, 0],
                     "upper": [1, 1, 1, 1, 1, 1, 1, 1], "candidates": 64},
          "goal": "minimize", "fit": {"every": 0, )" +
          fit_keys + R"(}, "backend": "cpu"})",
      "cfg.json", ".");
  Optimizer opt(o);
  Eigen::MatrixXd x(kPoints, kDim);
  std::vector<double> y;
  std::mt19937 words(1);
  for (int i = 0; i < kPoints; ++i) {
    for (int j = 0; j < kDim; ++j) x(i, j) = words() / 4294967296.0;
    y.push_back(f(x.row(i).transpose()));
  }
  opt.tell(x, y);
  const gpb::HyperFit res = opt.fit_hyperparameters();
  return {opt.kernel().lengthscales(), res.log_likelihood};
}

double wiggly(const Eigen::VectorXd& x) {  // fitted ln l mostly below 0 (unit box)
  return x.unaryExpr([](double v) { return std::sin(8.0 * v); }).sum();
}
double linear(const Eigen::VectorXd& x) {  // lengthscales of several boxes
  return x.sum();
}

/// Which prior the selecting fit took: 0 for the d-independent location, 1 for ln(d)/2 (the
/// default), −1 for neither (its lengthscales match neither single-prior fit).
int chosen(double (*f)(const Eigen::VectorXd&)) {
  const Fitted sel = fit_with(f, R"("lengthscale_prior_select": true)");
  const Fitted flat =
      fit_with(f, R"("lengthscale_prior_log_d": 0, "lengthscale_prior_select": false)");
  const Fitted dflt =
      fit_with(f, R"("lengthscale_prior_log_d": 0.5, "lengthscale_prior_select": false)");
  EXPECT_GT((flat.lengthscales - dflt.lengthscales).norm(), 1e-3 * dflt.lengthscales.norm())
      << "the two priors give the same fit: the test cannot tell them apart";
  // The selection keeps the higher log marginal likelihood of the two.
  EXPECT_DOUBLE_EQ(sel.log_likelihood, std::max(flat.log_likelihood, dflt.log_likelihood));
  std::printf("log marginal likelihood: location 0 %.4f, ln(d)/2 %.4f\n", flat.log_likelihood,
              dflt.log_likelihood);
  const double tol = 1e-9 * sel.lengthscales.norm();
  if ((sel.lengthscales - flat.lengthscales).norm() <= tol) return 0;
  if ((sel.lengthscales - dflt.lengthscales).norm() <= tol) return 1;
  return -1;
}

TEST(OptimizerPriorSelect, ShortLengthscalesChooseTheLocationWithoutLnD) {
  EXPECT_EQ(chosen(wiggly), 0);
}

TEST(OptimizerPriorSelect, LongLengthscalesKeepTheLnDLocation) {
  EXPECT_EQ(chosen(linear), 1);
}

TEST(OptimizerPriorSelect, KeyRoundTripsThroughTheState) {
  for (const bool select : {false, true}) {
    const OptimizerOptions o = gpb::parse_optimizer_config(
        R"({"domain": {"type": "box", "lower": [0, 0], "upper": [1, 1], "candidates": 16},
            "fit": {"lengthscale_prior_select": )" +
            std::string(select ? "true" : "false") + R"(}, "backend": "cpu"})",
        "cfg.json", ".");
    EXPECT_EQ(o.fit.lengthscale_prior_select, select);
    const Optimizer opt(o);
    const std::string saved = opt.dumps();
    EXPECT_EQ(nlohmann::json::parse(saved)["config"]["fit"]["lengthscale_prior_select"].get<bool>(),
              select);
    EXPECT_EQ(Optimizer::loads(saved).options().fit.lengthscale_prior_select, select);
  }
}

TEST(OptimizerPriorSelect, OffByDefault) {
  const OptimizerOptions o = gpb::parse_optimizer_config(
      R"({"domain": {"type": "box", "lower": [0, 0], "upper": [1, 1], "candidates": 16},
          "backend": "cpu"})",
      "cfg.json", ".");
  EXPECT_FALSE(o.fit.lengthscale_prior_select);
  EXPECT_FALSE(gpb::FitOptions().lengthscale_prior_select);
}

TEST(OptimizerPriorSelect, ANonBooleanValueIsRefusedNamingTheKey) {
  try {
    gpb::parse_optimizer_config(
        R"({"domain": {"type": "box", "lower": [0], "upper": [1], "candidates": 8},
            "fit": {"lengthscale_prior_select": 1}})",
        "cfg.json", ".");
    FAIL() << "accepted a number";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("fit.lengthscale_prior_select"), std::string::npos)
        << e.what();
  }
}

}  // namespace
