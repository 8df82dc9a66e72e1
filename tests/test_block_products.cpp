// The block update's dense products (src/engine/cpu/block_products.hpp) in double and in float,
// both builds (baseline ISA and AVX2 + FMA) against a plain Eigen reference, with strides larger
// than the row count and more rows than one chunk (2 048). Fixed seeds.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cstdlib>

#include "engine/cpu/block_products.hpp"

namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

/// Lower-triangular q×q with a dominant diagonal (well conditioned), from a seeded draw.
template <class T>
Mat<T> lower(int q) {
  std::srand(7);
  Mat<T> l = Mat<T>::Random(q, q).template triangularView<Eigen::Lower>();
  l.diagonal().array() = l.diagonal().array().abs() + T(q);
  return l;
}

/// C −= A·B then X ← C·L⁻ᵀ through `sub` and `solve` (one build), against Eigen; tol is relative
/// to the largest entry of the reference.
template <class T, class Sub, class Solve>
void expect_products(Sub sub, Solve solve, double tol) {
  const long n = 5000, ld = 5003;  // three chunks, rows ld apart
  const int t = 37, q = 21;
  std::srand(3);
  const Mat<T> a = Mat<T>::Random(ld, t), b = Mat<T>::Random(t, q);
  Mat<T> c = Mat<T>::Random(ld, q);
  const Mat<T> l = lower<T>(q);
  Mat<T> ref = c.topRows(n) - a.topRows(n) * b;
  ref = l.template triangularView<Eigen::Lower>()
            .solve(ref.transpose())
            .transpose();  // X L^T = C  ⇔  L X^T = C^T
  sub(n, t, q, a.data(), ld, b.data(), t, c.data(), ld, 2);
  solve(n, q, l.data(), q, c.data(), ld, 2);
  const double scale = static_cast<double>(ref.cwiseAbs().maxCoeff());
  const double err = static_cast<double>((c.topRows(n) - ref).cwiseAbs().maxCoeff());
  EXPECT_LT(err, tol * scale);
}

TEST(BlockProducts, BaselineBuildMatchesEigenInDoubleAndFloat) {
  namespace b = gpb::detail::block_baseline;
  expect_products<double>([](auto... x) { b::sub_product(x...); },
                          [](auto... x) { b::solve_lower_transposed(x...); }, 1e-13);
  expect_products<float>([](auto... x) { b::sub_product(x...); },
                         [](auto... x) { b::solve_lower_transposed(x...); }, 1e-5);
}

TEST(BlockProducts, DispatchedBuildMatchesEigenInDoubleAndFloat) {
  // The AVX2 + FMA build when this CPU has both (block_products_avx2()), else the baseline.
  expect_products<double>([](auto... x) { gpb::detail::block_sub_product(x...); },
                          [](auto... x) { gpb::detail::block_solve_lower_transposed(x...); },
                          1e-13);
  expect_products<float>([](auto... x) { gpb::detail::block_sub_product(x...); },
                         [](auto... x) { gpb::detail::block_solve_lower_transposed(x...); }, 1e-5);
}

}  // namespace
