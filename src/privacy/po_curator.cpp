// The PO-GP-UCB curator (Algorithm 1 of Kharkovskii et al. 2020; specs/po-gp-ucb.md §4, §6).
// Not a differential-privacy mechanism when n > d: see po_curator.hpp and spec §12.
#include "gpbandit/privacy/po_curator.hpp"

#include <cmath>
#include <cstddef>
#include <vector>

#include "gpbandit/engine/projection.hpp"
#include "gpbandit/error.hpp"

namespace gpb::privacy {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;
/// s_p ≤ kRankTol·s_1 counts as rank-deficient (the Gram route resolves s_k down to ~1e-8·s_1).
constexpr double kRankTol = 1e-7;

void check_params(double epsilon, double delta) {
  GPB_EXPECTS(std::isfinite(epsilon) && epsilon > 0,
              "po_curator: epsilon must be finite and > 0, got " << epsilon);
  GPB_EXPECTS(delta > 0 && delta < 1, "po_curator: delta must lie in (0, 1), got " << delta);
}

/// The centred X and its spectrum, validated.
struct Prepared {
  Eigen::MatrixXd xc;
  SingularSpectrum spectrum;
  double sigma_min = 0;
};

Prepared prepare(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X) {
  GPB_EXPECTS(X.size() > 0, "po_curator: X is empty");
  GPB_EXPECTS(X.allFinite(), "po_curator: X has a non-finite entry");
  Prepared p;
  p.xc = centre_rows(X);
  p.spectrum = singular_spectrum(ctx, p.xc);
  const Eigen::VectorXd& s = p.spectrum.values;
  p.sigma_min = s(s.size() - 1);
  GPB_EXPECTS(X.rows() > X.cols() && s(0) > 0 && p.sigma_min > kRankTol * s(0),
              "po_curator: X is rank-deficient after centring (n = "
                  << X.rows() << ", d = " << X.cols() << ", sigma_min = " << p.sigma_min
                  << ", sigma_1 = " << s(0)
                  << "); the lifted ELSE branch would not be unique (spec D13)");
  return p;
}

Eigen::MatrixXd lift_from(const Prepared& p, double omega) {
  const Eigen::VectorXd& s = p.spectrum.values;
  const Eigen::MatrixXd& V = p.spectrum.right;
  const Eigen::VectorXd factor =
      (1.0 + (omega * omega) / s.array().square()).sqrt().matrix();   // √(1 + ω²/s_k²)
  const Eigen::MatrixXd A = V * factor.asDiagonal() * V.transpose();  // d×d
  return p.xc * A;
}

PoRelease finish(const Context& ctx, const Prepared& p, const Eigen::Ref<const Eigen::MatrixXd>& M,
                 double epsilon, double delta, OmegaForm form) {
  const auto n = p.xc.rows();
  GPB_EXPECTS(M.rows() == p.xc.cols(),
              "po_curator: M has " << M.rows() << " rows but X has d = " << p.xc.cols());
  const int r = static_cast<int>(M.cols());
  GPB_EXPECTS(r >= 1 && r <= n, "po_curator: r must lie in [1, n = " << n << "], got " << r);
  PoRelease out;
  out.r = r;
  out.m = M;
  out.omega = po_omega(r, epsilon, delta, form);
  out.sigma_min = p.sigma_min;
  const double scale = 1.0 / std::sqrt(static_cast<double>(r));
  if (p.sigma_min >= out.omega) {
    out.branch = CuratorBranch::If;
    out.z = project(ctx, p.xc, M, scale);
  } else {
    out.branch = CuratorBranch::Else;
    out.z = project(ctx, lift_from(p, out.omega), M, scale);
  }
  return out;
}

int chosen_r(const PoCuratorOptions& o, const Prepared& p) {
  const int n = static_cast<int>(p.xc.rows());
  if (o.r == 0) return po_max_r(p.sigma_min, o.epsilon, o.delta, n, o.omega_form);
  GPB_EXPECTS(o.r >= 1 && o.r <= n,
              "po_curator: r must lie in [1, n = " << n << "] (or 0 = auto), got " << o.r);
  return o.r;
}

}  // namespace

std::string to_string(CuratorBranch branch) {
  return branch == CuratorBranch::If ? "IF" : "ELSE";
}

double po_omega(int r, double epsilon, double delta, OmegaForm form) {
  GPB_EXPECTS(r >= 1, "po_omega: r must be >= 1, got " << r);
  check_params(epsilon, delta);
  const double rr = static_cast<double>(r);
  const double l2 = std::log(2.0 / delta);
  const double l16 = std::log(16.0 * rr / delta);
  if (form == OmegaForm::Literal) return 16.0 * std::sqrt(rr) * l2 * l16 / epsilon;
  return 16.0 * std::sqrt(rr * l2) * l16 / epsilon;
}

int po_max_r(double sigma_min, double epsilon, double delta, int r_limit, OmegaForm form) {
  GPB_EXPECTS(r_limit >= 1, "po_max_r: r_limit must be >= 1, got " << r_limit);
  GPB_EXPECTS(sigma_min >= 0, "po_max_r: sigma_min must be >= 0, got " << sigma_min);
  check_params(epsilon, delta);
  int best = 1;
  for (int r = 1; r <= r_limit; ++r) {
    if (po_omega(r, epsilon, delta, form) > sigma_min) break;
    best = r;
  }
  return best;
}

Eigen::MatrixXd centre_rows(const Eigen::Ref<const Eigen::MatrixXd>& X) {
  const Eigen::RowVectorXd mean = X.colwise().mean();
  return X.rowwise() - mean;
}

Eigen::MatrixXd po_lift(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X_c,
                        double omega) {
  GPB_EXPECTS(std::isfinite(omega), "po_lift: omega must be finite, got " << omega);
  Prepared p = prepare(ctx, X_c);
  p.xc = X_c;  // lift the matrix as given (a centred input is unchanged by centre_rows anyway)
  return lift_from(p, omega);
}

PoRelease po_curate_with_matrix(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                                const Eigen::Ref<const Eigen::MatrixXd>& M, double epsilon,
                                double delta, OmegaForm form) {
  check_params(epsilon, delta);
  GPB_EXPECTS(M.cols() >= 1, "po_curator: r must be >= 1, got " << M.cols());
  return finish(ctx, prepare(ctx, X), M, epsilon, delta, form);
}

PoRelease po_curate(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                    const PoCuratorOptions& options, NoiseSource& source) {
  check_params(options.epsilon, options.delta);
  const Prepared p = prepare(ctx, X);
  const int r = chosen_r(options, p);
  const auto d = X.cols();
  Eigen::MatrixXd M(d, r);
  // Box–Muller, two uniforms per normal (like gpb::Rng::normal), column-major fill order.
  for (Eigen::Index k = 0; k < M.size(); ++k) {
    const double u1 = source.uniform();
    const double u2 = source.uniform();
    M.data()[k] = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
  }
  return finish(ctx, p, M, options.epsilon, options.delta, options.omega_form);
}

PoRelease po_curate_seeded(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                           const PoCuratorOptions& options, std::uint64_t seed, std::uint32_t run,
                           std::uint32_t stream) {
  check_params(options.epsilon, options.delta);
  const Prepared p = prepare(ctx, X);
  const int r = chosen_r(options, p);
  const Eigen::MatrixXd M = gaussian_matrix(ctx, static_cast<int>(X.cols()), r, seed, run, stream);
  return finish(ctx, p, M, options.epsilon, options.delta, options.omega_form);
}

}  // namespace gpb::privacy
