// DP-GIBO / GIBO (Algorithm 1 of specs/dp-gibo.md §4) and DP-GD / GD.
#include "gpbandit/dpgibo/algorithms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "gpbandit/error.hpp"
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
  GPB_EXPECTS(o.lengthscales.empty() || static_cast<int>(o.lengthscales.size()) == d,
              p << "lengthscale: an array must have d = " << d << " entries, got "
                << o.lengthscales.size());
  for (double l : o.lengthscales) {
    GPB_EXPECTS(std::isfinite(l) && l > 0, p << "lengthscale: entries must be > 0, got " << l);
  }
  GPB_EXPECTS(o.n_restart >= 0, p << "n_restart: must be >= 0, got " << o.n_restart);
  GPB_EXPECTS(o.n_steps >= 0, p << "n_steps: must be >= 0, got " << o.n_steps);
  GPB_EXPECTS(o.history_k >= 0, p << "history: k must be >= 1, got " << o.history_k);
  GPB_EXPECTS(o.degree >= 1, p << "degree: must be >= 1, got " << o.degree);
  GPB_EXPECTS(o.kernel == SurrogateKernel::SE || !o.poly_weight_space || o.degree == 2,
              p << "degree: the weight-space polynomial surrogate supports degree 2 only (use "
                   "poly_impl = \"function_space\"), got "
                << o.degree);
  GPB_EXPECTS(std::isfinite(o.offset) && o.offset >= 0,
              p << "offset: must be >= 0, got " << o.offset);
  GPB_EXPECTS(std::isfinite(o.r_box) && o.r_box >= 0, p << "r_box: must be > 0, got " << o.r_box);
  GPB_EXPECTS(o.sweeps >= 0, p << "sweeps: must be >= 0, got " << o.sweeps);
}

Eigen::VectorXd lengthscales(const GiboOptions& o, int d) {
  if (o.lengthscales.empty()) return Eigen::VectorXd::Constant(d, o.lengthscale);
  return Eigen::Map<const Eigen::VectorXd>(o.lengthscales.data(),
                                           static_cast<Eigen::Index>(o.lengthscales.size()));
}

std::vector<int> nearest_points(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                const Eigen::Ref<const Eigen::VectorXd>& theta,
                                const Eigen::Ref<const Eigen::VectorXd>& ell, int k) {
  GPB_EXPECTS(X.rows() == theta.size() && ell.size() == theta.size(),
              "nearest_points: dimensions differ");
  const int N = static_cast<int>(X.cols());
  std::vector<int> idx(static_cast<std::size_t>(N));
  std::vector<double> dist(static_cast<std::size_t>(N));
  for (int j = 0; j < N; ++j) {
    idx[static_cast<std::size_t>(j)] = j;
    dist[static_cast<std::size_t>(j)] =
        ((X.col(j) - theta).array() / ell.array()).matrix().squaredNorm();
  }
  if (k < N) {
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
      return dist[static_cast<std::size_t>(a)] < dist[static_cast<std::size_t>(b)];
    });
    idx.resize(static_cast<std::size_t>(k));
    std::sort(idx.begin(), idx.end());
  }
  return idx;
}

Eigen::VectorXd step_update(const GiboOptions& o, const Eigen::VectorXd& ell, Eigen::VectorXd& acc,
                            const Eigen::VectorXd& theta, const Eigen::VectorXd& g) {
  const Eigen::VectorXd eta = o.eta_in_lengthscales
                                  ? Eigen::VectorXd(o.eta * ell)
                                  : Eigen::VectorXd::Constant(theta.size(), o.eta);
  switch (o.step) {
    case StepRule::Gd:
      return theta - eta.cwiseProduct(g);
    case StepRule::Normalized: {
      const double n = g.norm();
      if (!(n > 0)) return theta;
      return theta - (o.eta / n) * ell.cwiseProduct(g);
    }
    case StepRule::AdaGrad:
    default:
      acc.array() += g.array().square();
      return theta - (eta.array() * g.array() / (acc.array().sqrt() + 1e-8)).matrix();
  }
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

/// The step rule followed by the projection on Θ.
class Stepper {
 public:
  Stepper(const GiboOptions& o, int d)
      : o_(o), ell_(lengthscales(o, d)), acc_(Eigen::VectorXd::Zero(d)) {}
  Eigen::VectorXd step(const Task& task, const Eigen::VectorXd& theta, const Eigen::VectorXd& g) {
    return project(task, step_update(o_, ell_, acc_, theta, g));
  }

 private:
  const GiboOptions& o_;
  Eigen::VectorXd ell_, acc_;
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
Eigen::MatrixXd evaluate(const Task& task, const Eigen::MatrixXd& Z, EvalNoise noise, Rng* rng) {
  Eigen::MatrixXd Y(Z.cols(), task.users());
  const double sd = noise.sd;
  for (Eigen::Index j = 0; j < Z.cols(); ++j) {
    Y.row(j) = task.losses(Z.col(j)).transpose();
    if (sd > 0 && noise.shared_per_point) {
      Y.row(j).array() += sd * rng->normal();
    } else if (sd > 0) {
      for (Eigen::Index i = 0; i < Y.cols(); ++i) Y(j, i) += sd * rng->normal();
    }
  }
  return Y;
}

}  // namespace

RunTrace run_dp_gibo(const Context& ctx, const Task& task, const GiboOptions& o,
                     const Eigen::VectorXd& theta0, EvalNoise eval_noise, RunRandomness rnd) {
  const int d = task.dim(), n = task.users();
  validate(o, d, "");
  GPB_EXPECTS(theta0.size() == d, "theta0 has dimension " << theta0.size() << ", expected " << d);
  const double nu = dp_noise_std(o.B, o.T, n, o.mu);
  const Eigen::VectorXd ell = lengthscales(o, d);
  std::unique_ptr<GradientSurrogate> gp = make_surrogate(ctx, o, d);
  Stepper stepper(o, d);
  RunTrace out;
  Eigen::VectorXd theta = project(task, theta0);
  out.rows.push_back({0, 0, 0, gp->trace(theta), task.objective(theta), 0, 0, 0, theta(0)});
  Eigen::MatrixXd Y(0, n), X(d, 0);  // every evaluated point and its per-user losses
  Eigen::MatrixXd Yw(0, n);          // the losses of the GP's points (the window)
  long evaluations = 0;
  for (int t = 1; t <= o.T; ++t) {
    if (o.history_k > 0 && X.cols() > o.history_k) {  // history = nearest(k): public (points only)
      const std::vector<int> keep = nearest_points(X, theta, ell, o.history_k);
      out.jitter_used = std::max(out.jitter_used, gp->jitter_used());
      gp = gp->empty_copy();
      Eigen::MatrixXd P(d, static_cast<Eigen::Index>(keep.size()));
      Yw.resize(static_cast<Eigen::Index>(keep.size()), n);
      for (std::size_t j = 0; j < keep.size(); ++j) {
        P.col(static_cast<Eigen::Index>(j)) = X.col(keep[j]);
        Yw.row(static_cast<Eigen::Index>(j)) = Y.row(keep[j]);
      }
      gp->append(P);
    }
    const Eigen::MatrixXd Z = select_points(task, o, *gp, theta, *rnd.acquisition);
    Iterate it;
    it.t = t;
    it.b = static_cast<int>(Z.cols());
    it.trace = gp->trace(theta);
    const Eigen::MatrixXd Ynew = evaluate(task, Z, eval_noise, rnd.evaluation);
    evaluations += Z.cols();
    X.conservativeResize(Eigen::NoChange, X.cols() + Z.cols());
    X.rightCols(Z.cols()) = Z;
    Y.conservativeResize(Y.rows() + Ynew.rows(), Eigen::NoChange);
    Y.bottomRows(Ynew.rows()) = Ynew;
    Yw.conservativeResize(Yw.rows() + Ynew.rows(), Eigen::NoChange);
    Yw.bottomRows(Ynew.rows()) = Ynew;
    const Eigen::MatrixXd G = gp->mean_gradients(theta, Yw);  // d×n
    int clipped = 0;
    const Eigen::VectorXd g = clipped_mean(G, o.B, o.clip, &clipped);
    if (task.has_gradients()) {  // evaluation-only diagnostics: never fed back
      const Eigen::MatrixXd Gt = task.per_user_gradients(theta);
      it.bias = (g - clipped_mean(Gt, o.B, o.clip)).norm();
      it.grad_error = (g - Gt.rowwise().mean()).norm();
    }
    const Eigen::VectorXd ghat = privatize(g, nu, rnd.privacy, &it.noise_norm);
    theta = stepper.step(task, theta, ghat);
    it.evaluations = evaluations;
    it.loss = task.objective(theta);  // evaluation only
    it.grad_norm = g.norm();
    it.clipped_fraction = static_cast<double>(clipped) / n;
    it.theta1 = theta(0);
    out.rows.push_back(it);
  }
  out.theta = theta;
  out.jitter_used = std::max(out.jitter_used, gp->jitter_used());
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
  Eigen::VectorXd theta = project(task, theta0);
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
