#include "gpbandit/error.hpp"
#include "gpbandit/ops.hpp"

namespace gpb {
Cholesky::Cholesky(JitterPolicy policy) : policy_(policy) {}
void Cholesky::factor(const Eigen::Ref<const Eigen::MatrixXd>&) {
  throw Error("not implemented yet");
}
void Cholesky::append(const Eigen::Ref<const Eigen::VectorXd>&, double) {
  throw Error("not implemented yet");
}
Eigen::MatrixXd Cholesky::matrix() const {
  throw Error("not implemented yet");
}
void Cholesky::solve_lower(Eigen::Ref<Eigen::MatrixXd>) const {
  throw Error("not implemented yet");
}
void Cholesky::solve_upper(Eigen::Ref<Eigen::MatrixXd>) const {
  throw Error("not implemented yet");
}
void Cholesky::reserve(int) {
  throw Error("not implemented yet");
}
}  // namespace gpb
