// Federated objectives of specs/fed-pne.md §9.
#include "gpbandit/xarmed/objective.hpp"

#include <algorithm>
#include <cmath>

#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "gpbandit/xarmed/substitutes.hpp"

namespace gpb::xarmed {

namespace {
constexpr double kPi = 3.141592653589793238462643;
constexpr std::uint32_t kPerturbStream = 0xfe0001u;

double xi(std::uint64_t seed, std::uint32_t run, int m) {
  Rng rng(seed, run, kPerturbStream, 2 * static_cast<std::uint64_t>(m));
  return rng.normal();
}
}  // namespace

double garland(double x) {
  return x * (1 - x) * (4 - std::sqrt(std::fabs(std::sin(60 * x))));
}

double double_sine(double x) {
  const double u = 2 * std::fabs(x - 0.5);
  if (u == 0) return 0.0;
  const double e1 = -std::log2(0.3), e2 = -std::log2(0.8);
  const double s = (std::sin(2 * kPi * 0.5 * std::log2(u)) + 1) / 2;
  return s * (std::pow(u, e2) - std::pow(u, e1)) - std::pow(u, e2);
}

double himmelblau(const double* x) {
  const double a = x[0] * x[0] + x[1] - 11, b = x[0] + x[1] * x[1] - 7;
  return -(a * a + b * b) / 890.0;
}

double seir_reward(double x, double N) {
  const double beta = 1 / 2.5, sigma = 1 / 2.0, gamma = 1 / 13.0, v = 0.005, h = 0.1;
  const double alpha = std::max(0.0, 1 - 4 * (1 - x) * (1 - x));
  const double vac = (alpha > 0 && x > 0) ? alpha * v * N / x : 0.0;  // u = α(x)V(x)
  // state: S, E, I, R, C
  double y[5] = {N - 1, 1, 0, 0, 0};
  auto deriv = [&](const double* s, double* d) {
    const double S = std::max(s[0], 0.0);
    const double inf = beta * S * s[2] / N;
    const double u = S > 0 ? vac : 0.0;
    d[0] = -inf - u;
    d[1] = inf - sigma * s[1];
    d[2] = sigma * s[1] - gamma * s[2];
    d[3] = gamma * s[2] + u;
    d[4] = inf;
  };
  double k1[5], k2[5], k3[5], k4[5], t[5];
  for (int step = 0; step < 2000; ++step) {
    deriv(y, k1);
    for (int i = 0; i < 5; ++i) t[i] = y[i] + 0.5 * h * k1[i];
    deriv(t, k2);
    for (int i = 0; i < 5; ++i) t[i] = y[i] + 0.5 * h * k2[i];
    deriv(t, k3);
    for (int i = 0; i < 5; ++i) t[i] = y[i] + h * k3[i];
    deriv(t, k4);
    for (int i = 0; i < 5; ++i) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    if (y[0] < 0) {  // S clamped at 0, the overshoot removed from R
      y[3] += y[0];
      y[0] = 0;
    }
  }
  return 1 - y[4] / N;
}

namespace {

/// g plus optional per-client offsets ξ_m.
class Simple final : public FedObjective {
 public:
  Simple(std::string name, Box box, double fstar, double (*g)(const double*), ObjectiveSpec spec)
      : name_(std::move(name)),
        box_(std::move(box)),
        fstar_(fstar),
        g_(g),
        spec_(std::move(spec)) {}
  std::string name() const override { return name_; }
  const Box& box() const override { return box_; }
  double fstar() const override {
    return (spec_.fstar_pyxab && spec_.type == "garland" ? 1.0 : fstar_) + spec_.shift;
  }
  double global(std::uint32_t, int, const double* x) const override { return value(x); }
  double local(std::uint32_t run, int m, int, const double* x) const override {
    return value(x) + (spec_.perturbed ? xi(spec_.seed, run, m) : 0.0);
  }

 private:
  double value(const double* x) const {
    if (spec_.type == "linear") return 1 - spec_.slope * std::fabs(x[0] - spec_.peak) + spec_.shift;
    return g_(x) + spec_.shift;
  }
  std::string name_;
  Box box_;
  double fstar_;
  double (*g_)(const double*);
  ObjectiveSpec spec_;
};

/// SEIR: client m has population N_m = 10^{6 + 2m/(M−1)}; reward 1 − infection rate.
class Seir final : public FedObjective {
 public:
  std::string name() const override { return "seir"; }
  const Box& box() const override { return box_; }
  double fstar() const override { return 1.0; }
  double global(std::uint32_t run, int M, const double* x) const override {
    return mean_local(run, M, x);
  }
  double local(std::uint32_t, int m, int M, const double* x) const override {
    const double e = M == 1 ? 7.0 : 6.0 + 2.0 * m / (M - 1);
    return seir_reward(x[0], std::pow(10.0, e));
  }

 private:
  Box box_{{0.0}, {1.0}};
};

}  // namespace

std::shared_ptr<const FedObjective> make_objective(const ObjectiveSpec& spec) {
  const double garland_star = 4 * (kPi / 6) * (1 - kPi / 6);
  if (spec.type == "garland") {
    return std::make_shared<Simple>(
        "garland", Box{{0.0}, {1.0}}, garland_star, [](const double* x) { return garland(x[0]); },
        spec);
  }
  if (spec.type == "doublesine") {
    return std::make_shared<Simple>(
        "doublesine", Box{{0.0}, {1.0}}, 0.0, [](const double* x) { return double_sine(x[0]); },
        spec);
  }
  if (spec.type == "himmelblau") {
    return std::make_shared<Simple>("himmelblau", Box{{-5.0, -5.0}, {5.0, 5.0}}, 0.0, &himmelblau,
                                    spec);
  }
  if (spec.type == "linear") {
    GPB_EXPECTS(spec.slope > 0 && std::isfinite(spec.slope),
                "objective.slope: must be > 0, got " << spec.slope);
    GPB_EXPECTS(spec.peak >= 0 && spec.peak <= 1,
                "objective.peak: must lie in [0, 1], got " << spec.peak);
    return std::make_shared<Simple>("linear", Box{{0.0}, {1.0}}, 1.0, nullptr, spec);
  }
  if (spec.type == "seir") {
    GPB_EXPECTS(!spec.perturbed, "objective.perturbed: not available for seir");
    return std::make_shared<Seir>();
  }
  if (spec.type == "landmine_svm" || spec.type == "digits_classifier") return make_substitute(spec);
  throw InvalidArgument("objective.type: unknown '" + spec.type +
                        "' (garland, doublesine, himmelblau, linear, seir, landmine_svm, "
                        "digits_classifier)");
}

}  // namespace gpb::xarmed
