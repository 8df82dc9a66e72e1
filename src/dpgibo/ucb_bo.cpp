// Global UCB-BO baseline of DP-GIBO experiments (specs/dp-gibo.md §6): GP-UCB on the mean observed
// loss over uniform random candidates of Θ, run on the engine ops.
#include <cmath>
#include <limits>

#include "gpbandit/dpgibo/algorithms.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"

namespace gpb::dpgibo {

RunTrace run_ucb_bo(const Context& ctx, const Task& task, const UcbBoOptions& o,
                    EvalNoise eval_noise, RunRandomness rnd) {
  GPB_EXPECTS(o.evaluations >= 1, "evaluations: must be >= 1, got " << o.evaluations);
  GPB_EXPECTS(o.n_cand >= 1, "n_cand: must be >= 1, got " << o.n_cand);
  GPB_EXPECTS(std::isfinite(o.width) && o.width >= 0, "beta_width: must be >= 0, got " << o.width);
  const int d = task.dim(), n = task.users();
  const Kernel k = Kernel::se(o.lengthscale, o.variance);
  // Noise of the mean of n per-user noisy losses (one shared draw: not averaged), with a floor so
  // noise-free runs stay PD.
  const double eval_noise_sd = eval_noise.sd;
  const double mean_var = eval_noise_sd * eval_noise_sd / (eval_noise.shared_per_point ? 1 : n);
  const double noise = std::max(mean_var, 1e-6 * o.variance);
  JitterPolicy jp;
  jp.relative = false;
  jp.first = 1e-8 * o.variance;
  Cholesky chol(ctx, jp);
  Eigen::MatrixXd X(d, 0);
  Eigen::VectorXd y(0);
  RunTrace out;
  double best = std::numeric_limits<double>::infinity();
  Eigen::MatrixXd C(d, o.n_cand);
  for (int e = 1; e <= o.evaluations; ++e) {
    for (int j = 0; j < o.n_cand; ++j) {
      for (int a = 0; a < d; ++a)
        C(a, j) = rnd.acquisition->uniform(task.lower()(a), task.upper()(a));
    }
    Eigen::VectorXd neg_mean = Eigen::VectorXd::Zero(o.n_cand);
    Eigen::VectorXd var = Eigen::VectorXd::Constant(o.n_cand, o.variance);
    if (X.cols() > 0) {
      const double m0 = y.mean();
      Eigen::MatrixXd V = kernel_matrix(ctx, k, X, C);
      chol.solve_lower(V);
      Eigen::MatrixXd r = (y.array() - m0).matrix();
      chol.solve_lower(r);
      neg_mean = -(m0 + (V.transpose() * r).array()).matrix();
      var -= V.colwise().squaredNorm().transpose();
    }
    const UcbChoice ch =
        ucb_argmax(ctx, neg_mean.data(), var.data(), o.n_cand, o.width, nullptr, nullptr);
    const Eigen::VectorXd z = C.col(ch.index);
    const Eigen::VectorXd L = task.losses(z);
    double ybar = L.mean();
    if (eval_noise_sd > 0 && eval_noise.shared_per_point) {
      ybar += eval_noise_sd * rnd.evaluation->normal();
    } else if (eval_noise_sd > 0) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += rnd.evaluation->normal();
      ybar += eval_noise_sd * s / n;
    }
    const Eigen::VectorXd kz = kernel_matrix(ctx, k, X, z);
    chol.append(kz, o.variance + noise);
    X.conservativeResize(Eigen::NoChange, X.cols() + 1);
    X.col(X.cols() - 1) = z;
    y.conservativeResize(y.size() + 1);
    y(y.size() - 1) = ybar;
    if (L.mean() < best) {
      best = L.mean();
      out.theta = z;
    }
    Iterate it;
    it.t = e;
    it.b = 1;
    it.evaluations = e;
    it.loss = best;
    it.theta1 = out.theta(0);
    out.rows.push_back(it);
  }
  out.jitter_used = chol.jitter_used();
  return out;
}

}  // namespace gpb::dpgibo
