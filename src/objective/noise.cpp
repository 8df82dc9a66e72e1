// Observation noise models: validation, sampling from the counter-based Rng, names.
//
// Config field names (used by the config loader and in every message here):
//   "noise.kind"  -> NoiseModel::kind   (parse_noise_kind)
//   "noise.sd"    -> NoiseModel::scale  when kind = gaussian
//   "noise.R"     -> NoiseModel::scale  when kind = uniform
//   "noise.scale" -> NoiseModel::scale  when kind = student_t, pareto, laplace (and none)
//   "noise.nu"    -> NoiseModel::nu     (student_t)
//   "noise.alpha" -> NoiseModel::alpha  (pareto)

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"
#include "objective/sampling.hpp"

namespace gpb {
namespace detail {

double sample_gamma(Rng& rng, double shape) {
  double boost = 1.0;
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) · U^(1/a); computed in logs to avoid underflow for tiny a.
    boost = std::exp(std::log(rng.uniform()) / shape);
    shape += 1.0;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    const double x = rng.normal();
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = rng.uniform();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return boost * d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return boost * d * v;
  }
}

}  // namespace detail

namespace {

/// The config field name of `scale` for a kind (see the table at the top of this file).
const char* scale_field(NoiseModel::Kind k) {
  switch (k) {
    case NoiseModel::Kind::Gaussian:
      return "noise.sd";
    case NoiseModel::Kind::Uniform:
      return "noise.R";
    default:
      return "noise.scale";
  }
}

/// Student-t with nu degrees of freedom: Z / sqrt(G / nu), G ~ chi-square(nu).
/// Takes exactly three draws from `rng`: two for Z, one keying a private stream for the
/// rejection sampler of G (so the draw count does not depend on the rejections).
double student_t(Rng& rng, double nu) {
  const double z = rng.normal();
  Rng inner(rng.next_u64(), 0, 0);
  const double g = detail::sample_chi_square(inner, nu);
  return z / std::sqrt(g / nu);
}

}  // namespace

void NoiseModel::validate() const {
  const char* field = scale_field(kind);
  GPB_EXPECTS(std::isfinite(scale) && scale >= 0.0,
              field << " must be finite and >= 0, got " << scale);
  if (kind != Kind::None) {
    GPB_EXPECTS(scale > 0.0,
                field << " must be > 0 for " << noise_kind_name(kind) << " noise, got " << scale);
  }
  if (kind == Kind::StudentT) {
    GPB_EXPECTS(std::isfinite(nu) && nu > 0.0, "noise.nu must be finite and > 0, got " << nu);
  }
  if (kind == Kind::Pareto) {
    GPB_EXPECTS(std::isfinite(alpha) && alpha > 1.0,
                "noise.alpha must be finite and > 1 (finite mean), got " << alpha);
  }
}

double NoiseModel::sample(Rng& rng) const {
  switch (kind) {
    case Kind::None:
      return 0.0;
    case Kind::Gaussian:
      return scale * rng.normal();
    case Kind::Uniform:
      return scale * (2.0 * rng.uniform() - 1.0);
    case Kind::Laplace: {
      // Inverse CDF: x = −scale·sign(u − ½)·log(1 − 2|u − ½|), u in (0, 1).
      const double w = rng.uniform() - 0.5;
      const double mag = -std::log1p(-2.0 * std::fabs(w));
      return w < 0.0 ? -scale * mag : scale * mag;
    }
    case Kind::StudentT:
      return scale * student_t(rng, nu);
    case Kind::Pareto: {
      // P = u^(−1/α) ~ Pareto(α, 1), mean α/(α − 1).
      const double p = std::exp(-std::log(rng.uniform()) / alpha);
      return scale * (p - alpha / (alpha - 1.0));
    }
  }
  throw InvalidArgument("noise.kind: invalid value " + std::to_string(static_cast<int>(kind)));
}

std::string NoiseModel::describe() const {
  std::ostringstream os;
  os << noise_kind_name(kind);
  switch (kind) {
    case Kind::None:
      break;
    case Kind::Gaussian:
      os << "(sd=" << scale << ")";
      break;
    case Kind::Uniform:
      os << "(R=" << scale << ")";
      break;
    case Kind::StudentT:
      os << "(scale=" << scale << ", nu=" << nu << ")";
      break;
    case Kind::Pareto:
      os << "(scale=" << scale << ", alpha=" << alpha << ")";
      break;
    case Kind::Laplace:
      os << "(scale=" << scale << ")";
      break;
  }
  return os.str();
}

NoiseModel::Kind parse_noise_kind(const std::string& name) {
  using K = NoiseModel::Kind;
  for (K k : {K::None, K::Gaussian, K::Uniform, K::StudentT, K::Pareto, K::Laplace}) {
    if (name == noise_kind_name(k)) return k;
  }
  throw InvalidArgument("noise.kind: unknown value '" + name +
                        "' (allowed: none, gaussian, uniform, student_t, pareto, laplace)");
}

const char* noise_kind_name(NoiseModel::Kind k) {
  switch (k) {
    case NoiseModel::Kind::None:
      return "none";
    case NoiseModel::Kind::Gaussian:
      return "gaussian";
    case NoiseModel::Kind::Uniform:
      return "uniform";
    case NoiseModel::Kind::StudentT:
      return "student_t";
    case NoiseModel::Kind::Pareto:
      return "pareto";
    case NoiseModel::Kind::Laplace:
      return "laplace";
  }
  return "unknown";
}

InstanceConstants noise_instance_constants(const NoiseModel& noise) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  InstanceConstants c;
  const double s2 = noise.scale * noise.scale;
  switch (noise.kind) {
    case NoiseModel::Kind::None:
      c.noise_bound = 0.0;
      c.noise_moment = 0.0;
      break;
    case NoiseModel::Kind::Uniform:
      c.noise_bound = noise.scale;
      c.noise_moment = s2 / 3.0;
      break;
    case NoiseModel::Kind::Gaussian:
      c.noise_moment = s2;
      break;
    case NoiseModel::Kind::StudentT:
      c.noise_moment = noise.nu > 2 ? s2 * noise.nu / (noise.nu - 2.0) : kInf;
      break;
    case NoiseModel::Kind::Laplace:
      c.noise_moment = 2.0 * s2;
      break;
    case NoiseModel::Kind::Pareto: {
      const double a = noise.alpha;
      c.noise_moment = a > 2 ? s2 * a / ((a - 1.0) * (a - 1.0) * (a - 2.0)) : kInf;
      break;
    }
  }
  if (noise.scale == 0.0) c.noise_bound = 0.0;
  return c;
}

}  // namespace gpb
