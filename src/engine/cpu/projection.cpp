// CPU twins of the projection ops: Philox draws through gpb::Rng, Z = scale·X M with Eigen, and the
// singular spectrum from Eigen's self-adjoint eigensolver on XᵀX.
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

#include "engine/detail/projection_backend.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

std::vector<double> random_uniform_cpu(std::uint64_t seed, std::uint32_t run, std::uint32_t stream,
                                       std::uint64_t start, std::size_t count) {
  Rng rng(seed, run, stream, start);
  std::vector<double> out(count);
  for (double& u : out) u = rng.uniform();
  return out;
}

std::vector<double> random_normal_cpu(std::uint64_t seed, std::uint32_t run, std::uint32_t stream,
                                      std::uint64_t start, std::size_t count) {
  Rng rng(seed, run, stream, start);
  std::vector<double> out(count);
  for (double& z : out) z = rng.normal();
  return out;
}

Eigen::MatrixXd project_cpu(const Eigen::Ref<const Eigen::MatrixXd>& X,
                            const Eigen::Ref<const Eigen::MatrixXd>& M, double scale) {
  Eigen::MatrixXd Z = X * M;
  Z *= scale;
  return Z;
}

Eigen::MatrixXd gram_cpu(const Eigen::Ref<const Eigen::MatrixXd>& X) {
  return X.transpose() * X;
}

SingularSpectrum spectrum_from_gram_cpu(const Eigen::MatrixXd& G, int n) {
  const int d = static_cast<int>(G.rows());
  const int p = std::min(n, d);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(G);
  if (eig.info() != Eigen::Success) {
    throw NumericalError("singular_spectrum: the eigensolver did not converge on the " +
                         std::to_string(d) + "x" + std::to_string(d) + " Gram matrix");
  }
  // Eigen returns ascending eigenvalues: the top p, reversed.
  SingularSpectrum out;
  out.values.resize(p);
  out.right.resize(d, p);
  for (int k = 0; k < p; ++k) {
    const int src = d - 1 - k;
    out.values[k] = std::sqrt(std::max(eig.eigenvalues()[src], 0.0));
    out.right.col(k) = eig.eigenvectors().col(src);
  }
  return out;
}

}  // namespace gpb::detail
