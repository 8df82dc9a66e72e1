// Maximum-likelihood GP hyperparameters by L-BFGS-B (specs/po-gp-ucb.md §3).
#include "gpbandit/engine/hyperfit.hpp"

#include <LBFGSB.h>
#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

#include "engine/detail/kernel_formula.hpp"

namespace gpb {

namespace {

constexpr double kLn2Pi = 1.8378770664093454835606594728112;
/// Philox stream of the fit (spec §3 `mle_subsample`); starts use the next draws of the same one.
constexpr std::uint32_t kMleStream = 11;

/// κ(ρ) at variance 1 and g = −κ′(ρ)/ρ (so ∂k/∂ln l_j = σ_y²·g·(Δ_j/l_j)²): the engine's
/// detail::stationary_shape, except that Matérn 5/2's κ keeps the fit's own rounding of the
/// quadratic term, 5·ρ²/3 (the kernel matrix has (5/3)·ρ²). Committed results depend on it: with
/// (5/3)·ρ², `minimize` on Branin (bench/peers/bo_suite.py, seeds 0–2) leaves the committed rows
/// from the 6th call on (by ~1e-6), with 5·ρ²/3 it reproduces them bit for bit.
/// Matérn 5/2 is evaluated here in full (one exp, as stationary_shape does), not through
/// stationary_shape and again for the value: this runs for every pair of every likelihood call.
double fit_shape(KernelType t, double rho2, double* g) {
  if (t != KernelType::Matern52) return detail::stationary_shape(t, rho2, 1.0, g);
  const double s = std::sqrt(5.0 * rho2);
  if (s > 1e150) {
    *g = 0.0;
    return 0.0;
  }
  const double e = std::exp(-s);
  *g = (5.0 / 3.0) * (1.0 + s) * e;
  return (1.0 + s + 5.0 * rho2 / 3.0) * e;
}

void check_kernel(KernelType k) {
  GPB_EXPECTS(k == KernelType::SE || k == KernelType::Matern32 || k == KernelType::Matern52,
              "hyperfit: kernel must be se, matern32 or matern52");
}

/// Cholesky of A + jitter·I with the spec's escalation; A is modified in place.
Eigen::LLT<Eigen::MatrixXd> robust_llt(Eigen::MatrixXd& A) {
  Eigen::LLT<Eigen::MatrixXd> llt(A);
  if (llt.info() == Eigen::Success) return llt;
  double jitter = 1e-10 * A.diagonal().mean();
  for (int attempt = 0; attempt < 3; ++attempt, jitter *= 10.0) {
    A.diagonal().array() += jitter;
    llt.compute(A);
    if (llt.info() == Eigen::Success) return llt;
  }
  throw NumericalError("hyperfit: K + noise is not positive definite after 3 jitter steps");
}

/// The noise variance of row i: known[i] where given and not NaN, else the fitted σ_n².
double row_noise(const Eigen::VectorXd* known, double noise_variance, Eigen::Index i) {
  return known != nullptr && !std::isnan((*known)(i)) ? (*known)(i) : noise_variance;
}

/// ∂ll/∂ln σ_n² = ½ σ_n² Σ_i W_ii over the rows whose noise is fitted (not known).
double noise_gradient(const Eigen::MatrixXd& W, double noise_variance,
                      const Eigen::VectorXd* known) {
  double s = 0;
  for (Eigen::Index i = 0; i < W.rows(); ++i) {
    if (known == nullptr || std::isnan((*known)(i))) s += W(i, i);
  }
  return 0.5 * noise_variance * s;
}

/// log N(y; 0, K + Λ) from the signal covariance K, Λ = diag(row_noise), and (when W is not
/// null) W = ααᵀ − (K + Λ)⁻¹ with α = (K + Λ)⁻¹y, the matrix every gradient entry
/// ½ Σ_ab W_ab ∂K_ab/∂ψ needs.
double gaussian_log_likelihood(Eigen::MatrixXd Ky, double noise_variance,
                               const Eigen::VectorXd* known,
                               const Eigen::Ref<const Eigen::VectorXd>& y, Eigen::MatrixXd* W) {
  const Eigen::Index m = Ky.rows();
  for (Eigen::Index i = 0; i < m; ++i) Ky(i, i) += row_noise(known, noise_variance, i);
  const Eigen::LLT<Eigen::MatrixXd> llt = robust_llt(Ky);
  const Eigen::VectorXd alpha = llt.solve(y);
  const double logdet = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  if (W != nullptr) {
    *W = -llt.solve(Eigen::MatrixXd::Identity(m, m));
    W->noalias() += alpha * alpha.transpose();
  }
  return -0.5 * y.dot(alpha) - 0.5 * logdet - 0.5 * static_cast<double>(m) * kLn2Pi;
}

/// Known noise variances: null or m values, each NaN (fitted) or finite and ≥ 0.
void check_known_noise(const Eigen::VectorXd* known, Eigen::Index m) {
  if (known == nullptr) return;
  GPB_EXPECTS(known->size() == m,
              "hyperfit: known noise has " << known->size() << " values for " << m << " rows");
  for (Eigen::Index i = 0; i < m; ++i) {
    const double v = (*known)(i);
    GPB_EXPECTS(std::isnan(v) || (std::isfinite(v) && v >= 0),
                "hyperfit: known noise[" << i << "] = " << v << " must be >= 0 (or NaN: fitted)");
  }
}

/// Each part of a known type and in the columns, every column in exactly one part.
void check_parts(const std::vector<HyperFitPart>& parts, Eigen::Index d) {
  GPB_EXPECTS(!parts.empty(), "hyperfit: a composite kernel needs at least one part");
  std::vector<int> owner(static_cast<std::size_t>(d), -1);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const HyperFitPart& hp = parts[p];
    GPB_EXPECTS(hp.type == KernelType::SE || hp.type == KernelType::Matern32 ||
                    hp.type == KernelType::Matern52,
                "hyperfit: part " << p << ": kernel must be se, matern32 or matern52");
    GPB_EXPECTS(hp.begin >= 0 && hp.size >= 1 && hp.begin + hp.size <= d,
                "hyperfit: part " << p << " covers columns [" << hp.begin << ", "
                                  << hp.begin + hp.size << ") of " << d);
    for (int j = hp.begin; j < hp.begin + hp.size; ++j) {
      int& o = owner[static_cast<std::size_t>(j)];
      GPB_EXPECTS(o < 0, "hyperfit: column " << j << " is in two parts");
      o = static_cast<int>(p);
    }
  }
  for (Eigen::Index j = 0; j < d; ++j) {
    GPB_EXPECTS(owner[static_cast<std::size_t>(j)] >= 0,
                "hyperfit: column " << j << " is in no part");
  }
}

/// The parts a composite fit evaluates: `ard` set only where the fit has one length-scale per
/// column (part.ard, options.ard and more than one column).
std::vector<HyperFitPart> effective_parts(const HyperFitOptions& o) {
  std::vector<HyperFitPart> parts = o.parts;
  for (HyperFitPart& p : parts) p.ard = p.ard && o.ard && p.size > 1;
  return parts;
}

/// Negative log-likelihood (minus the log priors) over ψ = (ln l…, ln variance(s), ln σ_n²) (for
/// LBFGSpp), remembering the best point it saw.
class NegLogLik {
 public:
  NegLogLik(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd* known,
            const HyperFitOptions& o, Eigen::Index nl, Eigen::Index nv)
      : X_(X), y_(y), known_(known), o_(o), parts_(effective_parts(o)), nl_(nl), nv_(nv) {}

  double operator()(const Eigen::VectorXd& psi, Eigen::VectorXd& grad) {
    ++evaluations;
    const GpHyperparameters th = unpack(psi);
    double ll = 0;
    try {
      ll = parts_.empty() ? gp_log_likelihood(X_, y_, o_.kernel, th, &grad, known_)
                          : gp_log_likelihood(X_, y_, parts_, o_.sum, th, &grad, known_);
    } catch (const NumericalError&) {
      grad.setZero(psi.size());
      return std::numeric_limits<double>::infinity();
    }
    grad = -grad;
    double value = -ll;
    if (o_.lengthscale_prior_scale > 0) {  // −ln N(ψ_j; loc, s²) up to a constant
      const double s2 = o_.lengthscale_prior_scale * o_.lengthscale_prior_scale;
      for (Eigen::Index j = 0; j < nl_; ++j) {
        const double u = psi(j) - o_.lengthscale_prior_loc;
        value += 0.5 * u * u / s2;
        grad(j) += u / s2;
      }
    }
    if (o_.noise_prior_scale > 0) {
      const double s2 = o_.noise_prior_scale * o_.noise_prior_scale;
      const double u = psi(nl_ + nv_) - o_.noise_prior_loc;
      value += 0.5 * u * u / s2;
      grad(nl_ + nv_) += u / s2;
    }
    if (value < best_value) {
      best_value = value;
      best_ll = ll;
      best_psi = psi;
    }
    return value;
  }

  GpHyperparameters unpack(const Eigen::VectorXd& psi) const {
    GpHyperparameters th;
    th.lengthscales = psi.head(nl_).array().exp().matrix();
    if (!parts_.empty() && o_.sum) {
      th.part_variances = psi.segment(nl_, nv_).array().exp().matrix();
      th.signal_variance = th.part_variances.sum();
    } else {
      th.signal_variance = std::exp(psi(nl_));
    }
    th.noise_variance = std::exp(psi(nl_ + nv_));
    return th;
  }

  double best_value = std::numeric_limits<double>::infinity();
  double best_ll = 0;
  Eigen::VectorXd best_psi;
  int evaluations = 0;

 private:
  const Eigen::MatrixXd& X_;
  const Eigen::VectorXd& y_;
  const Eigen::VectorXd* known_;
  const HyperFitOptions& o_;
  std::vector<HyperFitPart> parts_;
  Eigen::Index nl_, nv_;
};

}  // namespace

double gp_log_likelihood(const Eigen::Ref<const Eigen::MatrixXd>& X,
                         const Eigen::Ref<const Eigen::VectorXd>& y, KernelType kernel,
                         const GpHyperparameters& theta, Eigen::VectorXd* grad,
                         const Eigen::VectorXd* known_noise) {
  check_kernel(kernel);
  const Eigen::Index m = X.rows(), d = X.cols();
  GPB_EXPECTS(m >= 1 && d >= 1 && y.size() == m,
              "hyperfit: X is " << m << "x" << d << " but y has length " << y.size());
  check_known_noise(known_noise, m);
  const Eigen::Index q = theta.lengthscales.size();
  GPB_EXPECTS(q == 1 || q == d, "hyperfit: " << q << " length-scales for d = " << d);
  GPB_EXPECTS((theta.lengthscales.array() > 0).all() && theta.signal_variance > 0 &&
                  theta.noise_variance > 0,
              "hyperfit: length-scales and variances must be > 0");
  const double sv = theta.signal_variance;
  Eigen::ArrayXd inv_l(d);
  for (Eigen::Index j = 0; j < d; ++j) inv_l(j) = 1.0 / theta.lengthscales(q == 1 ? 0 : j);
  const Eigen::MatrixXd Xs = X * inv_l.matrix().asDiagonal();

  // K_f (signal part) and G = σ_y² g(ρ), g = −κ′(ρ)/ρ (lower triangles, mirrored).
  Eigen::MatrixXd Kf(m, m), G(grad != nullptr ? m : 0, grad != nullptr ? m : 0);
  for (Eigen::Index b = 0; b < m; ++b) {
    for (Eigen::Index a = b; a < m; ++a) {
      const double rho2 = (Xs.row(a) - Xs.row(b)).squaredNorm();
      double g = 0;
      const double kappa = fit_shape(kernel, rho2, &g);
      Kf(a, b) = Kf(b, a) = sv * kappa;
      if (grad != nullptr) G(a, b) = G(b, a) = sv * g;
    }
  }
  // ∂ll/∂ψ = ½ Σ_ab W_ab ∂K_ab/∂ψ with W = ααᵀ − K_θ⁻¹.
  Eigen::MatrixXd W;
  const double ll = gaussian_log_likelihood(Kf, theta.noise_variance, known_noise, y,
                                            grad != nullptr ? &W : nullptr);
  if (grad == nullptr) return ll;
  grad->setZero(q + 2);
  const Eigen::MatrixXd H = W.cwiseProduct(G);
  for (Eigen::Index b = 0; b < m; ++b) {
    for (Eigen::Index a = b + 1; a < m; ++a) {
      const double w = 2.0 * H(a, b);  // off-diagonal pairs count twice (symmetry)
      if (q == 1) {
        (*grad)(0) += w * (Xs.row(a) - Xs.row(b)).squaredNorm();
      } else {
        for (Eigen::Index j = 0; j < d; ++j) {
          const double t = Xs(a, j) - Xs(b, j);
          (*grad)(j) += w * t * t;
        }
      }
    }
  }
  grad->head(q) *= 0.5;
  (*grad)(q) = 0.5 * W.cwiseProduct(Kf).sum();
  (*grad)(q + 1) = noise_gradient(W, theta.noise_variance, known_noise);
  return ll;
}

double gp_log_likelihood(const Eigen::Ref<const Eigen::MatrixXd>& X,
                         const Eigen::Ref<const Eigen::VectorXd>& y,
                         const std::vector<HyperFitPart>& parts, bool sum,
                         const GpHyperparameters& theta, Eigen::VectorXd* grad,
                         const Eigen::VectorXd* known_noise) {
  const Eigen::Index m = X.rows(), d = X.cols();
  const auto P = static_cast<Eigen::Index>(parts.size());
  GPB_EXPECTS(m >= 1 && d >= 1 && y.size() == m,
              "hyperfit: X is " << m << "x" << d << " but y has length " << y.size());
  check_known_noise(known_noise, m);
  check_parts(parts, d);
  // Column → length-scale index (parts in order; one per column with ARD, else one per part).
  std::vector<Eigen::Index> first(static_cast<std::size_t>(P));
  Eigen::ArrayXd inv_l(d);
  Eigen::Index q = 0;
  for (Eigen::Index p = 0; p < P; ++p) {
    const HyperFitPart& hp = parts[static_cast<std::size_t>(p)];
    const bool ard = hp.ard && hp.size > 1;
    first[static_cast<std::size_t>(p)] = q;
    for (int j = hp.begin; j < hp.begin + hp.size; ++j) {
      const Eigen::Index li = q + (ard ? j - hp.begin : 0);
      GPB_EXPECTS(li < theta.lengthscales.size(), "hyperfit: " << theta.lengthscales.size()
                                                               << " length-scales are too few for "
                                                               << "the parts");
      inv_l(j) = 1.0 / theta.lengthscales(li);
    }
    q += ard ? hp.size : 1;
  }
  GPB_EXPECTS(theta.lengthscales.size() == q,
              "hyperfit: " << theta.lengthscales.size() << " length-scales for " << q);
  GPB_EXPECTS(!sum || theta.part_variances.size() == P,
              "hyperfit: a sum of " << P << " parts needs " << P << " part variances, got "
                                    << theta.part_variances.size());
  GPB_EXPECTS((theta.lengthscales.array() > 0).all() && theta.noise_variance > 0 &&
                  (sum ? (theta.part_variances.array() > 0).all() : theta.signal_variance > 0),
              "hyperfit: length-scales and variances must be > 0");
  const Eigen::MatrixXd Xs = X * inv_l.matrix().asDiagonal();
  const double sv = theta.signal_variance;

  // Per pair: each part's ρ², κ and g; the kernel value.
  std::vector<double> rho2(static_cast<std::size_t>(P)), kap(rho2), gg(rho2);
  const auto pair = [&](Eigen::Index a, Eigen::Index b) {
    double k = sum ? 0.0 : sv;
    for (Eigen::Index p = 0; p < P; ++p) {
      const HyperFitPart& hp = parts[static_cast<std::size_t>(p)];
      const auto up = static_cast<std::size_t>(p);
      rho2[up] = (Xs.row(a).segment(hp.begin, hp.size) - Xs.row(b).segment(hp.begin, hp.size))
                     .squaredNorm();
      kap[up] = fit_shape(hp.type, rho2[up], &gg[up]);
      k = sum ? k + theta.part_variances(p) * kap[up] : k * kap[up];
    }
    return k;
  };
  Eigen::MatrixXd Ky(m, m);
  for (Eigen::Index b = 0; b < m; ++b) {
    for (Eigen::Index a = b; a < m; ++a) Ky(a, b) = Ky(b, a) = pair(a, b);
  }
  // ∂ll/∂ψ = ½ Σ_ab W_ab ∂K_ab/∂ψ with W = ααᵀ − K_θ⁻¹, pair by pair (the part values again).
  Eigen::MatrixXd W;
  const double ll = gaussian_log_likelihood(std::move(Ky), theta.noise_variance, known_noise, y,
                                            grad != nullptr ? &W : nullptr);
  if (grad == nullptr) return ll;
  const Eigen::Index nv = sum ? P : 1;
  grad->setZero(q + nv + 1);
  for (Eigen::Index b = 0; b < m; ++b) {
    for (Eigen::Index a = b; a < m; ++a) {
      const double w = (a == b ? 0.5 : 1.0) * W(a, b);  // ½ · (2 for the mirrored pair)
      const double k = pair(a, b);
      for (Eigen::Index p = 0; p < P; ++p) {
        const HyperFitPart& hp = parts[static_cast<std::size_t>(p)];
        const auto up = static_cast<std::size_t>(p);
        // ∂k/∂ln l_j = c_p·g_p·(Δ_j/l_j)², c_p = v_p (sum) or v·Π_{o≠p} κ_o (product).
        double c = sum ? theta.part_variances(p) : sv;
        if (!sum) {
          for (Eigen::Index o = 0; o < P; ++o) {
            if (o != p) c *= kap[static_cast<std::size_t>(o)];
          }
        }
        if (sum) (*grad)(q + p) += w * theta.part_variances(p) * kap[up];
        if (a == b) continue;  // Δ = 0 on the diagonal
        const Eigen::Index f = first[up];
        if (hp.ard && hp.size > 1) {
          for (int j = 0; j < hp.size; ++j) {
            const double t = Xs(a, hp.begin + j) - Xs(b, hp.begin + j);
            (*grad)(f + j) += w * c * gg[up] * t * t;
          }
        } else {
          (*grad)(f) += w * c * gg[up] * rho2[up];
        }
      }
      if (!sum) (*grad)(q) += w * k;
    }
  }
  (*grad)(q + nv) = noise_gradient(W, theta.noise_variance, known_noise);
  return ll;
}

HyperFit fit_gp_hyperparameters(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                const Eigen::Ref<const Eigen::VectorXd>& y,
                                const HyperFitOptions& o) {
  if (o.parts.empty()) {
    check_kernel(o.kernel);
  } else {
    check_parts(o.parts, X.cols());
  }
  const Eigen::Index n = X.rows(), d = X.cols();
  GPB_EXPECTS(n >= 2 && d >= 1,
              "hyperfit: X needs at least 2 rows and 1 column, got " << n << "x" << d);
  GPB_EXPECTS(y.size() == n,
              "hyperfit: y has length " << y.size() << " but X has " << n << " rows");
  GPB_EXPECTS(X.allFinite() && y.allFinite(), "hyperfit: X or y has a non-finite entry");
  GPB_EXPECTS(
      o.known_noise.size() == 0 || o.known_noise.size() == n,
      "hyperfit: known_noise has " << o.known_noise.size() << " values for " << n << " rows");
  if (o.known_noise.size() > 0) check_known_noise(&o.known_noise, n);
  GPB_EXPECTS(o.max_rows >= 2, "hyperfit: max_rows must be >= 2, got " << o.max_rows);
  GPB_EXPECTS(o.random_starts >= 0, "hyperfit: random_starts must be >= 0");
  GPB_EXPECTS(o.max_iterations >= 1, "hyperfit: max_iterations must be >= 1");
  GPB_EXPECTS(0 < o.lengthscale_lower && o.lengthscale_lower < o.lengthscale_upper &&
                  0 < o.signal_lower && o.signal_lower < o.signal_upper && 0 < o.noise_lower &&
                  o.noise_lower < o.noise_upper,
              "hyperfit: every bound must satisfy 0 < lower < upper");

  // Rows: min(n, max_rows) without replacement (partial Fisher–Yates on a Philox stream).
  Rng rng(o.seed, 0, kMleStream);
  const Eigen::Index m = std::min<Eigen::Index>(n, o.max_rows);
  std::vector<Eigen::Index> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), Eigen::Index{0});
  if (m < n) {
    for (Eigen::Index i = 0; i < m; ++i) {
      const auto j = i + static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(n - i)));
      std::swap(idx[static_cast<std::size_t>(i)], idx[static_cast<std::size_t>(j)]);
    }
  }
  Eigen::MatrixXd Xm(m, d);
  Eigen::VectorXd ym(m), known(o.known_noise.size() > 0 ? m : 0);
  for (Eigen::Index i = 0; i < m; ++i) {
    Xm.row(i) = X.row(idx[static_cast<std::size_t>(i)]);
    ym(i) = y(idx[static_cast<std::size_t>(i)]);
    if (known.size() > 0) known(i) = o.known_noise(idx[static_cast<std::size_t>(i)]);
  }

  // Standardise the inputs for conditioning; length-scales are mapped back at the end.
  Eigen::ArrayXd sd = Eigen::ArrayXd::Ones(d);
  if (o.standardize_inputs) {
    const Eigen::RowVectorXd mean = Xm.colwise().mean();
    Xm.rowwise() -= mean;
    sd = (Xm.colwise().squaredNorm() / static_cast<double>(m)).array().sqrt();
    for (Eigen::Index j = 0; j < d; ++j) {
      GPB_EXPECTS(sd(j) > 0, "hyperfit: input column " << j << " is constant on the rows used");
    }
    if (!o.ard && o.parts.empty()) sd.setConstant(std::sqrt(sd.square().mean()));
    for (const HyperFitPart& p : effective_parts(o)) {  // one length-scale: one scale per part
      if (p.ard || p.begin < 0 || p.size < 1 || p.begin + p.size > d) continue;
      sd.segment(p.begin, p.size)
          .setConstant(std::sqrt(sd.segment(p.begin, p.size).square().mean()));
    }
    Xm = Xm * sd.inverse().matrix().asDiagonal();
  }

  // ψ = (ln l_0..ln l_{q−1}, ln v (or ln v_1..ln v_P for a sum), ln σ_n²); col[j]: a column of
  // length-scale j (its standardisation scale).
  std::vector<Eigen::Index> col;
  if (o.parts.empty()) {
    for (Eigen::Index j = 0; j < (o.ard ? d : 1); ++j) col.push_back(j);
  } else {
    for (const HyperFitPart& p : effective_parts(o)) {
      for (int j = 0; j < (p.ard ? p.size : 1); ++j)
        col.push_back(std::min<Eigen::Index>(p.begin + j, d - 1));
    }
  }
  const auto q = static_cast<Eigen::Index>(col.size());
  const Eigen::Index nv = !o.parts.empty() && o.sum ? static_cast<Eigen::Index>(o.parts.size()) : 1;
  Eigen::VectorXd lb(q + nv + 1), ub(q + nv + 1);
  lb.head(q).setConstant(std::log(o.lengthscale_lower));
  ub.head(q).setConstant(std::log(o.lengthscale_upper));
  lb.segment(q, nv).setConstant(std::log(o.signal_lower));
  ub.segment(q, nv).setConstant(std::log(o.signal_upper));
  lb(q + nv) = std::log(o.noise_lower);
  ub(q + nv) = std::log(o.noise_upper);

  LBFGSpp::LBFGSBParam<double> param;
  param.m = 6;
  param.epsilon = 1e-6;
  param.past = 1;
  param.delta = o.relative_tolerance;
  param.max_iterations = o.max_iterations;
  param.max_linesearch = 40;
  LBFGSpp::LBFGSBSolver<double> solver(param);

  NegLogLik fun(Xm, ym, known.size() > 0 ? &known : nullptr, o, q, nv);
  HyperFit out;
  const int given = static_cast<int>(o.starts.size());
  for (int s = -given; s <= o.random_starts; ++s) {
    Eigen::VectorXd psi(q + nv + 1);
    if (s < 0) {  // a given start, in the caller's units: into the fit's
      const GpHyperparameters& g = o.starts[static_cast<std::size_t>(s + given)];
      GPB_EXPECTS(g.lengthscales.size() == 1 || g.lengthscales.size() == q,
                  "hyperfit: a start has " << g.lengthscales.size() << " length-scales for " << q);
      for (Eigen::Index j = 0; j < q; ++j) {
        psi(j) = std::log(g.lengthscales(g.lengthscales.size() == 1 ? 0 : j) /
                          sd(col[static_cast<std::size_t>(j)]));
      }
      for (Eigen::Index v = 0; v < nv; ++v) {  // a sum: the given parts' variances or v / P each
        psi(q + v) = std::log(g.part_variances.size() == nv && nv > 1 ? g.part_variances(v)
                                                                      : g.signal_variance / nv);
      }
      psi(q + nv) = std::log(g.noise_variance);
      if (!psi.allFinite()) continue;
    } else if (s == 0) {
      psi.head(q).setConstant(o.lengthscale_prior_scale > 0 ? o.lengthscale_prior_loc : 0.0);
      psi.segment(q, nv).setConstant(nv == 1 ? 0.0 : -std::log(static_cast<double>(nv)));  // Σ = 1
      psi(q + nv) = std::log(1e-2);
    } else {
      for (Eigen::Index k = 0; k < q + nv + 1; ++k) {
        psi(k) = lb(k) + (ub(k) - lb(k)) * rng.uniform();
      }
    }
    psi = psi.cwiseMax(lb).cwiseMin(ub);
    double fx = 0;
    try {
      solver.minimize(fun, psi, fx, lb, ub);
      ++out.starts_converged;
    } catch (const std::exception&) {
      // Line-search or iteration failures: the best point this start evaluated is still kept.
    }
  }
  out.evaluations = fun.evaluations;
  if (!std::isfinite(fun.best_value)) {
    throw NumericalError("hyperfit: the likelihood could not be evaluated at any start");
  }
  out.theta = fun.unpack(fun.best_psi);
  for (Eigen::Index j = 0; j < q; ++j) {
    out.theta.lengthscales(j) *= sd(col[static_cast<std::size_t>(j)]);
  }
  out.log_likelihood = fun.best_ll;
  out.log_posterior = -fun.best_value;
  out.rows_used = static_cast<int>(m);
  return out;
}

}  // namespace gpb
