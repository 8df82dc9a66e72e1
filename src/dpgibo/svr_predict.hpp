/// @file svr_predict.hpp
/// Predictions of a trained libsvm RBF ε-SVR at many points at once (internal; needs <svm.h>).
#pragma once

#include <svm.h>

#include <Eigen/Core>

namespace gpb::dpgibo::detail {

/// svm_predict of `m` (an RBF model with parameter gamma over p dense features, indices 1..p) at
/// every column of Xs (p × n): Σ_i c_i·exp(−γ‖x − s_i‖²) − ρ. The squared distances come from one
/// product, ‖x‖² + ‖s‖² − 2·XᵀS: svm_predict sums (x_a − s_a)² pair by pair in scalar code (n·l·p
/// terms, 90 % of a d = 103 DP-GIBO run), a GEMM does the same work tens of times faster and
/// agrees to rounding (tests/test_dpgibo_svr.cpp compares the two).
inline Eigen::VectorXd svr_predict(const svm_model& m, const Eigen::MatrixXd& Xs, double gamma) {
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(Xs.rows(), m.l);
  for (int i = 0; i < m.l; ++i) {
    for (const svm_node* n = m.SV[i]; n->index != -1; ++n) S(n->index - 1, i) = n->value;
  }
  const Eigen::Map<const Eigen::VectorXd> coef(m.sv_coef[0], m.l);
  Eigen::MatrixXd d2 = -2.0 * (Xs.transpose() * S);
  d2.colwise() += Xs.colwise().squaredNorm().transpose();
  d2.rowwise() += S.colwise().squaredNorm();
  return (-gamma * d2.array().max(0.0)).exp().matrix() * coef -
         Eigen::VectorXd::Constant(Xs.cols(), m.rho[0]);
}

}  // namespace gpb::dpgibo::detail
