// gpb::Optimizer: ask/tell against the GP-UCB and GP-BUCB policies (same choices), tells of any
// points in any order, predictions against a dense GP solve, save → load → continue equal to an
// uninterrupted run (JSON and .npz), and bad input.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "gpbandit/policy/policy.hpp"
#include "test_support.hpp"

namespace {

using gpb::Optimizer;
using gpb::OptimizerOptions;

using gpb::test::contains;
const auto& error_of = gpb::test::invalid_argument_of;

/// A smooth test function of a 2-d point with a little deterministic "noise".
double f2(const double* x, int salt) {
  return std::sin(5 * x[0]) * std::cos(3 * x[1]) + 0.5 * x[0] + 0.01 * std::sin(97.0 * salt);
}

OptimizerOptions grid_options(std::uint64_t seed) {
  OptimizerOptions o;
  o.domain = gpb::DomainSpec::grid({0, 0}, {1, 1}, {25, 20});
  o.kernel = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.25);
  o.noise_variance = 0.01;
  o.seed = seed;
  o.context.backend = gpb::Backend::Cpu;
  o.acquisition.beta.scale = 0.2;  // narrow widths: the mean matters, not only σ
  o.fit.every = 0;                 // the kernel as given, y as told: the policies' model
  o.fit.normalize = false;
  return o;
}

TEST(Optimizer, AskTellMatchesTheGpUcbPolicy) {
  OptimizerOptions o = grid_options(7);
  Optimizer opt(o);
  const gpb::Context ctx = gpb::test::make_cpu_context();
  const gpb::Domain dom = o.domain.build();
  auto policy = gpb::make_gp_ucb(gpb::test::policy_env(ctx, dom, o.kernel, 1, 40, 7, 0.01),
                                 o.acquisition.beta);
  const auto chosen =
      gpb::test::play(*policy, 1, 40, [&](int, int j) { return f2(dom.point(j), j); });
  for (int t = 0; t < 40; ++t) {
    const gpb::AskResult a = opt.ask();
    ASSERT_EQ(a.indices.size(), 1u);
    EXPECT_EQ(a.indices[0], chosen[0][static_cast<std::size_t>(t)]) << "round " << t;
    EXPECT_EQ(a.points(0, 0), dom.point(a.indices[0])[0]);
    opt.tell(a.indices, {f2(dom.point(a.indices[0]), a.indices[0])});
  }
}

TEST(Optimizer, BatchAsksMatchTheGpBucbPolicy) {
  for (const bool distinct : {false, true}) {
    OptimizerOptions o = grid_options(3);
    o.distinct = distinct;
    Optimizer opt(o);
    const gpb::Context ctx = gpb::test::make_cpu_context();
    const gpb::Domain dom = o.domain.build();
    auto policy = gpb::make_batch_gp_ucb(gpb::test::policy_env(ctx, dom, o.kernel, 1, 30, 3, 0.01),
                                         o.acquisition.beta, 3, distinct);
    const auto chosen =
        gpb::test::play(*policy, 1, 30, [&](int, int j) { return f2(dom.point(j), j); });
    for (int b = 0; b < 10; ++b) {
      const gpb::AskResult a = opt.ask(3);
      std::vector<double> y;
      for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(a.indices[static_cast<std::size_t>(i)],
                  chosen[0][static_cast<std::size_t>(3 * b + i)])
            << "batch " << b << " point " << i << " distinct " << distinct;
        y.push_back(f2(dom.point(a.indices[static_cast<std::size_t>(i)]),
                       a.indices[static_cast<std::size_t>(i)]));
      }
      // Told in reverse order: the optimizer matches each value to its pending row.
      opt.tell({a.indices[2], a.indices[1], a.indices[0]}, {y[2], y[1], y[0]});
    }
  }
}

/// The posterior mean and variance of GP(0, k) with noise λ given (X, y) at the rows of Q.
void dense_gp(const gpb::Kernel& k, double lambda, const Eigen::MatrixXd& X,
              const Eigen::VectorXd& y, const Eigen::MatrixXd& Q, Eigen::VectorXd& mean,
              Eigen::VectorXd& var) {
  const gpb::Context ctx = gpb::test::make_cpu_context();
  Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, X.transpose(), X.transpose());
  K.diagonal().array() += lambda;
  const Eigen::MatrixXd Ks = gpb::kernel_matrix(ctx, k, X.transpose(), Q.transpose());
  const Eigen::LLT<Eigen::MatrixXd> llt(K);
  mean = Ks.transpose() * llt.solve(y);
  const Eigen::MatrixXd W = llt.matrixL().solve(Ks);
  var = gpb::kernel_diag(ctx, k, Q.transpose()) - W.colwise().squaredNorm().transpose();
}

TEST(Optimizer, SetAcquisitionRulesLaterAsksIsSavedAndRefusesBadRules) {
  // Two optimizers told the same 15 points; one switches to UCB with a constant β of 1e-8 (the
  // posterior mean, minimize's exploit_last) and asks the argmax of μ over the candidates, which
  // the default rule (Srinivas' width) does not choose here.
  OptimizerOptions o = grid_options(3);
  Optimizer mean_rule(o), default_rule(o);
  const gpb::Domain dom = o.domain.build();
  for (int j = 0; j < 500; j += 33) {
    mean_rule.tell({j}, {f2(dom.point(j), j)});
    default_rule.tell({j}, {f2(dom.point(j), j)});
  }
  gpb::AcquisitionOptions greedy;
  greedy.kind = gpb::AcquisitionKind::Ucb;
  greedy.beta.kind = gpb::BetaSchedule::Kind::Constant;
  greedy.beta.value = 1e-8;
  mean_rule.set_acquisition(greedy);
  Eigen::Index best = 0;
  mean_rule.predict_candidates().mean.maxCoeff(&best);
  const std::string saved = mean_rule.dumps();
  EXPECT_EQ(mean_rule.ask().indices[0], static_cast<int>(best));
  EXPECT_NE(default_rule.ask().indices[0], static_cast<int>(best));  // the switch matters
  const Optimizer loaded = Optimizer::loads(saved);
  EXPECT_EQ(loaded.options().acquisition.beta.kind, gpb::BetaSchedule::Kind::Constant);
  EXPECT_EQ(loaded.options().acquisition.beta.value, 1e-8);
  // A bad rule is one message and changes nothing.
  gpb::AcquisitionOptions bad = greedy;
  bad.kind = gpb::AcquisitionKind::ExpectedImprovement;
  bad.xi = -1;
  EXPECT_TRUE(contains(error_of([&] { mean_rule.set_acquisition(bad); }), "acquisition.xi"));
  EXPECT_EQ(mean_rule.options().acquisition.kind, gpb::AcquisitionKind::Ucb);
  EXPECT_EQ(mean_rule.options().acquisition.beta.value, 1e-8);
}

TEST(Optimizer, TellsAnyPointsInAnyOrderAndPredictsAnywhere) {
  OptimizerOptions o = grid_options(1);
  o.minimize = true;
  Optimizer opt(o);
  const gpb::AskResult a = opt.ask(4);  // four pending rows
  EXPECT_EQ(opt.pending().size(), 4u);
  // Answer two of them by point, plus a point off the grid and a grid point never asked.
  Eigen::MatrixXd pts(4, 2);
  pts.row(0) = a.points.row(2);
  pts.row(1) << 0.3141, 0.2718;  // off the candidate set
  pts.row(2) = a.points.row(0);
  pts.row(3) = opt.domain().points().col(17).transpose();
  std::vector<double> y;
  for (int i = 0; i < 4; ++i) {
    const Eigen::Vector2d x = pts.row(i).transpose();
    y.push_back(f2(x.data(), i));
  }
  opt.tell(pts, y);
  EXPECT_EQ(opt.num_observations(), 4);
  EXPECT_EQ(opt.pending(), (std::vector<int>{a.indices[1], a.indices[3]}));
  EXPECT_EQ(opt.observed_indices(), (std::vector<int>{a.indices[2], -1, a.indices[0], 17}));
  // A further ask hallucinates the two still pending and never returns them (distinct).
  const gpb::AskResult b = opt.ask(2);
  for (int j : b.indices) {
    EXPECT_NE(j, a.indices[1]);
    EXPECT_NE(j, a.indices[3]);
  }
  // predict() conditions on the four observations only (sign flipped back: minimize).
  Eigen::MatrixXd Q(5, 2);
  Q << 0.5, 0.5, 0.3141, 0.2718, 0.0, 1.0, 0.9, 0.1, 0.33, 0.66;
  const gpb::Prediction p = opt.predict(Q);
  Eigen::VectorXd mean, var;
  dense_gp(o.kernel, o.noise_variance, pts, Eigen::Map<const Eigen::VectorXd>(y.data(), 4), Q, mean,
           var);
  EXPECT_LE((p.mean - mean).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LE((p.variance - var).cwiseAbs().maxCoeff(), 1e-10);
  // The best observation is the smallest y.
  const gpb::BestObservation best = opt.best();
  EXPECT_EQ(best.value, *std::min_element(y.begin(), y.end()));
  // Candidates: predictions equal predict() at the candidate points.
  const gpb::Prediction all = opt.predict_candidates();
  const gpb::Prediction some = opt.predict(opt.domain().points().leftCols(30).transpose());
  EXPECT_LE((all.mean.head(30) - some.mean).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((all.variance.head(30) - some.variance).cwiseAbs().maxCoeff(), 1e-12);
}

/// Plays `rounds` rounds of a fixed mixed schedule: single asks, batches told in pieces and out
/// of order, points off the grid, unasked grid points; returns every candidate asked for.
std::vector<int> play_schedule(Optimizer& opt, int first, int rounds) {
  std::vector<int> asked;
  for (int r = first; r < first + rounds; ++r) {
    const int q = r % 4 == 1 ? 3 : 1;
    const gpb::AskResult a = opt.ask(q);
    asked.insert(asked.end(), a.indices.begin(), a.indices.end());
    std::vector<int> idx = a.indices;
    std::vector<double> y;
    for (int j : idx) y.push_back(f2(opt.domain().point(j), j + r));
    if (q == 3) {  // the last point first, then the others in a later round
      opt.tell({idx[2]}, {y[2]});
      const gpb::AskResult extra = opt.ask();  // asked while two are still pending
      asked.push_back(extra.indices[0]);
      opt.tell({idx[0], extra.indices[0], idx[1]},
               {y[0], f2(opt.domain().point(extra.indices[0]), 1000 + r), y[1]});
    } else {
      opt.tell(idx, y);
    }
    if (r % 5 == 3) {  // a point off the grid
      Eigen::MatrixXd x(1, 2);
      x << 0.01 * r, 1.0 - 0.013 * r;
      const Eigen::Vector2d xv = x.row(0).transpose();
      opt.tell(x, {f2(xv.data(), r)});
    }
  }
  return asked;
}

TEST(Optimizer, SaveLoadContinueEqualsAnUninterruptedRun) {
  gpb::test::TempDir dir;
  for (const char* name : {"state.json", "state.npz"}) {
    for (const auto kind : {gpb::AcquisitionKind::Ucb, gpb::AcquisitionKind::Thompson,
                            gpb::AcquisitionKind::ExpectedImprovement}) {
      OptimizerOptions o = grid_options(11);
      o.acquisition.kind = kind;
      o.fit.every = 6;  // refits on the way (seeded, deterministic)
      o.fit.restarts = 1;
      Optimizer straight(o);
      const std::vector<int> want = play_schedule(straight, 0, 16);
      const std::vector<int> tail = play_schedule(straight, 16, 8);

      Optimizer first(o);
      EXPECT_EQ(play_schedule(first, 0, 16), want);
      const std::string path = dir.file(name);
      first.save(path);
      Optimizer loaded = Optimizer::load(path);
      EXPECT_EQ(loaded.dumps(), first.dumps());
      // Bit-identical posterior: the same predictions at the candidates.
      const gpb::Prediction pa = first.predict_candidates(), pb = loaded.predict_candidates();
      EXPECT_EQ(pa.mean, pb.mean);
      EXPECT_EQ(pa.variance, pb.variance);
      EXPECT_EQ(play_schedule(loaded, 16, 8), tail)
          << name << " " << gpb::acquisition_kind_name(kind);
      EXPECT_EQ(loaded.fits(), straight.fits());
      EXPECT_GE(loaded.fits(), 3);
      EXPECT_EQ(loaded.last_fit_error(), "");
    }
  }
}

TEST(Optimizer, NpzHoldsNumpyArrays) {
  gpb::test::TempDir dir;
  Optimizer opt(grid_options(2));
  const gpb::AskResult a = opt.ask(2);
  opt.tell(a.indices, {1.5, -2.0});
  opt.save(dir.file("s.npz"));
  const std::string bytes = gpb::test::read_file(dir.file("s.npz"));
  for (const char* member :
       {"state.npy", "observed_x.npy", "observed_y.npy", "observed_index.npy", "candidates.npy"}) {
    EXPECT_TRUE(contains(bytes, member)) << member;
  }
  EXPECT_TRUE(contains(bytes, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"));
  EXPECT_TRUE(contains(bytes, "{'descr': '<f8', 'fortran_order': False, 'shape': (500, 2), }"));
  EXPECT_EQ(Optimizer::load(dir.file("s.npz")).observed_values(), (std::vector<double>{1.5, -2.0}));
}

TEST(Optimizer, BadInputIsOneClearMessageAndChangesNothing) {
  Optimizer opt(grid_options(5));
  const std::string before = opt.dumps();
  EXPECT_TRUE(contains(error_of([&] { opt.tell({0, 500}, {1.0, 2.0}); }), "index[1] = 500"));
  EXPECT_TRUE(contains(error_of([&] { opt.tell({0, 1}, {1.0, NAN}); }), "y[1]"));
  EXPECT_TRUE(contains(error_of([&] { opt.tell({0}, {1.0, 2.0}); }), "1 indices but 2 values"));
  EXPECT_TRUE(contains(error_of([&] {
                         opt.tell(Eigen::MatrixXd::Zero(2, 3), {1.0, 2.0});
                       }),
                       "3 coordinates"));
  EXPECT_TRUE(contains(error_of([&] { opt.ask(0); }), "q must be in [1, N = 500]"));
  EXPECT_TRUE(
      contains(error_of([&] { opt.predict(Eigen::MatrixXd::Zero(1, 3)); }), "3 coordinates"));
  EXPECT_TRUE(contains(error_of([&] { opt.best(); }), "no observation"));
  EXPECT_TRUE(contains(error_of([&] { opt.fit_hyperparameters(); }), "at least 2 observations"));
  EXPECT_EQ(opt.dumps(), before);
  opt.ask(498);
  EXPECT_TRUE(contains(error_of([&] { opt.ask(3); }), "only 2 of the 500"));
  OptimizerOptions bad = grid_options(1);
  bad.kernel = gpb::Kernel::ard(gpb::KernelType::SE, Eigen::Vector3d(1, 1, 1));
  EXPECT_TRUE(contains(error_of([&] { Optimizer x(bad); }), "3 values (ARD)"));
  EXPECT_TRUE(contains(error_of([] { Optimizer::loads("{\"format\": \"x\"}"); }),
                       "not a gpbandit optimizer state"));
  std::string broken = opt.dumps();
  broken.replace(broken.find("\"log\":["), 7, "\"log\":[[\"o\",99],");
  EXPECT_TRUE(contains(error_of([&] { Optimizer::loads(broken); }), "posterior.log"));
}

TEST(OptimizerConfig, ParsesEveryKeyAndNamesTheBadField) {
  const OptimizerOptions o = gpb::parse_optimizer_config(
      R"({"domain": {"type": "sobol", "lower": [0, 0], "upper": [1, 2], "count": 64, "seed": 3},
          // comments are allowed
          "kernel": {"type": "matern32", "lengthscale": [0.2, 0.4], "variance": 2},
          "noise_variance": 0.05, "goal": "minimize", "initial_points": 4, "seed": 9,
          "acquisition": {"type": "ucb", "beta": {"type": "igp_ucb", "B": 2, "R": 0.3}},
          "fit": {"every": 3, "ard": false}, "backend": "cpu"})",
      "cfg.json", ".");
  EXPECT_EQ(o.domain.kind, gpb::DomainSpec::Kind::Sobol);
  EXPECT_EQ(o.domain.count, 64);
  EXPECT_EQ(o.kernel.lengthscales(), Eigen::Vector2d(0.2, 0.4));
  EXPECT_EQ(o.acquisition.beta.kind, gpb::BetaSchedule::Kind::IgpUcb);
  EXPECT_EQ(o.acquisition.beta.rkhs_bound, 2.0);
  EXPECT_TRUE(o.minimize);
  EXPECT_EQ(o.fit.every, 3);
  EXPECT_FALSE(o.fit.ard);
  EXPECT_EQ(o.context.memory_budget_bytes, 0u);  // automatic unless given
  const auto bad = [](const std::string& body) {
    return error_of([&] {
      gpb::parse_optimizer_config(
          R"({"domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [5]}, )" + body +
              "}",
          "cfg.json", ".");
    });
  };
  EXPECT_EQ(bad(R"("acquisition": {"type": "ucb", "beta": {"type": "srinivass"}})"),
            "cfg.json: acquisition.beta.type: expected srinivas, igp_ucb or constant, got "
            "'srinivass'");
  EXPECT_TRUE(contains(bad(R"("acquisition": {"type": "pj"})"), "cfg.json: acquisition.type"));
  EXPECT_TRUE(contains(bad(R"("memory_budget_mb": 0)"), "cfg.json: memory_budget_mb"));
  EXPECT_TRUE(contains(bad(R"("fit": {"evry": 2})"), "unknown key 'evry'"));
  EXPECT_TRUE(contains(bad(R"("fit": {"lengthscale_prior_scale": 0})"),
                       "cfg.json: fit.lengthscale_prior_scale: must be in (0, 100]"));
  EXPECT_TRUE(contains(bad(R"("fit": {"lengthscale_prior_loc": 1e9})"),
                       "cfg.json: fit.lengthscale_prior_loc"));
}

TEST(OptimizerConfig, LengthscalePriorRoundTripsAndOldStatesKeepTheirPrior) {
  const OptimizerOptions o = gpb::parse_optimizer_config(
      R"({"domain": {"type": "box", "lower": [0, 0], "upper": [1, 2], "candidates": 64},
          "fit": {"lengthscale_prior_loc": -0.5, "lengthscale_prior_log_d": 0.25,
                  "lengthscale_prior_scale": 2}, "backend": "cpu"})",
      "cfg.json", ".");
  EXPECT_EQ(o.fit.lengthscale_prior_loc, -0.5);
  EXPECT_EQ(o.fit.lengthscale_prior_log_d, 0.25);
  EXPECT_EQ(o.fit.lengthscale_prior_scale, 2.0);
  Optimizer opt(o);
  Eigen::MatrixXd x(1, 2);  // one point per row
  x << 0.3, 0.7;
  opt.tell(x, {1.0});
  const Optimizer back = Optimizer::loads(opt.dumps());
  EXPECT_EQ(back.options().fit.lengthscale_prior_loc, -0.5);
  EXPECT_EQ(back.options().fit.lengthscale_prior_scale, 2.0);
  // A state written before the prior was configurable has no such keys: it keeps the prior it
  // was fitted with (√2 + ln(d)/2, scale √3), whatever the defaults are now.
  std::string old = opt.dumps();
  for (const std::string key :
       {"lengthscale_prior_loc", "lengthscale_prior_log_d", "lengthscale_prior_scale"}) {
    const auto at = old.find("\"" + key + "\":");
    ASSERT_NE(at, std::string::npos) << key;
    const auto end = old.find_first_of(",}", at);
    old.erase(at, end - at + (old[end] == ',' ? 1 : 0));
  }
  const Optimizer legacy = Optimizer::loads(old);
  EXPECT_DOUBLE_EQ(legacy.options().fit.lengthscale_prior_loc, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(legacy.options().fit.lengthscale_prior_log_d, 0.5);
  EXPECT_DOUBLE_EQ(legacy.options().fit.lengthscale_prior_scale, std::sqrt(3.0));
}

}  // namespace
