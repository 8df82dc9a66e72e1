// Posterior mean and variance of the Optimizer's model at arbitrary points, from the factor of
// its FinitePosterior and the kernel-matrix op (no second posterior: the rows of L and α are the
// posterior's own).
#include <Eigen/Dense>

#include <algorithm>

#include "gpbandit/engine/ops.hpp"
#include "optimizer/state.hpp"

namespace gpb {

namespace {
/// Points per block (bounds the rows × block kernel matrix).
constexpr Eigen::Index kBlockDoubles = Eigen::Index{1} << 22;
}  // namespace

Eigen::MatrixXd Optimizer::State::history_points(int rows) const {
  const std::vector<int>& h = post->history(0);
  Eigen::MatrixXd out(d, rows);
  for (int q = 0; q < rows; ++q) {
    out.col(q) = Eigen::Map<const Eigen::VectorXd>(point(h[static_cast<std::size_t>(q)]), d);
  }
  return out;
}

void Optimizer::State::predict_model(const Eigen::Ref<const Eigen::MatrixXd>& points, int rows,
                                     Eigen::VectorXd& mean, Eigen::VectorXd& variance) const {
  const Eigen::Index m = points.cols();
  variance = kernel_diag(*ctx, opt.kernel, points);
  mean = Eigen::VectorXd::Zero(m);
  if (rows == 0 || m == 0) return;
  const PosteriorFactor F = post->factor(0);
  const auto L = F.L.topLeftCorner(rows, rows).triangularView<Eigen::Lower>();
  const Eigen::VectorXd alpha = F.alpha.head(rows);
  const Eigen::MatrixXd H = history_points(rows);
  const Eigen::Index block = std::max<Eigen::Index>(1, kBlockDoubles / rows);
  for (Eigen::Index j0 = 0; j0 < m; j0 += block) {
    const Eigen::Index len = std::min(block, m - j0);
    Eigen::MatrixXd W = kernel_matrix(*ctx, opt.kernel, H, points.middleCols(j0, len));
    L.solveInPlace(W);  // W = L⁻¹ k(X_t, x): the rows v_q(x) of the posterior
    mean.segment(j0, len).noalias() = W.transpose() * alpha;
    variance.segment(j0, len) -= W.colwise().squaredNorm().transpose();
  }
  variance = variance.cwiseMax(0.0);
}

}  // namespace gpb
