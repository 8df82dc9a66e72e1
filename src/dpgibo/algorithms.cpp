// DP-GIBO / GIBO (Algorithm 1 of specs/dp-gibo.md §4) and DP-GD / GD.
#include "gpbandit/dpgibo/algorithms.hpp"

#include <cmath>
#include <limits>

#include "gpbandit/dpgibo/gradient_gp.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/kernel.hpp"
#include "gpbandit/privacy/gdp.hpp"

namespace gpb::dpgibo {

double dp_noise_std(double B, int T, int n, double mu) {
  GPB_EXPECTS(std::isfinite(B) && B > 0, "B: must be > 0, got " << B);
  GPB_EXPECTS(T >= 1, "T: must be >= 1, got " << T);
  GPB_EXPECTS(n >= 1, "n: must be >= 1, got " << n);
  GPB_EXPECTS(!std::isnan(mu) && mu > 0, "mu: must be > 0, got " << mu);
  if (std::isinf(mu)) return 0.0;
  return privacy::gaussian_mechanism_std(2 * B / n, mu) * std::sqrt(static_cast<double>(T));
}

void validate(const GiboOptions& o, int d, const std::string& p) {
  GPB_EXPECTS(!std::isnan(o.mu) && o.mu > 0, p << "mu: must be > 0 (or \"inf\"), got " << o.mu);
  GPB_EXPECTS(std::isfinite(o.B) && o.B > 0, p << "B: must be > 0, got " << o.B);
  GPB_EXPECTS(o.T >= 1, p << "T: must be >= 1, got " << o.T);
  GPB_EXPECTS(o.b_fixed >= 0 && o.b_fixed <= b_cap(d),
              p << "b: must lie in [1, 2d = " << b_cap(d) << "], got " << o.b_fixed);
  GPB_EXPECTS(o.b_max >= 0 && o.b_max <= b_cap(d),
              p << "b_max: must lie in [1, 2d = " << b_cap(d) << "], got " << o.b_max);
  GPB_EXPECTS(o.clip || std::isinf(o.mu),
              p << "clip: may be off only when mu is inf (the privacy proof needs clipping)");
  GPB_EXPECTS(std::isfinite(o.eta) && o.eta > 0, p << "eta: must be > 0, got " << o.eta);
  GPB_EXPECTS(std::isfinite(o.lengthscale) && o.lengthscale > 0,
              p << "lengthscale: must be > 0, got " << o.lengthscale);
  GPB_EXPECTS(std::isfinite(o.variance) && o.variance > 0,
              p << "variance: must be > 0, got " << o.variance);
  GPB_EXPECTS(std::isfinite(o.sigma2) && o.sigma2 >= 0,
              p << "sigma2: must be >= 0, got " << o.sigma2);
  GPB_EXPECTS(std::isfinite(o.eps_bias) && o.eps_bias > 0,
              p << "eps_bias: must be > 0, got " << o.eps_bias);
  GPB_EXPECTS(o.n_cand >= 1, p << "n_cand: must be >= 1, got " << o.n_cand);
  GPB_EXPECTS(std::isfinite(o.jitter) && o.jitter > 0,
              p << "jitter: must be > 0, got " << o.jitter);
}

Eigen::VectorXd clipped_mean(const Eigen::Ref<const Eigen::MatrixXd>& G, double B, bool clip,
                             int* clipped) {
  GPB_EXPECTS(G.cols() >= 1, "clipped_mean: need at least one column");
  Eigen::VectorXd g = Eigen::VectorXd::Zero(G.rows());
  int count = 0;
  for (Eigen::Index i = 0; i < G.cols(); ++i) {
    const double norm = G.col(i).norm();
    GPB_EXPECTS(std::isfinite(norm), "clipped_mean: column " << i << " is not finite");
    double c = 1.0;
    if (clip && norm > B) {
      c = B / norm;
      ++count;
    }
    g += c * G.col(i);
  }
  if (clipped != nullptr) *clipped = count;
  return g / static_cast<double>(G.cols());
}

namespace {

Eigen::VectorXd clamp_box(const Task& task, Eigen::VectorXd x) {
  return x.cwiseMax(task.lower()).cwiseMin(task.upper());
}

/// AdaGrad or GD update followed by the projection on Θ.
class Stepper {
 public:
  Stepper(const GiboOptions& o, int d) : o_(o), acc_(Eigen::VectorXd::Zero(d)) {}
  Eigen::VectorXd step(const Task& task, const Eigen::VectorXd& theta, const Eigen::VectorXd& g) {
    if (o_.step == StepRule::Gd) return clamp_box(task, theta - o_.eta * g);
    acc_.array() += g.array().square();
    const Eigen::ArrayXd scale = acc_.array().sqrt() + 1e-8;
    return clamp_box(task, theta - (o_.eta * g.array() / scale).matrix());
  }

 private:
  const GiboOptions& o_;
  Eigen::VectorXd acc_;
};

/// ĝ = g + ν·w with w ~ N(0, I) from the privacy source; returns ν‖w‖ in `noise_norm`.
Eigen::VectorXd privatize(const Eigen::VectorXd& g, double nu, privacy::NoiseSource* src,
                          double* noise_norm) {
  Eigen::VectorXd w = Eigen::VectorXd::Zero(g.size());
  if (nu > 0) {
    GPB_EXPECTS(src != nullptr, "a private run needs a privacy noise source");
    for (Eigen::Index a = 0; a < g.size(); ++a) w(a) = privacy::gaussian_noise(nu, *src);
  }
  *noise_norm = w.norm();
  return g + w;
}

/// Per-user noisy losses at the columns of Z: b×n.
Eigen::MatrixXd evaluate(const Task& task, const Eigen::MatrixXd& Z, double sd, Rng* rng) {
  Eigen::MatrixXd Y(Z.cols(), task.users());
  for (Eigen::Index j = 0; j < Z.cols(); ++j) {
    Y.row(j) = task.losses(Z.col(j)).transpose();
    if (sd > 0) {
      for (Eigen::Index i = 0; i < Y.cols(); ++i) Y(j, i) += sd * rng->normal();
    }
  }
  return Y;
}

/// Selects the evaluation points of one iteration and appends them to the GP; returns them.
Eigen::MatrixXd select_points(const Task& task, const GiboOptions& o, GradientGp& gp,
                              const Eigen::VectorXd& theta, double h_axis, Rng& rng) {
  const int d = task.dim();
  Eigen::MatrixXd axis(d, 2 * d);
  for (int a = 0; a < d; ++a) {
    axis.col(2 * a) = theta;
    axis.col(2 * a + 1) = theta;
    axis(a, 2 * a) += h_axis;
    axis(a, 2 * a + 1) -= h_axis;
  }
  for (int j = 0; j < 2 * d; ++j) axis.col(j) = clamp_box(task, axis.col(j));
  if (o.acq == Acquisition::Axis) {
    const int b = o.b_fixed > 0 ? o.b_fixed : 2 * d;
    Eigen::MatrixXd Z = axis.leftCols(b);
    gp.append(Z);
    return Z;
  }
  const int cap = o.b_fixed > 0 ? o.b_fixed : (o.b_max > 0 ? o.b_max : b_cap(d));
  const Eigen::VectorXd lo = (theta.array() - o.lengthscale).matrix().cwiseMax(task.lower());
  const Eigen::VectorXd hi = (theta.array() + o.lengthscale).matrix().cwiseMin(task.upper());
  // One pool per iteration (the spec redraws it per greedy step; one pool lets the Schur state
  // be updated in O(Nq) per chosen point instead of re-solving O(N²q)).
  Eigen::MatrixXd C(d, o.n_cand + 2 * d);
  for (int j = 0; j < o.n_cand; ++j) {
    for (int a = 0; a < d; ++a) C(a, j) = rng.uniform(lo(a), hi(a));
  }
  C.rightCols(2 * d) = axis;
  GradientGp::Candidates pool = gp.score(theta, C);
  Eigen::MatrixXd Z(d, 0);
  double tr = gp.trace(theta);
  while (Z.cols() < cap) {
    if (o.b_fixed == 0 && Z.cols() >= 1 && tr <= o.eps_bias) break;
    const Eigen::VectorXd delta = pool.decrements();
    Eigen::Index best = 0;
    const double top = delta.maxCoeff(&best);
    if (Z.cols() >= 1 && top <= 1e-12 * gp.prior_trace()) break;  // no progress possible
    Z.conservativeResize(Eigen::NoChange, Z.cols() + 1);
    Z.col(Z.cols() - 1) = C.col(best);
    gp.append_candidate(pool, static_cast<int>(best));
    tr -= top;
  }
  return Z;
}

}  // namespace

RunTrace run_dp_gibo(const Context& ctx, const Task& task, const GiboOptions& o,
                     const Eigen::VectorXd& theta0, double eval_noise_sd, RunRandomness rnd) {
  const int d = task.dim(), n = task.users();
  validate(o, d, "");
  GPB_EXPECTS(theta0.size() == d, "theta0 has dimension " << theta0.size() << ", expected " << d);
  const double nu = dp_noise_std(o.B, o.T, n, o.mu);
  GradientGp gp(ctx, Kernel::se(o.lengthscale, o.variance), d, o.sigma2, o.jitter * o.variance);
  const double h_axis = axis_design_step(d, o.variance, o.lengthscale, o.sigma2, 1);
  Stepper stepper(o, d);
  RunTrace out;
  Eigen::VectorXd theta = clamp_box(task, theta0);
  out.rows.push_back({0, 0, 0, gp.trace(theta), task.objective(theta), 0, 0, 0, theta(0)});
  Eigen::MatrixXd Y(0, n);
  for (int t = 1; t <= o.T; ++t) {
    const Eigen::MatrixXd Z = select_points(task, o, gp, theta, h_axis, *rnd.acquisition);
    Iterate it;
    it.t = t;
    it.b = static_cast<int>(Z.cols());
    it.trace = gp.trace(theta);
    const Eigen::MatrixXd Ynew = evaluate(task, Z, eval_noise_sd, rnd.evaluation);
    Y.conservativeResize(Y.rows() + Ynew.rows(), Eigen::NoChange);
    Y.bottomRows(Ynew.rows()) = Ynew;
    const Eigen::MatrixXd G = gp.mean_gradients(theta, Y);  // d×n
    int clipped = 0;
    const Eigen::VectorXd g = clipped_mean(G, o.B, o.clip, &clipped);
    const Eigen::VectorXd ghat = privatize(g, nu, rnd.privacy, &it.noise_norm);
    theta = stepper.step(task, theta, ghat);
    it.evaluations = gp.size();
    it.loss = task.objective(theta);  // evaluation only
    it.grad_norm = g.norm();
    it.clipped_fraction = static_cast<double>(clipped) / n;
    it.theta1 = theta(0);
    out.rows.push_back(it);
  }
  out.theta = theta;
  out.jitter_used = gp.jitter_used();
  return out;
}

RunTrace run_dp_gd(const Task& task, const GiboOptions& o, const Eigen::VectorXd& theta0,
                   RunRandomness rnd) {
  const int d = task.dim(), n = task.users();
  validate(o, d, "");
  GPB_EXPECTS(task.has_gradients(), "dp_gd: task " << task.describe() << " has no gradients");
  const double nu = dp_noise_std(o.B, o.T, n, o.mu);
  Stepper stepper(o, d);
  RunTrace out;
  Eigen::VectorXd theta = clamp_box(task, theta0);
  out.rows.push_back({0, 0, 0, 0, task.objective(theta), 0, 0, 0, theta(0)});
  for (int t = 1; t <= o.T; ++t) {
    Iterate it;
    it.t = t;
    int clipped = 0;
    const Eigen::VectorXd g = clipped_mean(task.per_user_gradients(theta), o.B, o.clip, &clipped);
    const Eigen::VectorXd ghat = privatize(g, nu, rnd.privacy, &it.noise_norm);
    theta = stepper.step(task, theta, ghat);
    it.loss = task.objective(theta);
    it.grad_norm = g.norm();
    it.clipped_fraction = static_cast<double>(clipped) / n;
    it.theta1 = theta(0);
    out.rows.push_back(it);
  }
  out.theta = theta;
  return out;
}

RunTrace run_random_search(const Task& task, int evaluations, Rng& rng) {
  GPB_EXPECTS(evaluations >= 1, "evaluations: must be >= 1, got " << evaluations);
  const int d = task.dim();
  RunTrace out;
  double best = std::numeric_limits<double>::infinity();
  Eigen::VectorXd theta(d);
  for (int k = 1; k <= evaluations; ++k) {
    for (int a = 0; a < d; ++a) theta(a) = rng.uniform(task.lower()(a), task.upper()(a));
    const double f = task.objective(theta);
    if (f < best) {
      best = f;
      out.theta = theta;
    }
    Iterate it;
    it.t = k;
    it.b = 1;
    it.evaluations = k;
    it.loss = best;
    it.theta1 = out.theta(0);
    out.rows.push_back(it);
  }
  return out;
}

}  // namespace gpb::dpgibo
