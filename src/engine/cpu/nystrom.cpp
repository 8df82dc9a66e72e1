// CPU implementation of the Nyström embedding (NYS) and the approximate DTC posterior (APX),
// specs/ldp-bo.md §3.2–3.3. Never forms an N×N matrix: K[D,:] is built in column chunks.
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

#include "engine/cpu/features_cpu.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {

namespace {

/// Candidates per chunk of K[D, chunk] (m × kChunk doubles at a time).
constexpr Eigen::Index kChunk = 8192;

/// Symmetric eigen-decomposition with a checked result.
Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigh(const Eigen::MatrixXd& a, const char* what) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(a);
  if (es.info() != Eigen::Success) {
    throw NumericalError(std::string(what) +
                         ": the symmetric eigen-decomposition did not converge");
  }
  return es;
}

/// Q diag(f(ω)) Qᵀ.
Eigen::MatrixXd spectral(const Eigen::MatrixXd& q, const Eigen::VectorXd& f) {
  return q * f.asDiagonal() * q.transpose();
}

}  // namespace

NystromEmbedding nystrom_embedding_cpu(const Context& ctx, const Kernel& kernel,
                                       const Domain& domain, const std::vector<int>& candidates,
                                       const Eigen::VectorXd& s2, double q, Rng& rng, double tau) {
  const Eigen::Index n = domain.size();
  NystromEmbedding emb;
  // 1. Bernoulli dictionary: one draw per member of P, ascending, drawn even when p = 1.
  for (int a : candidates) {
    const double u = rng.uniform();
    const double p = std::min(q * s2[a], 1.0);
    if (u < p) emb.dictionary.push_back(a);
  }
  const Eigen::Index m = static_cast<Eigen::Index>(emb.dictionary.size());
  if (m == 0) {
    emb.phi.resize(0, n);
    return emb;
  }
  const Eigen::MatrixXd& points = domain.points();
  Eigen::MatrixXd xd(points.rows(), m);
  for (Eigen::Index i = 0; i < m; ++i) xd.col(i) = points.col(emb.dictionary[i]);
  // 2. W = (K_DD^{1/2})^† from eigh(K_DD), eigenvalues ≤ τ·max dropped.
  Eigen::MatrixXd kdd = kernel_matrix(ctx, kernel, xd, xd);
  kdd = 0.5 * (kdd + kdd.transpose()).eval();
  const auto es = eigh(kdd, "nystrom_embedding: K[D,D]");
  const Eigen::VectorXd& ev = es.eigenvalues();
  const double top = ev.maxCoeff();
  Eigen::VectorXd w = Eigen::VectorXd::Zero(m);
  if (top > 0) {
    for (Eigen::Index i = 0; i < m; ++i) {
      if (ev[i] > tau * top) w[i] = 1.0 / std::sqrt(ev[i]);
    }
  }
  const Eigen::MatrixXd wmat = spectral(es.eigenvectors(), w);
  // 3. Φ = W·K[D,:], chunked over candidates.
  emb.phi.resize(m, n);
  for (Eigen::Index c0 = 0; c0 < n; c0 += kChunk) {
    const Eigen::Index len = std::min(kChunk, n - c0);
    const Eigen::MatrixXd kdc = kernel_matrix(ctx, kernel, xd, points.middleCols(c0, len));
    emb.phi.middleCols(c0, len).noalias() = wmat * kdc;
  }
  return emb;
}

ApproxPosterior approx_posterior_cpu(const NystromEmbedding& emb, const Eigen::VectorXd& weights,
                                     const Eigen::VectorXd& kdiag, double lambda) {
  const Eigen::Index m = emb.phi.rows();
  const Eigen::Index n = weights.size();
  ApproxPosterior out;
  // m ≥ 1 here: src/engine/features.cpp returns the prior for an empty dictionary.
  // 1. Ṽ = λI + Σ_a w_a φ̃_a φ̃_aᵀ over the candidates with w_a > 0 (ascending order).
  Eigen::Index s = 0;
  for (Eigen::Index a = 0; a < n; ++a) s += weights[a] > 0 ? 1 : 0;
  Eigen::MatrixXd scaled(m, s);
  for (Eigen::Index a = 0, j = 0; a < n; ++a) {
    if (weights[a] > 0) scaled.col(j++) = std::sqrt(weights[a]) * emb.phi.col(a);
  }
  Eigen::MatrixXd v = Eigen::MatrixXd::Identity(m, m) * lambda;
  v.noalias() += scaled * scaled.transpose();
  v = 0.5 * (v + v.transpose()).eval();
  // 2. Symmetric inverse root and inverse from eigh(Ṽ).
  const auto es = eigh(v, "approx_posterior: V");
  const Eigen::VectorXd& om = es.eigenvalues();
  if (!(om.minCoeff() > 0)) {
    throw NumericalError("approx_posterior: V has a non-positive eigenvalue " +
                         std::to_string(om.minCoeff()));
  }
  out.v_inv_sqrt = spectral(es.eigenvectors(), om.array().sqrt().inverse().matrix());
  out.v_inv = spectral(es.eigenvectors(), om.array().inverse().matrix());
  // 3. G = Ṽ^{−1/2}Φ; 4. σ̃² = max(k(a,a) − ‖φ̃_a‖² + λ‖G[:,a]‖², 0).
  out.g.noalias() = out.v_inv_sqrt * emb.phi;
  out.variance.resize(n);
  for (Eigen::Index a = 0; a < n; ++a) {
    const double var =
        kdiag[a] - emb.phi.col(a).squaredNorm() + lambda * out.g.col(a).squaredNorm();
    out.variance[a] = std::max(var, 0.0);
  }
  return out;
}

}  // namespace gpb::detail
