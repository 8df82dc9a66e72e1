// factor_batch (the tiled factor block of observe_batch) against factor_batch_by_rows, the
// row-by-row definition that q single observations follow: equal bit for bit, for every batch
// size around the tile and group widths, one and two threads, and near-singular blocks
// (repeated candidates: var_step's clamping and the pivot floor).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cstring>
#include <vector>

#include "engine/cpu/batch_factor.hpp"
#include "engine/cpu/kernel_eval.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/rng.hpp"

namespace {

struct Block {
  Eigen::MatrixXd S;
  std::vector<double> var0, prior;
  std::vector<double> noise;  // λ_i: 1e-2 on every row
};

// S = K(X, X) over q points of [0, 1]^3 (`repeats`: every third point a copy of the one before),
// scaled by a random factor below 1 as a posterior variance would be; var0 = its diagonal.
Block make_block(int q, bool repeats, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 4);
  Eigen::MatrixXd x(3, q);
  for (int i = 0; i < q; ++i) {
    for (int k = 0; k < 3; ++k) x(k, i) = rng.uniform();
    if (repeats && i % 3 == 2) x.col(i) = x.col(i - 1);
  }
  const gpb::detail::KernelEval eval(gpb::Kernel::se(0.4));
  Block b;
  b.S = Eigen::MatrixXd::Constant(q, q, 99.0);  // upper triangle: never read
  for (int j = 0; j < q; ++j) {
    for (int i = j; i < q; ++i) b.S(i, j) = 0.8 * eval(x.col(i).data(), x.col(j).data(), 3);
  }
  for (int i = 0; i < q; ++i) {
    b.var0.push_back(b.S(i, i));
    b.prior.push_back(1.0);
    b.noise.push_back(1e-2);
  }
  return b;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(BatchFactor, TiledEqualsRowByRowBitForBit) {
  for (const bool repeats : {false, true}) {
    for (const int q : {1, 2, 3, 4, 5, 8, 16, 17, 21, 33, 70}) {
      const Block b = make_block(q, repeats, static_cast<std::uint64_t>(q));
      // Per-row noise: 1e-12 with the repeats (the pivot floor binds), else varying by row.
      std::vector<double> noise;
      for (int i = 0; i < q; ++i) noise.push_back(repeats ? 1e-12 : 1e-2 * (1 + i % 3));
      const auto want =
          gpb::detail::factor_batch_by_rows(b.S, b.var0.data(), b.prior.data(), noise.data());
      for (const int threads : {1, 2}) {
        const gpb::detail::Threads th{threads, 0.0};
        const auto got =
            gpb::detail::factor_batch(b.S, b.var0.data(), b.prior.data(), noise.data(), th);
        for (int i = 0; i < q; ++i) {
          ASSERT_TRUE(same_bits(got.vars[static_cast<std::size_t>(i)],
                                want.vars[static_cast<std::size_t>(i)]))
              << "q " << q << " row " << i;
          for (int j = 0; j < q; ++j) {
            ASSERT_TRUE(same_bits(got.lbb(i, j), want.lbb(i, j)))
                << "q " << q << " repeats " << repeats << " threads " << threads << " (" << i
                << ", " << j << ")";
          }
        }
      }
    }
  }
}

TEST(BatchFactor, WithAPrefixTiledEqualsRowByRowBitForBit) {
  // Recompute mode's form: the old rows' values open every element's chain.
  for (const int q : {1, 5, 9, 17, 40}) {
    for (const int t : {1, 3, 30}) {
      const Block b = make_block(q, false, static_cast<std::uint64_t>(100 + q));
      gpb::Rng rng(7, 0, static_cast<std::uint32_t>(t));
      Eigen::MatrixXd prefix(q, t);
      for (int i = 0; i < q; ++i) {
        for (int p = 0; p < t; ++p) prefix(i, p) = 0.1 * (rng.uniform() - 0.5);
      }
      const auto want = gpb::detail::factor_batch_by_rows(b.S, b.var0.data(), b.prior.data(),
                                                          b.noise.data(), &prefix);
      const auto got = gpb::detail::factor_batch(b.S, b.var0.data(), b.prior.data(), b.noise.data(),
                                                 {2, 0.0}, &prefix);
      for (int i = 0; i < q; ++i) {
        for (int j = 0; j <= i; ++j) {
          ASSERT_TRUE(same_bits(got.lbb(i, j), want.lbb(i, j)))
              << "q " << q << " t " << t << " (" << i << ", " << j << ")";
        }
      }
      // The prefix enters: without it the factor differs.
      const auto plain =
          gpb::detail::factor_batch_by_rows(b.S, b.var0.data(), b.prior.data(), b.noise.data());
      if (q > 1) {
        EXPECT_NE(plain.lbb(q - 1, 0), want.lbb(q - 1, 0));
      }
    }
  }
}

TEST(BatchFactor, IsTheCholeskyFactorOfTheRegularisedBlock) {
  // A check of the definition itself: L Lᵀ = S + Λ where nothing clamps, with a different noise
  // variance λ_i on every row.
  const Block b = make_block(30, false, 3);
  Eigen::VectorXd noise(30);
  for (int i = 0; i < 30; ++i) noise[i] = 1e-3 * (1 + i);
  const auto f =
      gpb::detail::factor_batch(b.S, b.var0.data(), b.prior.data(), noise.data(), {1, 0.0});
  const Eigen::MatrixXd s = b.S.triangularView<Eigen::Lower>();
  const Eigen::MatrixXd full = s + s.transpose() - Eigen::MatrixXd(s.diagonal().asDiagonal()) +
                               Eigen::MatrixXd(noise.asDiagonal());
  EXPECT_LT((f.lbb * f.lbb.transpose() - full).cwiseAbs().maxCoeff(), 1e-12);
}

}  // namespace
