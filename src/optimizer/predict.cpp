// Posterior mean and variance of the Optimizer's model at arbitrary points, from the factor of
// its FinitePosterior (no second posterior: the rows of L and α are the posterior's own; the
// arithmetic is the Surrogate's of surrogate.hpp).
#include "optimizer/state.hpp"

namespace gpb {

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
  const detail::Surrogate s(*ctx, opt.kernel, post->factor(0), rows, history_points(rows));
  s.predict(points, mean, variance);
}

}  // namespace gpb
