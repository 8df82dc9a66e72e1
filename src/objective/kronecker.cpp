// Exact GP draws on Cartesian grids through the Kronecker structure of separable kernels.
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

#include "gpbandit/error.hpp"
#include "objective/sampling.hpp"

namespace gpb::detail {

std::optional<std::vector<Eigen::VectorXd>> grid_axes(const Domain& domain) {
  const int d = domain.dim();
  const Eigen::Index n = domain.size();
  const Eigen::MatrixXd& p = domain.points();
  std::vector<Eigen::VectorXd> axes;
  Eigen::Index product = 1, stride = 1;
  for (int i = 0; i < d; ++i) {
    std::vector<double> v;
    v.reserve(static_cast<std::size_t>(n));
    for (Eigen::Index j = 0; j < n; ++j) v.push_back(p(i, j));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    const auto c = static_cast<Eigen::Index>(v.size());
    if (product > n / c) return std::nullopt;
    product *= c;
    axes.emplace_back(Eigen::Map<const Eigen::VectorXd>(v.data(), c));
    for (Eigen::Index j = 0; j < n; ++j) {
      if (p(i, j) != axes.back()((j / stride) % c)) return std::nullopt;
    }
    stride *= c;
  }
  if (product != n) return std::nullopt;
  return axes;
}

Eigen::VectorXd kronecker_draw(const std::vector<Eigen::MatrixXd>& factors, Rng& rng) {
  Eigen::Index n = 1;
  for (const auto& k : factors) {
    GPB_EXPECTS(k.rows() == k.cols() && k.rows() >= 1, "kronecker_draw: factors must be square");
    n *= k.rows();
  }
  Eigen::VectorXd f(n);
  for (Eigen::Index j = 0; j < n; ++j) f(j) = rng.normal();
  Eigen::Index stride = 1;
  for (const auto& k : factors) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(k);
    if (eig.info() != Eigen::Success) throw NumericalError("kronecker_draw: eigensolver failed");
    const Eigen::MatrixXd a =
        eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal();
    const Eigen::Index c = k.rows(), block = stride * c;
    for (Eigen::Index start = 0; start < n; start += block) {  // slice (stride × c) ← slice·aᵀ
      Eigen::Map<Eigen::MatrixXd> slice(f.data() + start, stride, c);
      const Eigen::MatrixXd updated = slice * a.transpose();
      slice = updated;
    }
    stride = block;
  }
  return f;
}

}  // namespace gpb::detail
