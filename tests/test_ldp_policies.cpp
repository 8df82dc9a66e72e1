// The heavy-tailed / LDP policies (specs/ldp-bo.md §3.5–3.7, §4, F4, F5, F8): presets, truncation
// rules, MoMA's median-of-means, ATA's history truncation, and reductions to the non-private twins.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/policy/policy.hpp"
#include "policy/ldp_presets.hpp"
#include "policy/tgp_ucb.hpp"
#include "test_support.hpp"

namespace {

using gpb::HeavyTailedOptions;
using Preset = HeavyTailedOptions::Preset;

gpb::PolicyEnv make_env(const gpb::Context& ctx, const gpb::Domain& domain, const gpb::Kernel& k,
                        int runs, int horizon) {
  gpb::PolicyEnv env = gpb::test::policy_env(ctx, domain, k, runs, horizon, 11, 1.0);
  env.f_sup.assign(static_cast<std::size_t>(runs), 1.0);
  env.instance.noise_bound = 1.0;
  env.instance.noise_moment = 1.0 / 3.0;
  return env;
}

/// Plays `policy` for T evaluations; rewards f[arm] + U[−1,1] from a fixed std::mt19937 stream.
/// Returns the chosen arms of each run.
std::vector<std::vector<int>> drive(gpb::Policy& policy, const Eigen::VectorXd& f, int runs, int T,
                                    unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  return gpb::test::play(policy, runs, T, [&](int, int a) { return f[a] + u(gen); });
}

// ------------------------------------------------------------------ §4 presets

TEST(LdpPresets, MomaGroupsEpochsLeftoverAndQMatchTheSpecTable) {
  struct Row {
    int T, k_th, ep_th, left_th, k_pr, ep_pr, left_pr;
    double q_th, q_pr;
  };
  const Row rows[] = {{1000, 279, 3, 163, 12, 83, 4, 7770.9, 690.8},
                      {10000, 334, 29, 314, 14, 714, 4, 9459.4, 921.0},
                      {20000, 351, 56, 344, 15, 1333, 5, 9967.7, 990.3},
                      {100000, 389, 257, 27, 17, 5882, 6, 11148.0, 1151.3}};
  for (const Row& r : rows) {
    const int kt = gpb::detail::moma_groups(Preset::Theory, r.T, 0.1);
    const int kp = gpb::detail::moma_groups(Preset::Practical, r.T, 0.1);
    EXPECT_EQ(kt, r.k_th) << r.T;
    EXPECT_EQ(r.T / kt, r.ep_th) << r.T;
    EXPECT_EQ(r.T - (r.T / kt) * kt, r.left_th) << r.T;
    EXPECT_EQ(kp, r.k_pr) << r.T;
    EXPECT_EQ(r.T / kp, r.ep_pr) << r.T;
    EXPECT_EQ(r.T - (r.T / kp) * kp, r.left_pr) << r.T;
    EXPECT_NEAR(gpb::detail::nystrom_q(Preset::Theory, r.T, 0.1, 0.1), r.q_th, 0.06) << r.T;
    EXPECT_NEAR(gpb::detail::nystrom_q(Preset::Practical, r.T, 0.1, 0.1), r.q_pr, 0.06) << r.T;
  }
}

TEST(LdpPresets, LdpMomentsAndTheKIdentity) {
  const gpb::Context ctx;
  const auto domain = gpb::Domain::grid({0}, {1}, {5});
  auto env = make_env(ctx, domain, gpb::Kernel::se(0.2), 1, 10);
  env.f_sup = {2.0};
  HeavyTailedOptions o;
  o.ldp = true;
  o.epsilon = 0.5;
  const auto k = gpb::detail::run_constants(env, o, 0);  // practical → empirical
  const double L = 2.0 * (2.0 + 1.0) / 0.5;
  EXPECT_DOUBLE_EQ(k.L, L);
  EXPECT_DOUBLE_EQ(k.v, 4.0 + 1.0 / 3.0 + 2 * L * L);
  EXPECT_DOUBLE_EQ(k.c, 1.0 / 3.0 + 2 * L * L);
  // F3: 8(B+R)²/ϵ² = 2𝓛², so the paper's v = B² + R² + 8(B+R)²/ϵ² equals 𝖪.
  EXPECT_NEAR(k.K, 4.0 + 1.0 + 8.0 * 9.0 / 0.25, 1e-9);
  o.preset = Preset::Theory;  // → bound
  const auto kb = gpb::detail::run_constants(env, o, 0);
  EXPECT_DOUBLE_EQ(kb.v, kb.K);
  EXPECT_DOUBLE_EQ(kb.c, 1.0 + 2 * L * L);
  // Non-private synthetic Student-t₃: v = B² + 3, c = 3.
  env.instance.noise_moment = 3.0;
  HeavyTailedOptions np;
  const auto kn = gpb::detail::run_constants(env, np, 0);
  EXPECT_DOUBLE_EQ(kn.v, 7.0);
  EXPECT_DOUBLE_EQ(kn.c, 3.0);
}

TEST(LdpPresets, MissingOrBadConstantsAreInvalidArguments) {
  const gpb::Context ctx;
  const auto domain = gpb::Domain::grid({0}, {1}, {5});
  auto env = make_env(ctx, domain, gpb::Kernel::se(0.2), 1, 10);
  env.instance.noise_bound = std::numeric_limits<double>::infinity();
  HeavyTailedOptions o;
  o.ldp = true;
  EXPECT_THROW(gpb::detail::run_constants(env, o, 0), gpb::InvalidArgument);  // R unbounded
  o.R = 1.0;
  EXPECT_NO_THROW(gpb::detail::run_constants(env, o, 0));
  o.epsilon = 0.0;
  EXPECT_THROW(gpb::detail::validate_options(o), gpb::InvalidArgument);
  o.epsilon = 1.0;
  o.B = -1.0;
  EXPECT_THROW(gpb::detail::validate_options(o), gpb::InvalidArgument);
}

// ------------------------------------------------------------------ F5 MoMA selection

TEST(MomaSelect, LowerMedianAndMidpoint) {
  EXPECT_DOUBLE_EQ(gpb::detail::median_of({4, 1, 3, 2}, false), 2.0);
  EXPECT_DOUBLE_EQ(gpb::detail::median_of({4, 1, 3, 2}, true), 2.5);
  EXPECT_DOUBLE_EQ(gpb::detail::median_of({5, 1, 3}, false), 3.0);
  EXPECT_DOUBLE_EQ(gpb::detail::median_of({5, 1, 3}, true), 3.0);
}

TEST(MomaSelect, IdenticalReplicatesPickTheFirst) {
  Eigen::MatrixXd w(3, 6);
  for (int j = 0; j < 6; ++j) w.col(j) << 0.5, -1.25, 2.0;
  EXPECT_EQ(gpb::detail::moma_select(w, false), 0);  // k* = 1 (1-based)
  EXPECT_EQ(gpb::detail::moma_select(w, true), 0);
}

TEST(MomaSelect, AnOutlierInReplicateOneMovesTheChoiceToTwo) {
  Eigen::MatrixXd w(3, 5);
  for (int j = 0; j < 5; ++j) w.col(j) << 0.5, -1.25, 2.0;
  w(0, 0) += 1e6;
  EXPECT_EQ(gpb::detail::moma_select(w, false), 1);  // k* = 2 (1-based)
}

TEST(MomaSelect, PlantedGoodEstimatorAmongNoisyOnes) {
  // Column 3 sits at the centre of the others: its median distance is the smallest.
  Eigen::MatrixXd w(2, 5);
  w << 1, -1, 0, 0.1, 0,  //
      0, 0, 1, 0, -1;
  EXPECT_EQ(gpb::detail::moma_select(w, false), 3);
}

// ------------------------------------------------------------------ F4 ATA truncation

TEST(AtaTruncation, HandComputedLineSeven) {
  Eigen::MatrixXd g(2, 3);
  g << 1, 0.5, 2,  //
      -1, 1, 0.1;
  const std::vector<int> arms = {0, 1, 0, 2};
  const std::vector<double> y = {1, -3, 2, 0.5};
  gpb::detail::AtaHistory h(3);
  for (std::size_t i = 0; i < arms.size(); ++i) h.add(arms[i], y[i], 1.5);
  // row 0: 1·1 + 0.5·(−3) [|−1.5| ≤ 1.5] + (1·2 dropped) + 2·0.5 = 0.5
  // row 1: −1·1 + (1·(−3) dropped) + (−1·2 dropped) + 0.1·0.5 = −0.95
  const Eigen::VectorXd fast = h.rhat(g, 1.5);
  const Eigen::VectorXd naive = gpb::detail::ata_rhat_naive(g, arms, y, 1.5);
  EXPECT_DOUBLE_EQ(fast(0), 0.5);
  EXPECT_DOUBLE_EQ(fast(1), -0.95);
  EXPECT_DOUBLE_EQ(naive(0), 0.5);
  EXPECT_DOUBLE_EQ(naive(1), -0.95);
  // Per-sample levels: sample τ is kept iff |G·y| ≤ b_τ.
  gpb::detail::AtaHistory hp(3);
  const std::vector<double> lv = {0.5, 3.0, 2.0, 0.01};
  for (std::size_t i = 0; i < arms.size(); ++i) hp.add(arms[i], y[i], lv[i]);
  const Eigen::VectorXd ps = hp.rhat_per_sample(g);
  EXPECT_DOUBLE_EQ(ps(0), -1.5 + 2.0);  // τ0 dropped (1 > 0.5), τ3 dropped (1 > 0.01)
  EXPECT_DOUBLE_EQ(ps(1), -3.0 - 2.0);  // τ0 dropped, τ1 −3 kept, τ2 −2 kept, τ3 0.05 dropped
}

TEST(AtaTruncation, SortedPrefixSumsEqualTheBruteForceLoop) {
  std::mt19937_64 gen(3);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::uniform_int_distribution<int> arm(0, 19);
  const int n = 20, m = 7;
  Eigen::MatrixXd g(m, n);
  for (int i = 0; i < m; ++i)
    for (int a = 0; a < n; ++a) g(i, a) = nd(gen);
  gpb::detail::AtaHistory h(n);
  std::vector<int> arms;
  std::vector<double> y;
  for (int t = 0; t < 2000; ++t) {
    arms.push_back(arm(gen));
    y.push_back(3.0 * nd(gen) * std::abs(nd(gen)));  // heavy-ish tails
    h.add(arms.back(), y.back(), 0.0);
  }
  for (double b : {0.1, 1.0, 3.0, 1e9}) {
    const Eigen::VectorXd fast = h.rhat(g, b);
    const Eigen::VectorXd naive = gpb::detail::ata_rhat_naive(g, arms, y, b);
    for (int i = 0; i < m; ++i) EXPECT_NEAR(fast(i), naive(i), 1e-9 * (1 + std::abs(naive(i))));
  }
}

// ------------------------------------------------------------------ F4 TGP truncation

TEST(TgpTruncation, LdpLevelStartsAtBPlusRAndZeroesOnce) {
  const gpb::Context ctx;
  const auto domain = gpb::Domain::grid({0}, {1}, {10});
  const auto env = make_env(ctx, domain, gpb::Kernel::se(0.3), 2, 10);
  HeavyTailedOptions o;
  o.ldp = true;
  o.epsilon = 1.0;  // B = R = 1 → 𝓛 = 4, b_1 = 2, b_2 = 2 + 4 ln 2
  gpb::detail::TgpUcb p(env, o);
  EXPECT_DOUBLE_EQ(p.constants(0).L, 4.0);
  EXPECT_DOUBLE_EQ(gpb::detail::tgp_level(o, p.constants(0), 1), 2.0);
  gpb::Selection s;
  s.runs = 2;
  s.q = 1;
  s.chosen = {3, 3};
  p.observe(s, gpb::Rewards{{2.5, 2.0}});   // t = 1: |2.5| > 2 → 0; |2.0| ≤ 2 kept
  p.observe(s, gpb::Rewards{{4.7, -4.8}});  // t = 2: b = 4.7726
  s.chosen = {5, 6};
  p.observe(s, gpb::Rewards{{-100.0, 0.25}});  // t = 3
  EXPECT_EQ(p.fed(0), (std::vector<double>{0.0, 4.7, 0.0}));
  EXPECT_EQ(p.fed(1), (std::vector<double>{2.0, 0.0, 0.25}));
  // The GP saw exactly ŷ: compare with a posterior fed the same values.
  gpb::PosteriorOptions po;
  po.noise_variance = 1.0;
  po.capacity = 10;
  gpb::FinitePosterior ref(ctx, env.kernel, domain, 2, po);
  const int i1[] = {3, 3}, i3[] = {5, 6};
  const double y1[] = {0.0, 2.0}, y2[] = {4.7, 0.0}, y3[] = {0.0, 0.25};
  ref.observe(i1, y1);
  ref.observe(i1, y2);
  ref.observe(i3, y3);
  for (int r = 0; r < 2; ++r)
    for (int a = 0; a < 10; ++a) EXPECT_EQ(ref.mean(r)[a], p.posterior().mean(r)[a]);
}

TEST(TgpTruncation, NonPrivateLevelIsVRootTimesQuarterPowerOfT) {
  const gpb::Context ctx;
  const auto domain = gpb::Domain::grid({0}, {1}, {10});
  const auto env = make_env(ctx, domain, gpb::Kernel::se(0.3), 1, 20);
  HeavyTailedOptions o;
  o.v = 4.0;  // b_t = 2·t^{1/4}
  gpb::detail::TgpUcb p(env, o);
  EXPECT_DOUBLE_EQ(gpb::detail::tgp_level(o, p.constants(0), 1), 2.0);
  EXPECT_DOUBLE_EQ(gpb::detail::tgp_level(o, p.constants(0), 16), 4.0);
  gpb::Selection s;
  s.runs = 1;
  s.q = 1;
  s.chosen = {0};
  p.observe(s, gpb::Rewards{{2.0}});   // kept (≤)
  p.observe(s, gpb::Rewards{{-2.3}});  // b_2 = 2.378 → kept
  p.observe(s, gpb::Rewards{{2.64}});  // b_3 = 2.632 → 0
  EXPECT_EQ(p.fed(0), (std::vector<double>{2.0, -2.3, 0.0}));
}

// ------------------------------------------------------------------ γ̂ only when the width reads it

TEST(TgpGamma, InformationGainIsAskedForOnlyByTheTheoryWidthWithInfoGain) {
  // γ̂_{t−1} is an O(t) sum over the history, so asking for it every round costs O(T²). Only the
  // theory width with gamma = info_gain reads it; every other width must not trigger the sum.
  const gpb::Context ctx;
  const auto domain = gpb::Domain::grid({0.01}, {1.0}, {30});
  const auto env = make_env(ctx, domain, gpb::Kernel::se(0.2), 2, 40);
  Eigen::VectorXd f(30);
  for (int a = 0; a < 30; ++a) f[a] = std::sin(0.3 * a);
  struct Case {
    Preset preset;
    bool ldp, log_t;
    long expected;
  };
  const Case cases[] = {
      {Preset::Practical, false, false, 0},  {Preset::Practical, true, false, 0},
      {Preset::Theory, true, true, 0},       {Preset::Theory, false, true, 0},
      {Preset::Theory, true, false, 2 * 40}, {Preset::Theory, false, false, 2 * 40}};
  for (const Case& c : cases) {
    HeavyTailedOptions o;
    o.preset = c.preset;
    o.ldp = c.ldp;
    o.gamma_log_t = c.log_t;
    EXPECT_EQ(gpb::detail::tgp_width_uses_gamma(o), c.expected > 0);
    gpb::detail::TgpUcb p(env, o);
    drive(p, f, 2, 40, 5);
    EXPECT_EQ(p.gamma_evaluations(), c.expected)
        << "preset " << static_cast<int>(c.preset) << " ldp " << c.ldp << " log_t " << c.log_t;
  }
}

/// Arbitrary positive instance constants for the width and level formulas.
gpb::detail::RunConstants some_constants() {
  gpb::detail::RunConstants k;
  k.B = 2.0;
  k.R = 1.0;
  k.L = 6.0;
  k.v = 7.0;
  k.c = 3.0;
  k.K = 77.0;
  return k;
}

TEST(TgpGamma, WidthsThatSkipTheSumDoNotDependOnIt) {
  // Skipping γ̂ keeps results identical only if those widths ignore the argument; the theory
  // width with info_gain must read it (else the sum would be dead code).
  const gpb::detail::RunConstants k = some_constants();
  for (int preset = 0; preset < 2; ++preset)
    for (int ldp = 0; ldp < 2; ++ldp)
      for (int log_t = 0; log_t < 2; ++log_t) {
        HeavyTailedOptions o;
        o.preset = preset ? Preset::Theory : Preset::Practical;
        o.ldp = ldp;
        o.gamma_log_t = log_t;
        for (int t : {2, 17, 500}) {  // t = 1: (t−1)^e = 0 hides γ̂ in the theory TGP width
          const double a = gpb::detail::tgp_width(o, k, 1.0, t, 0.0);
          const double b = gpb::detail::tgp_width(o, k, 1.0, t, 12.5);
          if (gpb::detail::tgp_width_uses_gamma(o))
            EXPECT_GT(b, a) << preset << ldp << log_t << " t=" << t;
          else
            EXPECT_EQ(a, b) << preset << ldp << log_t << " t=" << t;
        }
      }
  gpb::BetaSchedule beta;
  for (auto kind : {gpb::BetaSchedule::Kind::Srinivas, gpb::BetaSchedule::Kind::Constant,
                    gpb::BetaSchedule::Kind::IgpUcb}) {
    beta.kind = kind;
    const double a = beta.width(9, 50, 0.0), b = beta.width(9, 50, 12.5);
    if (beta.uses_gamma())
      EXPECT_GT(b, a);
    else
      EXPECT_EQ(a, b);
  }
}

// ------------------------------------------------------------------ width_scale, level_scale

TEST(LdpKnobs, WidthScaleMultipliesEveryWidthAndLevelScaleOnlyTheLevels) {
  const gpb::detail::RunConstants k = some_constants();
  for (int preset = 0; preset < 2; ++preset)
    for (int ldp = 0; ldp < 2; ++ldp) {
      HeavyTailedOptions o;
      o.preset = preset ? Preset::Theory : Preset::Practical;
      o.ldp = ldp;
      HeavyTailedOptions w = o, l = o;
      w.width_scale = 0.25;
      l.level_scale = 8.0;
      for (int t : {2, 9, 300}) {
        using namespace gpb::detail;
        EXPECT_DOUBLE_EQ(tgp_width(w, k, 1.0, t, 3.0), 0.25 * tgp_width(o, k, 1.0, t, 3.0));
        EXPECT_DOUBLE_EQ(ata_width(w, k, 1.0, 1000, t, 5), 0.25 * ata_width(o, k, 1.0, 1000, t, 5));
        EXPECT_DOUBLE_EQ(moma_width(w, k, 1.0, t, 5), 0.25 * moma_width(o, k, 1.0, t, 5));
        EXPECT_EQ(tgp_level(w, k, t), tgp_level(o, k, t));
        EXPECT_DOUBLE_EQ(tgp_level(l, k, t), 8.0 * tgp_level(o, k, t));
        EXPECT_DOUBLE_EQ(ata_level(l, k, 1000, t, 5), 8.0 * ata_level(o, k, 1000, t, 5));
        // The LDP-TGP width reads b_{t−1}; scaling the truncation level must not move it.
        EXPECT_EQ(tgp_width(l, k, 1.0, t, 3.0), tgp_width(o, k, 1.0, t, 3.0));
        EXPECT_EQ(ata_width(l, k, 1.0, 1000, t, 5), ata_width(o, k, 1.0, 1000, t, 5));
      }
    }
  HeavyTailedOptions bad;
  bad.width_scale = 0.0;
  EXPECT_THROW(gpb::detail::validate_options(bad), gpb::InvalidArgument);
  bad.width_scale = 1.0;
  bad.level_scale = -1.0;
  EXPECT_THROW(gpb::detail::validate_options(bad), gpb::InvalidArgument);
}

TEST(LdpKnobs, HugeLevelScaleFeedsTheRawRewards) {
  const gpb::Context ctx;
  const auto domain = gpb::Domain::grid({0}, {1}, {10});
  const auto env = make_env(ctx, domain, gpb::Kernel::se(0.3), 1, 10);
  HeavyTailedOptions o;
  o.ldp = true;
  o.epsilon = 1.0;  // b_1 = B + R = 2: without the knob 2.5 would be zeroed
  o.level_scale = 1e12;
  gpb::detail::TgpUcb p(env, o);
  gpb::Selection s;
  s.runs = 1;
  s.q = 1;
  s.chosen = {3};
  p.observe(s, gpb::Rewards{{2.5}});
  p.observe(s, gpb::Rewards{{-1000.0}});
  EXPECT_EQ(p.fed(0), (std::vector<double>{2.5, -1000.0}));
}

// ------------------------------------------------------------------ F8 reductions

/// A policy built from a registry type and JSON parameters.
std::unique_ptr<gpb::Policy> build(const std::string& type, const std::string& params,
                                   const gpb::PolicyEnv& env) {
  gpb::PolicySpec spec{type, type, params};
  return gpb::make_policy(spec, env);
}

TEST(LdpReduction, LdpTgpWithoutCtlIsTheLogLevelTgp) {
  const gpb::Context ctx;
  const auto domain = gpb::Domain::grid({0.01}, {1.0}, {40});
  const auto kernel = gpb::Kernel::se(0.2);
  auto env = make_env(ctx, domain, kernel, 1, 150);
  env.random_ties = false;
  const Eigen::VectorXd f = gpb::make_rkhs_objective(kernel, 40, false)->values(ctx, domain, 5, 0);
  env.f_sup = {f.cwiseAbs().maxCoeff()};
  auto ldp = build("ldp_tgp_ucb", R"({"epsilon": 2})", env);
  const auto got = drive(*ldp, f, 1, 150, 9)[0];
  // Reference: exact GP fed y·1{|y| ≤ B + R + 𝓛 ln t}, width B√λ + b_{t−1}√(ln t) (§4 practical).
  const double B = env.f_sup[0], R = 1.0, L = 2 * (B + R) / 2.0;
  gpb::PosteriorOptions po;
  po.noise_variance = 1.0;
  po.capacity = 150;
  gpb::FinitePosterior gp(ctx, kernel, domain, 1, po);
  std::mt19937_64 gen(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int t = 1; t <= 150; ++t) {
    const double b_prev = B + R + L * std::log(std::max(t - 1.0, 1.0));
    const double width = B + b_prev * std::sqrt(std::log(static_cast<double>(t)));
    const auto pick = gp.ucb_argmax(&width, nullptr, nullptr)[0].index;
    ASSERT_EQ(pick, got[static_cast<std::size_t>(t - 1)]) << "round " << t;
    const double y = f[pick] + u(gen);
    const double b = B + R + L * std::log(static_cast<double>(t));
    const double yh = std::abs(y) <= b ? y : 0.0;
    gp.observe(&pick, &yh);
  }
}

TEST(LdpReduction, LdpAtaAndMomaWithoutCtlEqualTheirTwinsWithTheSameMoments) {
  const gpb::Context ctx;
  const auto domain = gpb::Domain::grid({0.01}, {1.0}, {30});
  const auto kernel = gpb::Kernel::se(0.2);
  const Eigen::VectorXd f = gpb::make_rkhs_objective(kernel, 30, false)->values(ctx, domain, 5, 1);
  auto env = make_env(ctx, domain, kernel, 2, 120);
  env.f_sup = {f.cwiseAbs().maxCoeff(), f.cwiseAbs().maxCoeff()};
  const double B = env.f_sup[0], L = 2 * (B + 1.0) / 1.0;
  const double v = B * B + 1.0 / 3.0 + 2 * L * L, c = 1.0 / 3.0 + 2 * L * L;
  std::ostringstream ms;
  ms.precision(17);
  ms << "\"v\": " << v << ", \"c\": " << c << "}";
  const std::string moments = ms.str();
  for (const std::string family : {"ata_gp_ucb", "moma_gp_ucb"}) {
    auto ldp = build("ldp_" + family, R"({"epsilon": 1})", env);
    auto twin = build(family, "{" + moments, env);
    ASSERT_TRUE(ldp->ldp_request(0).has_value());
    EXPECT_FALSE(twin->ldp_request(0).has_value());
    EXPECT_EQ(drive(*ldp, f, 2, 120, 4), drive(*twin, f, 2, 120, 4)) << family;
  }
  // GP-UCB with an "ldp" block: same choices as plain GP-UCB when CTL is not applied.
  auto ldp_gp = build("gp_ucb", R"({"ldp": {"epsilon": 1}})", env);
  auto gp = build("gp_ucb", "{}", env);
  ASSERT_TRUE(ldp_gp->ldp_request(1).has_value());
  EXPECT_DOUBLE_EQ(ldp_gp->ldp_request(1)->B, B);
  EXPECT_EQ(drive(*ldp_gp, f, 2, 60, 2), drive(*gp, f, 2, 60, 2));
}

// ------------------------------------------------------------------ MoMA batches

TEST(MomaBatches, EpochsAreBatchesOfKAndTheLeftoverIsATruncatedEpoch) {
  const gpb::Context ctx;
  const auto domain = gpb::Domain::grid({0.01}, {1.0}, {20});
  const auto kernel = gpb::Kernel::se(0.2);
  const Eigen::VectorXd f = gpb::make_rkhs_objective(kernel, 20, false)->values(ctx, domain, 1, 0);
  auto env = make_env(ctx, domain, kernel, 1, 1000);
  auto p = build("moma_gp_ucb", "{}", env);
  ASSERT_EQ(p->batch_size(), 12);  // ⌈ln(4e·1000/0.1)⌉
  const auto chosen = drive(*p, f, 1, 1000, 1)[0];
  ASSERT_EQ(chosen.size(), 1000u);
  for (int n = 0; n < 83; ++n)
    for (int j = 1; j < 12; ++j) EXPECT_EQ(chosen[n * 12 + j], chosen[n * 12]);
  for (int i = 997; i < 1000; ++i) EXPECT_EQ(chosen[i], chosen[996]);  // 4 leftover plays
  env.horizon = 5;
  EXPECT_THROW(build("moma_gp_ucb", "{}", env), gpb::InvalidArgument);  // T = 5 < k = 7
}

}  // namespace
