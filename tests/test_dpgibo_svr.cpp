// The SVR task's batched predictions (src/dpgibo/svr_predict.hpp) against libsvm's own
// svm_predict, point by point, on models with few and many support vectors.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpbandit/rng.hpp"

#if GPB_HAS_LIBSVM
#include "dpgibo/svr_predict.hpp"
#endif

namespace {

#if GPB_HAS_LIBSVM
void quiet(const char*) {}

/// Trains an RBF ε-SVR on n random points of dimension p with libsvm, then compares
/// svr_predict with svm_predict at m other points; returns the number of support vectors.
int compare(int p, int n, int m, double gamma, double C, double eps, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 0);
  Eigen::MatrixXd X(p, n), Xv(p, m);
  for (Eigen::Index j = 0; j < X.size(); ++j) X.data()[j] = rng.uniform(-2.0, 2.0);
  for (Eigen::Index j = 0; j < Xv.size(); ++j) Xv.data()[j] = rng.uniform(-2.5, 2.5);
  std::vector<double> y(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    y[i] = std::sin(X(0, i)) + 0.5 * X(1, i) * X(1, i) + 0.1 * rng.normal();
  const auto nodes = [p](const Eigen::MatrixXd& A) {
    std::vector<svm_node> v(static_cast<std::size_t>(A.cols()) * (p + 1));
    for (Eigen::Index i = 0; i < A.cols(); ++i) {
      for (int a = 0; a < p; ++a) v[i * (p + 1) + a] = {a + 1, A(a, i)};
      v[i * (p + 1) + p] = {-1, 0.0};
    }
    return v;
  };
  std::vector<svm_node> tn = nodes(X), vn = nodes(Xv);
  std::vector<svm_node*> rows(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) rows[i] = &tn[static_cast<std::size_t>(i) * (p + 1)];
  svm_problem prob{n, y.data(), rows.data()};
  svm_parameter par{};
  par.svm_type = EPSILON_SVR;
  par.kernel_type = RBF;
  par.gamma = gamma;
  par.C = C;
  par.p = eps;
  par.cache_size = 20;
  par.eps = 1e-3;
  par.shrinking = 1;
  svm_set_print_string_function(&quiet);
  EXPECT_EQ(svm_check_parameter(&prob, &par), nullptr);
  svm_model* model = svm_train(&prob, &par);
  const Eigen::VectorXd fast = gpb::dpgibo::detail::svr_predict(*model, Xv, gamma);
  double worst = 0;
  for (int i = 0; i < m; ++i) {
    const double ref = svm_predict(model, &vn[static_cast<std::size_t>(i) * (p + 1)]);
    worst = std::max(worst, std::abs(fast(i) - ref) / std::max(1.0, std::abs(ref)));
  }
  // Rounding only: the two sum the same terms in different orders (distances by a GEMM).
  EXPECT_LT(worst, 1e-10) << "p = " << p << ", gamma = " << gamma;
  const int l = model->l;
  svm_free_and_destroy_model(&model);
  return l;
}
#endif

TEST(DpGiboSvr, BatchedPredictionsAreLibsvmsOwn) {
#if GPB_HAS_LIBSVM
  EXPECT_GT(compare(5, 200, 300, 0.5, 1.0, 0.1, 1), 20);
  EXPECT_GT(compare(100, 300, 200, 0.01, 3.0, 0.01, 2), 100);  // the d = 103 task's shape
  EXPECT_GT(compare(100, 300, 200, 5.0, 0.1, 0.5, 3),
            0);  // a narrow kernel: k ≈ 0 away from the SVs
#else
  GTEST_SKIP() << "this build has no libsvm (the svr_friedman task is unavailable)";
#endif
}

}  // namespace
