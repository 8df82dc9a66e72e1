// Confidence-width schedules of UCB policies.
#include <cmath>
#include <sstream>

#include "gpbandit/error.hpp"
#include "gpbandit/policy/policy.hpp"

namespace gpb {

namespace {
constexpr double kPi = 3.141592653589793238462643;
}

void BetaSchedule::validate() const {
  GPB_EXPECTS(std::isfinite(scale) && scale > 0, "beta.scale must be > 0, got " << scale);
  switch (kind) {
    case Kind::Srinivas:
      GPB_EXPECTS(delta > 0 && delta < 1, "beta.delta must lie in (0, 1), got " << delta);
      break;
    case Kind::IgpUcb:
      GPB_EXPECTS(delta > 0 && delta < 1, "beta.delta must lie in (0, 1), got " << delta);
      GPB_EXPECTS(std::isfinite(rkhs_bound) && rkhs_bound >= 0,
                  "beta.B must be >= 0, got " << rkhs_bound);
      GPB_EXPECTS(std::isfinite(subgaussian) && subgaussian >= 0,
                  "beta.R must be >= 0, got " << subgaussian);
      break;
    case Kind::Constant:
      GPB_EXPECTS(std::isfinite(value) && value > 0, "beta.value must be > 0, got " << value);
      break;
  }
}

double BetaSchedule::width(int t, int n, double gamma) const {
  GPB_EXPECTS(t >= 1, "beta: round t must be >= 1, got " << t);
  GPB_EXPECTS(n >= 1, "beta: domain size must be >= 1, got " << n);
  switch (kind) {
    case Kind::Srinivas: {
      const double td = static_cast<double>(t);
      const double beta =
          2.0 * std::log(static_cast<double>(n) * td * td * kPi * kPi / (6.0 * delta));
      return scale * std::sqrt(std::max(beta, 0.0));
    }
    case Kind::IgpUcb:
      return scale *
             (rkhs_bound + subgaussian * std::sqrt(2.0 * (gamma + 1.0 + std::log(1.0 / delta))));
    case Kind::Constant:
      return scale * std::sqrt(value);
  }
  return 0.0;
}

BetaSchedule::Kind BetaSchedule::parse_kind(const std::string& name) {
  if (name == "srinivas") return Kind::Srinivas;
  if (name == "igp_ucb") return Kind::IgpUcb;
  if (name == "constant") return Kind::Constant;
  throw InvalidArgument("beta.type: expected srinivas, igp_ucb or constant, got '" + name + "'");
}

std::string BetaSchedule::describe() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::Srinivas:
      os << "srinivas(delta=" << delta;
      break;
    case Kind::IgpUcb:
      os << "igp_ucb(delta=" << delta << ", B=" << rkhs_bound << ", R=" << subgaussian;
      break;
    case Kind::Constant:
      os << "constant(value=" << value;
      break;
  }
  os << ", scale=" << scale << ")";
  return os.str();
}

}  // namespace gpb
