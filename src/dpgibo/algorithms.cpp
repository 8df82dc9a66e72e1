// DP-GIBO / GIBO (Algorithm 1 of specs/dp-gibo.md §4) and DP-GD / GD.
#include "gpbandit/dpgibo/algorithms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

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
  GPB_EXPECTS(o.lengthscales.empty() || static_cast<int>(o.lengthscales.size()) == d,
              p << "lengthscale: an array must have d = " << d << " entries, got "
                << o.lengthscales.size());
  for (double l : o.lengthscales) {
    GPB_EXPECTS(std::isfinite(l) && l > 0, p << "lengthscale: entries must be > 0, got " << l);
  }
  GPB_EXPECTS(o.n_restart >= 0, p << "n_restart: must be >= 0, got " << o.n_restart);
  GPB_EXPECTS(o.n_steps >= 0, p << "n_steps: must be >= 0, got " << o.n_steps);
  GPB_EXPECTS(o.history_k >= 0, p << "history: k must be >= 1, got " << o.history_k);
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

Eigen::VectorXd clamp_box(const Task& task, Eigen::VectorXd x) {
  return x.cwiseMax(task.lower()).cwiseMin(task.upper());
}

/// The step rule followed by the projection on Θ.
class Stepper {
 public:
  Stepper(const GiboOptions& o, int d)
      : o_(o), ell_(lengthscales(o, d)), acc_(Eigen::VectorXd::Zero(d)) {}
  Eigen::VectorXd step(const Task& task, const Eigen::VectorXd& theta, const Eigen::VectorXd& g) {
    return clamp_box(task, step_update(o_, ell_, acc_, theta, g));
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

/// Projected gradient ascent on Δ(z) inside [lo, hi] from z (backtracking, n_steps steps).
double refine(const GradientGp& gp, const Eigen::VectorXd& theta, const Eigen::MatrixXd& A,
              const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, int n_steps,
              Eigen::VectorXd& z) {
  const Eigen::VectorXd ell = gp.lengthscales();
  Eigen::VectorXd g, gt;
  double val = gp.decrement_and_gradient(theta, A, z, g);
  double alpha = 0.25;  // step length in units of ℓ
  for (int it = 0; it < n_steps; ++it) {
    const Eigen::VectorXd dir = ell.cwiseProduct(g);  // ascent direction in ℓ-scaled coordinates
    const double n = g.cwiseProduct(ell).norm();
    if (!(n > 0)) break;
    bool moved = false;
    for (int tries = 0; tries < 5 && !moved; ++tries, alpha *= 0.5) {
      const Eigen::VectorXd cand =
          (z + (alpha / n) * ell.cwiseProduct(dir)).cwiseMax(lo).cwiseMin(hi);
      const double v = gp.decrement_and_gradient(theta, A, cand, gt);
      if (v > val) {
        z = cand;
        val = v;
        g = gt;
        moved = true;
      }
    }
    if (!moved) break;
    alpha = std::min(1.0, alpha * 4);  // undo the halving that follows a success, and grow
  }
  return val;
}

}  // namespace

Eigen::MatrixXd select_points(const Task& task, const GiboOptions& o, GradientGp& gp,
                              const Eigen::VectorXd& theta, Rng& rng,
                              std::vector<Eigen::MatrixXd>* pools) {
  const int d = task.dim();
  const Eigen::VectorXd ell = gp.lengthscales();
  const double h_axis = axis_design_step(d, 1.0, 1.0, o.sigma2 / o.variance, 1);  // in units of ℓ
  Eigen::MatrixXd axis(d, 2 * d);
  for (int a = 0; a < d; ++a) {
    axis.col(2 * a) = theta;
    axis.col(2 * a + 1) = theta;
    axis(a, 2 * a) += h_axis * ell(a);
    axis(a, 2 * a + 1) -= h_axis * ell(a);
  }
  for (int j = 0; j < 2 * d; ++j) axis.col(j) = clamp_box(task, axis.col(j));
  if (o.acq == Acquisition::Axis) {
    const int b = o.b_fixed > 0 ? o.b_fixed : 2 * d;
    Eigen::MatrixXd Z = axis.leftCols(b);
    gp.append(Z);
    return Z;
  }
  const int cap = o.b_fixed > 0 ? o.b_fixed : (o.b_max > 0 ? o.b_max : b_cap(d));
  const Eigen::VectorXd lo = (theta - ell).cwiseMax(task.lower());
  const Eigen::VectorXd hi = (theta + ell).cwiseMin(task.upper());
  auto draw = [&]() {
    Eigen::MatrixXd C(d, o.n_cand + 2 * d + 1);
    for (int j = 0; j < o.n_cand; ++j) {
      for (int a = 0; a < d; ++a) C(a, j) = rng.uniform(lo(a), hi(a));
    }
    C.middleCols(o.n_cand, 2 * d) = axis;
    C.col(C.cols() - 1) = clamp_box(task, theta);
    if (pools != nullptr) pools->push_back(C);
    return C;
  };
  Eigen::MatrixXd Z(d, 0);
  auto take = [&](const Eigen::VectorXd& z) {
    Z.conservativeResize(Eigen::NoChange, Z.cols() + 1);
    Z.col(Z.cols() - 1) = z;
  };
  double tr = gp.trace(theta);
  if (o.theta_in_batch && cap >= 1) {
    const Eigen::VectorXd t0 = clamp_box(task, theta);
    take(t0);
    gp.append(t0);
    tr = gp.trace(theta);
  }
  Eigen::MatrixXd C;
  GradientGp::Candidates pool;
  while (Z.cols() < cap) {
    if (o.b_fixed == 0 && Z.cols() >= 1 && tr <= o.eps_bias) break;
    if (C.cols() == 0 || o.pool_redraw) {  // a fresh pool per greedy step (spec A1 step 5)
      C = draw();
      pool = gp.score(theta, C);
    }
    const Eigen::VectorXd delta = pool.decrements();
    Eigen::Index best = 0;
    double top = delta.maxCoeff(&best);
    Eigen::VectorXd zbest = C.col(best);
    bool refined = false;
    if (o.n_restart > 0 && o.n_steps > 0) {
      const Eigen::MatrixXd A = gp.gradient_operator(theta);
      std::vector<Eigen::Index> order(static_cast<std::size_t>(delta.size()));
      for (Eigen::Index j = 0; j < delta.size(); ++j) order[static_cast<std::size_t>(j)] = j;
      const int nr = std::min<int>(o.n_restart, static_cast<int>(delta.size()));
      std::partial_sort(order.begin(), order.begin() + nr, order.end(),
                        [&](Eigen::Index a, Eigen::Index b) { return delta(a) > delta(b); });
      for (int r = 0; r < nr; ++r) {
        Eigen::VectorXd z = C.col(order[static_cast<std::size_t>(r)]);
        const double v = refine(gp, theta, A, lo, hi, o.n_steps, z);
        if (v > top) {
          top = v;
          zbest = z;
          refined = true;
        }
      }
    }
    if (Z.cols() >= 1 && top <= 1e-12 * gp.prior_trace()) break;  // no progress possible
    take(zbest);
    if (refined) {
      gp.append(zbest);
      if (!o.pool_redraw) pool = gp.score(theta, C);
    } else {
      gp.append_candidate(pool, static_cast<int>(best));
    }
    tr -= top;
  }
  return Z;
}

RunTrace run_dp_gibo(const Context& ctx, const Task& task, const GiboOptions& o,
                     const Eigen::VectorXd& theta0, double eval_noise_sd, RunRandomness rnd) {
  const int d = task.dim(), n = task.users();
  validate(o, d, "");
  GPB_EXPECTS(theta0.size() == d, "theta0 has dimension " << theta0.size() << ", expected " << d);
  const double nu = dp_noise_std(o.B, o.T, n, o.mu);
  const Eigen::VectorXd ell = lengthscales(o, d);
  auto gp = std::make_unique<GradientGp>(ctx, ell, o.variance, o.sigma2, o.jitter * o.variance);
  Stepper stepper(o, d);
  RunTrace out;
  Eigen::VectorXd theta = clamp_box(task, theta0);
  out.rows.push_back({0, 0, 0, gp->trace(theta), task.objective(theta), 0, 0, 0, theta(0)});
  Eigen::MatrixXd Y(0, n), X(d, 0);  // every evaluated point and its per-user losses
  Eigen::MatrixXd Yw(0, n);          // the losses of the GP's points (the window)
  long evaluations = 0;
  for (int t = 1; t <= o.T; ++t) {
    if (o.history_k > 0 && X.cols() > o.history_k) {  // history = nearest(k): public (points only)
      const std::vector<int> keep = nearest_points(X, theta, ell, o.history_k);
      out.jitter_used = std::max(out.jitter_used, gp->jitter_used());
      gp = std::make_unique<GradientGp>(ctx, ell, o.variance, o.sigma2, o.jitter * o.variance);
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
    const Eigen::MatrixXd Ynew = evaluate(task, Z, eval_noise_sd, rnd.evaluation);
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
