// DP-GIBO point selection (specs/dp-gibo.md §3): the greedy trace design A1, the axis design A3
// and the joint design (A1 followed by block-coordinate sweeps), on any GradientSurrogate.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "gpbandit/dpgibo/algorithms.hpp"
#include "gpbandit/dpgibo/gradient_gp.hpp"
#include "gpbandit/dpgibo/poly_gradient_gp.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/error.hpp"

namespace gpb::dpgibo {

Eigen::VectorXd project(const Task& task, const Eigen::VectorXd& x) {
  return x.cwiseMax(task.lower()).cwiseMin(task.upper());
}

Eigen::VectorXd design_box(const GiboOptions& o, int d) {
  if (o.r_box > 0) return Eigen::VectorXd::Constant(d, o.r_box);
  if (o.kernel == SurrogateKernel::Polynomial) return Eigen::VectorXd::Ones(d);
  return lengthscales(o, d);
}

std::unique_ptr<GradientSurrogate> make_surrogate(const Context& ctx, const GiboOptions& o, int d) {
  const double tau = o.jitter * o.variance;
  if (o.kernel == SurrogateKernel::SE) {
    return std::make_unique<GradientGp>(ctx, lengthscales(o, d), o.variance, o.sigma2, tau);
  }
  if (o.poly_weight_space) {
    GPB_EXPECTS(o.degree == 2,
                "degree: the weight-space polynomial surrogate supports degree 2 "
                "only (use poly_impl = function_space), got "
                    << o.degree);
    return std::make_unique<PolyWeightGp>(d, o.variance, o.offset, o.sigma2, tau);
  }
  return std::make_unique<GradientGp>(ctx, Kernel::polynomial(o.degree, o.variance, o.offset), d,
                                      o.sigma2, tau);
}

namespace {

/// Projected gradient ascent on Δ(z) inside [lo, hi] from z (backtracking, n_steps steps); the
/// step is measured in units of `scale` per coordinate.
double refine(const GradientSurrogate::DecrementFn& f, const Eigen::VectorXd& scale,
              const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, int n_steps,
              Eigen::VectorXd& z) {
  Eigen::VectorXd g, gt;
  double val = f(z, g);
  double alpha = 0.25;  // step length in units of `scale`
  for (int it = 0; it < n_steps; ++it) {
    const double n = g.cwiseProduct(scale).norm();
    if (!(n > 0)) break;
    const Eigen::VectorXd dir = scale.cwiseProduct(scale).cwiseProduct(g) / n;
    bool moved = false;
    for (int tries = 0; tries < 5 && !moved; ++tries, alpha *= 0.5) {
      const Eigen::VectorXd cand = (z + alpha * dir).cwiseMax(lo).cwiseMin(hi);
      const double v = f(cand, gt);
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

/// What one design step works with: θ, the box, the axis points and the random stream.
struct Design {
  const Task& task;
  const GiboOptions& o;
  const Eigen::VectorXd& theta;
  Rng& rng;
  std::vector<Eigen::MatrixXd>* pools;
  Eigen::VectorXd scale, lo, hi;
  Eigen::MatrixXd axis;  // θ ± h*·r_a e_a, clamped

  Design(const Task& t, const GiboOptions& opt, const Eigen::VectorXd& th, Rng& r,
         std::vector<Eigen::MatrixXd>* p)
      : task(t), o(opt), theta(th), rng(r), pools(p) {
    const int d = task.dim();
    scale = design_box(o, d);
    lo = (theta - scale).cwiseMax(task.lower());
    hi = (theta + scale).cwiseMin(task.upper());
    const double h = axis_design_step(d, 1.0, 1.0, o.sigma2 / o.variance, 1);  // in units of r
    axis.resize(d, 2 * d);
    for (int a = 0; a < d; ++a) {
      axis.col(2 * a) = theta;
      axis.col(2 * a + 1) = theta;
      axis(a, 2 * a) += h * scale(a);
      axis(a, 2 * a + 1) -= h * scale(a);
    }
    for (int j = 0; j < 2 * d; ++j) axis.col(j) = project(task, axis.col(j));
  }

  /// n_cand uniform points of the box, the axis points, θ and the `extra` columns.
  Eigen::MatrixXd draw(const Eigen::MatrixXd& extra) {
    const int d = task.dim();
    Eigen::MatrixXd C(d, o.n_cand + 2 * d + 1 + extra.cols());
    for (int j = 0; j < o.n_cand; ++j) {
      for (int a = 0; a < d; ++a) C(a, j) = rng.uniform(lo(a), hi(a));
    }
    C.middleCols(o.n_cand, 2 * d) = axis;
    C.col(o.n_cand + 2 * d) = project(task, theta);
    C.rightCols(extra.cols()) = extra;
    if (pools != nullptr) pools->push_back(C);
    return C;
  }

  /// The best point of a scored pool: the top decrement, then the best n_restart candidates
  /// (and the columns listed in `always`) refined. Returns Δ; `z` the point; `index` its pool
  /// column, or −1 when refinement moved it.
  double best(const GradientSurrogate& gp, const GradientSurrogate::Candidates& pool,
              const std::vector<Eigen::Index>& always, Eigen::VectorXd& z, Eigen::Index& index) {
    const Eigen::VectorXd delta = pool.decrements();
    double top = delta.maxCoeff(&index);
    z = pool.C.col(index);
    if (o.n_restart <= 0 || o.n_steps <= 0) return top;
    const GradientSurrogate::DecrementFn f = gp.decrement_at(theta);
    std::vector<Eigen::Index> order(static_cast<std::size_t>(delta.size()));
    for (Eigen::Index j = 0; j < delta.size(); ++j) order[static_cast<std::size_t>(j)] = j;
    const int nr = std::min<int>(o.n_restart, static_cast<int>(delta.size()));
    std::partial_sort(order.begin(), order.begin() + nr, order.end(),
                      [&](Eigen::Index a, Eigen::Index b) { return delta(a) > delta(b); });
    order.resize(static_cast<std::size_t>(nr));
    order.insert(order.end(), always.begin(), always.end());
    for (const Eigen::Index j : order) {
      Eigen::VectorXd zr = pool.C.col(j);
      const double v = refine(f, scale, lo, hi, o.n_steps, zr);
      if (v > top) {
        top = v;
        z = zr;
        index = -1;
      }
    }
    return top;
  }
};

/// A1 (§3.2) on `gp`: appends the chosen points to it and returns them.
Eigen::MatrixXd greedy(Design& ds, GradientSurrogate& gp) {
  const GiboOptions& o = ds.o;
  const int d = ds.task.dim();
  const int cap = o.b_fixed > 0 ? o.b_fixed : (o.b_max > 0 ? o.b_max : b_cap(d));
  Eigen::MatrixXd Z(d, 0);
  auto take = [&](const Eigen::VectorXd& z) {
    Z.conservativeResize(Eigen::NoChange, Z.cols() + 1);
    Z.col(Z.cols() - 1) = z;
  };
  double tr = gp.trace(ds.theta);
  if (o.theta_in_batch && cap >= 1) {
    const Eigen::VectorXd t0 = project(ds.task, ds.theta);
    take(t0);
    gp.append(t0);
    tr = gp.trace(ds.theta);
  }
  const double floor = 1e-12 * gp.prior_trace_at(ds.theta);
  GradientSurrogate::Candidates pool;
  while (Z.cols() < cap) {
    if (o.b_fixed == 0 && Z.cols() >= 1 && tr <= o.eps_bias) break;
    if (pool.C.cols() == 0 || o.pool_redraw) {  // a fresh pool per greedy step (spec A1 step 5)
      pool = gp.score(ds.theta, ds.draw(Eigen::MatrixXd(d, 0)));
    }
    Eigen::VectorXd zbest;
    Eigen::Index index = 0;
    const double top = ds.best(gp, pool, {}, zbest, index);
    if (Z.cols() >= 1 && top <= floor) break;  // no progress possible
    take(zbest);
    if (index < 0) {
      gp.append(zbest);
      if (!o.pool_redraw) pool = gp.score(ds.theta, pool.C);
    } else {
      gp.append_candidate(pool, static_cast<int>(index));
    }
    tr -= top;
  }
  return Z;
}

/// Joint design (§3.3 acq = joint): re-optimises each point of Z with the others fixed.
/// Tr(D ∪ Z) = Tr(D ∪ Z∖z_j) − Δ_j(z_j), so maximising Δ_j lowers the trace of the whole set.
void joint_sweeps(Design& ds, const GradientSurrogate& base, Eigen::MatrixXd& Z) {
  const int b = static_cast<int>(Z.cols());
  const int first = ds.o.theta_in_batch ? 1 : 0;  // θ_t stays in the batch
  for (int sweep = 0; sweep < ds.o.sweeps && b > 1; ++sweep) {
    bool moved = false;
    for (int j = first; j < b; ++j) {
      std::unique_ptr<GradientSurrogate> rest = base.clone();
      for (int k = 0; k < b; ++k) {
        if (k != j) rest->append(Z.col(k));
      }
      Eigen::VectorXd g;
      const double current = rest->decrement_at(ds.theta)(Z.col(j), g);
      const GradientSurrogate::Candidates pool =
          rest->score(ds.theta, ds.draw(Eigen::MatrixXd(Z.col(j))));
      Eigen::VectorXd z;
      Eigen::Index index = 0;
      const double v = ds.best(*rest, pool, {pool.C.cols() - 1}, z, index);
      if (v > current * (1 + 1e-9) + 1e-300) {
        Z.col(j) = z;
        moved = true;
      }
    }
    if (!moved) break;
  }
}

}  // namespace

Eigen::MatrixXd select_points(const Task& task, const GiboOptions& o, GradientSurrogate& gp,
                              const Eigen::VectorXd& theta, Rng& rng,
                              std::vector<Eigen::MatrixXd>* pools) {
  const int d = task.dim();
  Design ds(task, o, theta, rng, pools);
  if (o.acq == Acquisition::Axis) {
    const int b = o.b_fixed > 0 ? o.b_fixed : 2 * d;
    Eigen::MatrixXd Z = ds.axis.leftCols(b);
    gp.append(Z);
    return Z;
  }
  if (o.acq == Acquisition::Greedy) return greedy(ds, gp);
  const std::unique_ptr<GradientSurrogate> base = gp.clone();
  const std::unique_ptr<GradientSurrogate> work = gp.clone();
  Eigen::MatrixXd Z = greedy(ds, *work);
  joint_sweeps(ds, *base, Z);
  gp.append(Z);
  return Z;
}

}  // namespace gpb::dpgibo
