// Batch acquisitions over a pool's exact posterior (acquire.hpp).
#include "pool/acquire.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <vector>

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

/// GP-BUCB's pending variances, kept per candidate as far as they have been computed: the
/// candidates whose score has been recomputed (the "touched" ones) hold their stored rows v(a)
/// (t doubles) and w(a) = L_P⁻¹ Σ(P, a) for the picks made when it was last recomputed, so that
/// a later recomputation only adds the entries of the picks made since: one kernel value, one
/// dot product of length t and one forward-substitution step each (instead of every entry
/// again, with a fresh triangular solve). The value at a given |P| is the same whichever earlier
/// |P| the candidate was last recomputed at (the entries are computed one at a time, in order).
class PendingVariances {
 public:
  PendingVariances(const RunModel& m, int q)
      : m_(m),
        dom_(m.lib->domain),
        t_(m.post->rows()),
        q_(q),
        s2_(m.post->variance(0)),
        slot_(static_cast<std::size_t>(dom_.size()), -1),
        lp_(static_cast<std::size_t>(q) * q, 0.0) {}

  /// σ²_P(a) with P the picks so far.
  double variance(int a) {
    const int k = slot(a);
    Touched& e = touched_[static_cast<std::size_t>(k)];
    const double* va = rows_.data() + static_cast<std::size_t>(k) * t_;
    const double* xa = dom_.point(a);
    const int d = dom_.dim();
    for (int j = e.done; j < picks(); ++j) {  // the picks made since the last recomputation
      const int pj = picks_[static_cast<std::size_t>(j)];
      const double* vj = rows_.data() + static_cast<std::size_t>(slot_[pj]) * t_;
      const double cov = m_.kernel(dom_.point(pj), xa, d) - dot(vj, va, t_);
      double* w = w_.data() + static_cast<std::size_t>(k) * q_;
      const double* lj = lp_.data() + static_cast<std::size_t>(j) * q_;
      const double wj = (cov - dot(lj, w, j)) / lj[j];
      w[j] = wj;
      e.sq += wj * wj;
      e.done = j + 1;
    }
    return s2_[a] - e.sq;
  }

  /// Makes a (just recomputed by variance(a)) the next pick.
  void pick(int a) {
    const int p = picks();
    const int k = slot_[static_cast<std::size_t>(a)];
    const Touched& e = touched_[static_cast<std::size_t>(k)];
    GPB_EXPECTS(e.done == p, "gp_bucb: a pick must be up to date");
    double* row = lp_.data() + static_cast<std::size_t>(p) * q_;
    const double* w = w_.data() + static_cast<std::size_t>(k) * q_;
    std::copy(w, w + p, row);
    row[p] = std::sqrt(std::max(m_.lambda + (s2_[a] - e.sq), 1e-10 * m_.kernel.variance()));
    picks_.push_back(a);
  }

  int picks() const { return static_cast<int>(picks_.size()); }
  const std::vector<int>& chosen() const { return picks_; }

 private:
  struct Touched {
    int done = 0;   // entries of w computed: the picks made before its last recomputation
    double sq = 0;  // ‖w‖² over those entries
  };

  static double dot(const double* x, const double* y, int n) {
    if (n == 0) return 0.0;
    return Eigen::Map<const Eigen::VectorXd>(x, n).dot(Eigen::Map<const Eigen::VectorXd>(y, n));
  }

  int slot(int a) {
    int& k = slot_[static_cast<std::size_t>(a)];
    if (k < 0) {
      k = static_cast<int>(touched_.size());
      touched_.push_back({});
      const Eigen::MatrixXd va = m_.post->rows_at(0, {a});
      rows_.insert(rows_.end(), va.data(), va.data() + t_);
      w_.resize(w_.size() + static_cast<std::size_t>(q_), 0.0);
    }
    return k;
  }

  const RunModel& m_;
  const Domain& dom_;
  int t_, q_;
  const double* s2_;
  std::vector<int> slot_;  // candidate → its index among the touched ones, or −1
  std::vector<Touched> touched_;
  std::vector<double> rows_;  // v(a) of each touched candidate (t each)
  std::vector<double> w_;     // w(a) of each touched candidate (q each)
  std::vector<double> lp_;    // L_P, the Cholesky factor of Σ(P, P) + λI, row-major q × q
  std::vector<int> picks_;
};

/// GP-BUCB with lazy evaluations (see acquire.hpp).
std::vector<int> gp_bucb(const AcquisitionSpec& spec, const RunModel& m, int q) {
  const int n = m.post->size();
  const double* mu = m.post->mean(0);
  const std::vector<double> mean(mu, mu + n);
  PendingVariances pv(m, q);
  struct Entry {
    double score;
    int index;
    int stamp;  // |P| when the score was computed
    bool operator<(const Entry& o) const {
      return score < o.score || (score == o.score && index > o.index);
    }
  };
  std::vector<Entry> entries;
  const double* s2 = m.post->variance(0);
  for (int a = 0; a < n; ++a) {
    if ((*m.evaluated)[static_cast<std::size_t>(a)] != 0) continue;
    entries.push_back({mean[a] + spec.beta * std::sqrt(std::max(s2[a], 0.0)), a, 0});
  }
  std::priority_queue<Entry> heap(std::less<Entry>(), std::move(entries));
  while (pv.picks() < q) {
    GPB_EXPECTS(!heap.empty(), "gp_bucb: no candidate left to choose");
    Entry e = heap.top();
    heap.pop();
    const int p = pv.picks();
    if (e.stamp != p) {  // stale: recompute with the current picks, then compete again
      e.score = mean[e.index] + spec.beta * std::sqrt(std::max(pv.variance(e.index), 0.0));
      e.stamp = p;
      heap.push(e);
      continue;
    }
    pv.variance(e.index);  // up to date already, except at |P| = 0 (its rows not fetched yet)
    pv.pick(e.index);
  }
  return pv.chosen();
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
    const double* s2 = m.post->variance(0);  // first: in recompute mode its pass fills μ too
    const double* mu = m.post->mean(0);
    std::vector<double> score(static_cast<std::size_t>(n));
    for (int a = 0; a < n; ++a) score[a] = mu[a] + spec.beta * std::sqrt(std::max(s2[a], 0.0));
    return top_q(score.data(), *m.evaluated, q);
  }
  if (spec.type == "thompson") return thompson(spec, m, q, rng);
  if (spec.type == "gp_bucb") return gp_bucb(spec, m, q);
  throw InvalidArgument("acquire: unknown acquisition '" + spec.type + "'");
}

}  // namespace gpb::pool::detail
