// Batch acquisitions over a pool's exact posterior (acquire.hpp).
#include "pool/acquire.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>

#include "gpbandit/engine/fingerprint_features.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"

namespace gpb::pool::detail {

namespace {

/// Standard normals into an r×c matrix.
Eigen::MatrixXd normals(Rng& rng, Eigen::Index r, Eigen::Index c) {
  Eigen::MatrixXd z(r, c);
  for (Eigen::Index j = 0; j < c; ++j) {
    for (Eigen::Index i = 0; i < r; ++i) z(i, j) = rng.normal();
  }
  return z;
}

/// A prior draw over every candidate for each column of the result (N × q): exact by the
/// Cholesky factor of K_DD (kept in `m.prior_factor` for the later batches of the run) or by
/// MinHash features.
Eigen::MatrixXd prior_draws(const AcquisitionSpec& spec, const RunModel& m, int q, Rng& rng) {
  const Domain& dom = m.lib->domain;
  const long long n = dom.size();
  const bool exact = spec.prior == "exact" || (spec.prior == "auto" && n <= spec.exact_limit);
  if (exact) {
    Eigen::MatrixXd& L = *m.prior_factor;
    if (L.rows() != n) {
      Eigen::MatrixXd K = kernel_matrix(*m.ctx, m.kernel, dom.points(), dom.points());
      K.diagonal().array() += 1e-8 * m.kernel.variance();  // rounding: K is PSD, not always PD
      Eigen::LLT<Eigen::MatrixXd> llt(K);
      if (llt.info() != Eigen::Success) {
        throw NumericalError("thompson: the prior kernel matrix is not positive definite");
      }
      L = llt.matrixL();
    }
    const Eigen::MatrixXd z = normals(rng, n, q);
    return L.triangularView<Eigen::Lower>() * z;
  }
  const TanimotoFeatures phi(dom.fingerprint_bits(), spec.features, rng.next_u64());
  const Eigen::MatrixXd w = normals(rng, spec.features, q);
  return std::sqrt(m.kernel.variance()) * phi.apply(dom, w, m.ctx->threads());
}

std::vector<int> thompson(const AcquisitionSpec& spec, const RunModel& m, int q, Rng& rng) {
  const Eigen::MatrixXd f = posterior_draws(spec, m, q, rng);
  std::vector<unsigned char> taken = *m.evaluated;
  std::vector<int> out;
  for (int j = 0; j < q; ++j) {
    int best = -1;
    double score = -std::numeric_limits<double>::infinity();
    for (Eigen::Index a = 0; a < f.rows(); ++a) {
      if (taken[static_cast<std::size_t>(a)] == 0 && f(a, j) > score) {
        score = f(a, j);
        best = static_cast<int>(a);
      }
    }
    GPB_EXPECTS(best >= 0, "thompson: no candidate left to choose");
    taken[static_cast<std::size_t>(best)] = 1;
    out.push_back(best);
  }
  return out;
}

}  // namespace

Eigen::MatrixXd posterior_draws(const AcquisitionSpec& spec, const RunModel& m, int q, Rng& rng) {
  const std::vector<int>& hist = *m.history;
  const int t = static_cast<int>(hist.size());
  Eigen::MatrixXd f = prior_draws(spec, m, q, rng);  // N × q
  // Pathwise update: f += K(D, X)(K + λI)⁻¹(y − f(X) − ε) = Vᵀ L⁻¹(y − f(X) − ε).
  Eigen::MatrixXd r(t, q);
  const double sd = std::sqrt(m.lambda);
  for (int i = 0; i < t; ++i) {
    for (int j = 0; j < q; ++j) {
      r(i, j) = (*m.centred)[static_cast<std::size_t>(i)] -
                f(hist[static_cast<std::size_t>(i)], j) - sd * rng.normal();
    }
  }
  const Eigen::MatrixXd L = m.post->factor(0).L;
  L.triangularView<Eigen::Lower>().solveInPlace(r);
  f.noalias() += m.post->apply_rows(0, r);
  return f;
}

namespace {

/// GP-BUCB with lazy evaluations (see acquire.hpp).
std::vector<int> gp_bucb(const AcquisitionSpec& spec, const RunModel& m, int q) {
  const Domain& dom = m.lib->domain;
  const int n = dom.size(), d = dom.dim();
  const double* mu = m.post->mean(0);
  const std::vector<double> s2(m.post->variance(0), m.post->variance(0) + n);
  const std::vector<double> mean(mu, mu + n);
  struct Entry {
    double score;
    int index;
    int stamp;  // |P| when the score was computed
    bool operator<(const Entry& o) const {
      return score < o.score || (score == o.score && index > o.index);
    }
  };
  std::priority_queue<Entry> heap;
  for (int a = 0; a < n; ++a) {
    if ((*m.evaluated)[static_cast<std::size_t>(a)] != 0) continue;
    heap.push({mean[a] + spec.beta * std::sqrt(std::max(s2[a], 0.0)), a, 0});
  }
  std::vector<int> picks;
  Eigen::MatrixXd vp;                                // t × |P|: the stored rows at the picks
  Eigen::MatrixXd lp = Eigen::MatrixXd::Zero(q, q);  // Cholesky of Σ(P, P) + λI
  // Σ(P, a) solved by L_P: w with L_P w = Σ(P, a); returns σ²_P(a) = σ²(a) − ‖w‖².
  const auto pending_var = [&](int a, Eigen::VectorXd* w_out) {
    const int p = static_cast<int>(picks.size());
    Eigen::VectorXd w(p);
    if (p > 0) {
      const Eigen::MatrixXd va = m.post->rows_at(0, {a});
      for (int i = 0; i < p; ++i) {
        w[i] = m.kernel(dom.point(picks[static_cast<std::size_t>(i)]), dom.point(a), d) -
               vp.col(i).dot(va.col(0));
      }
      lp.topLeftCorner(p, p).triangularView<Eigen::Lower>().solveInPlace(w);
    }
    if (w_out != nullptr) *w_out = w;
    return s2[a] - (p > 0 ? w.squaredNorm() : 0.0);
  };
  while (static_cast<int>(picks.size()) < q) {
    GPB_EXPECTS(!heap.empty(), "gp_bucb: no candidate left to choose");
    Entry e = heap.top();
    heap.pop();
    const int p = static_cast<int>(picks.size());
    if (e.stamp != p) {  // stale: recompute with the current picks, then compete again
      e.score = mean[e.index] + spec.beta * std::sqrt(std::max(pending_var(e.index, nullptr), 0.0));
      e.stamp = p;
      heap.push(e);
      continue;
    }
    Eigen::VectorXd w;
    const double var = pending_var(e.index, &w);
    if (p > 0) lp.row(p).head(p) = w.transpose();
    lp(p, p) = std::sqrt(std::max(m.lambda + var, 1e-10 * m.kernel.variance()));
    const Eigen::MatrixXd va = m.post->rows_at(0, {e.index});
    vp.conservativeResize(va.rows(), p + 1);
    vp.col(p) = va.col(0);
    picks.push_back(e.index);
  }
  return picks;
}

}  // namespace

std::vector<int> top_q(const double* score, const std::vector<unsigned char>& evaluated, int q) {
  std::vector<int> idx;
  idx.reserve(evaluated.size());
  for (std::size_t a = 0; a < evaluated.size(); ++a) {
    if (evaluated[a] == 0) idx.push_back(static_cast<int>(a));
  }
  GPB_EXPECTS(static_cast<int>(idx.size()) >= q,
              "acquire: " << idx.size() << " candidates left for a batch of " << q);
  const auto better = [&](int a, int b) {
    return score[a] > score[b] || (score[a] == score[b] && a < b);
  };
  std::nth_element(idx.begin(), idx.begin() + (q - 1), idx.end(), better);
  idx.resize(static_cast<std::size_t>(q));
  std::sort(idx.begin(), idx.end(), better);
  return idx;
}

std::vector<int> acquire(const AcquisitionSpec& spec, const RunModel& m, int q, Rng& rng) {
  if (spec.type == "greedy") return top_q(m.post->mean(0), *m.evaluated, q);
  if (spec.type == "ucb") {
    const int n = m.post->size();
    const double* mu = m.post->mean(0);
    const double* s2 = m.post->variance(0);
    std::vector<double> score(static_cast<std::size_t>(n));
    for (int a = 0; a < n; ++a) score[a] = mu[a] + spec.beta * std::sqrt(std::max(s2[a], 0.0));
    return top_q(score.data(), *m.evaluated, q);
  }
  if (spec.type == "thompson") return thompson(spec, m, q, rng);
  if (spec.type == "gp_bucb") return gp_bucb(spec, m, q);
  throw InvalidArgument("acquire: unknown acquisition '" + spec.type + "'");
}

}  // namespace gpb::pool::detail
