// Helpers of the hyperparameter-fit tests (tests/test_hyperfit*.cpp): hyperparameters from
// values, and the ARD SE kernel matrix those tests sample from and check against.
#pragma once

#include <Eigen/Core>

#include <cmath>
#include <vector>

#include "gpbandit/engine/hyperfit.hpp"

namespace gpb::test {

/// θ with length-scales l, signal variance sv and noise variance nv.
inline GpHyperparameters theta(std::vector<double> l, double sv, double nv) {
  GpHyperparameters th;
  th.lengthscales = Eigen::Map<Eigen::VectorXd>(l.data(), static_cast<Eigen::Index>(l.size()));
  th.signal_variance = sv;
  th.noise_variance = nv;
  return th;
}

/// K(X, X) of the ARD SE kernel of θ (signal part only; X has one point per row).
inline Eigen::MatrixXd se_matrix(const Eigen::MatrixXd& X, const GpHyperparameters& th) {
  const Eigen::Index m = X.rows();
  Eigen::MatrixXd K(m, m);
  for (Eigen::Index a = 0; a < m; ++a) {
    for (Eigen::Index b = 0; b < m; ++b) {
      const Eigen::ArrayXd t = (X.row(a) - X.row(b)).array().transpose() / th.lengthscales.array();
      K(a, b) = th.signal_variance * std::exp(-0.5 * t.square().sum());
    }
  }
  return K;
}

}  // namespace gpb::test
