// Adversarial numerics: duplicate points, λ → 0, huge and tiny lengthscales, d = 64 and 10^6
// candidates. Whatever the input, no NaN or Inf may reach an output: the Cholesky escalates its
// jitter or throws NumericalError naming the jitter it tried; the posterior keeps μ and σ²
// finite (its pivot floor, see FinitePosterior) and the UCB argmax returns a valid index.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cmath>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

namespace {

using gpb::Cholesky;
using gpb::Context;
using gpb::Domain;
using gpb::FinitePosterior;
using gpb::Kernel;
using gpb::KernelType;
using gpb::PosteriorMode;
using gpb::PosteriorOptions;
using gpb::Rng;

Eigen::MatrixXd random_points(int d, int n, std::uint64_t seed) {
  Rng rng(seed, 0, 1);
  Eigen::MatrixXd p(d, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < d; ++i) p(i, j) = rng.uniform();
  return p;
}

/// Every kernel family at extreme lengthscales and variances.
std::vector<Kernel> extreme_kernels() {
  std::vector<Kernel> ks;
  for (KernelType t :
       {KernelType::SE, KernelType::Matern12, KernelType::Matern32, KernelType::Matern52}) {
    for (double l : {1e-300, 1e-150, 1e-8, 1e8, 1e150, 1e300}) {
      for (double v : {1e-200, 1.0, 1e200}) ks.push_back(Kernel::matern(t, l, v));
    }
  }
  return ks;
}

TEST(AdversarialNumerics, KernelValuesAreFiniteAtExtremeLengthscales) {
  Context ctx;
  const Eigen::MatrixXd pts = random_points(64, 20, 1);
  for (const Kernel& k : extreme_kernels()) {
    const Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, pts, pts);
    ASSERT_TRUE(K.allFinite()) << k.describe();
    for (int j = 0; j < 20; ++j) EXPECT_EQ(K(j, j), k.variance()) << k.describe();
  }
}

TEST(AdversarialNumerics, CholeskyOfDegenerateKernelsEscalatesOrNamesTheJitter) {
  // Duplicates (every column the same point), rank-one (huge lengthscale) and identity (tiny
  // lengthscale) kernel matrices in d = 64, with extreme variances.
  Context ctx;
  Eigen::MatrixXd dup(64, 40);
  const Eigen::MatrixXd base = random_points(64, 5, 2);
  for (int j = 0; j < 40; ++j) dup.col(j) = base.col(j % 5);
  int escalated = 0;
  for (const Kernel& k : extreme_kernels()) {
    for (const Eigen::MatrixXd* pts : {&dup}) {
      const Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, *pts, *pts);
      Cholesky chol;
      try {
        chol.factor(K);
      } catch (const gpb::NumericalError& e) {
        EXPECT_NE(std::string(e.what()).find("largest jitter tried"), std::string::npos);
        continue;
      }
      ASSERT_TRUE(chol.matrix().allFinite()) << k.describe();
      escalated += chol.jitter_used() > 0;
      Eigen::MatrixXd Kj = K;
      Kj.diagonal().array() += chol.jitter_used();
      const Eigen::MatrixXd LLt = chol.matrix() * chol.matrix().transpose();
      EXPECT_LE((LLt - Kj).norm(), 1e-10 * Kj.norm()) << k.describe();
    }
  }
  EXPECT_GT(escalated, 0);
}

/// Observes `steps` rounds on `post`: every run plays the current UCB argmax (so duplicates are
/// forced when the posterior is flat) or, every third round, candidate 0 again. Checks μ, σ² are
/// finite after every observation.
void hammer(FinitePosterior& post, int steps, const std::string& what) {
  const int R = post.runs(), n = post.size();
  std::vector<double> width(static_cast<std::size_t>(R), 2.0);
  for (int s = 0; s < steps; ++s) {
    const auto choice = post.ucb_argmax(width.data(), nullptr, nullptr);
    std::vector<int> idx(static_cast<std::size_t>(R));
    std::vector<double> y(static_cast<std::size_t>(R));
    for (int r = 0; r < R; ++r) {
      ASSERT_GE(choice[static_cast<std::size_t>(r)].index, 0) << what;
      ASSERT_LT(choice[static_cast<std::size_t>(r)].index, n) << what;
      idx[static_cast<std::size_t>(r)] = s % 3 == 2 ? 0 : choice[static_cast<std::size_t>(r)].index;
      y[static_cast<std::size_t>(r)] = std::sin(3.0 * s) + 0.1 * r;
    }
    post.observe(idx.data(), y.data());
    for (int r = 0; r < R; ++r) {
      const double* m = post.mean(r);
      const double* v = post.variance(r);
      for (int j = 0; j < n; ++j) {
        ASSERT_TRUE(std::isfinite(m[j]) && std::isfinite(v[j]) && v[j] >= 0)
            << what << ": step " << s << ", run " << r << ", candidate " << j << ": mu = " << m[j]
            << ", sigma2 = " << v[j];
      }
    }
    ASSERT_TRUE(std::isfinite(post.info_gain(0))) << what;
  }
}

TEST(AdversarialNumerics, PosteriorStaysFiniteForTinyNoiseAndDegenerateKernels) {
  Context ctx;
  const Domain dom = Domain::from_rows(random_points(64, 200, 3).transpose());
  for (double lambda : {1e-300, 1e-30, 1e-12}) {
    for (double l : {1e-300, 1e-3, 1.0, 1e300}) {
      for (PosteriorMode mode : {PosteriorMode::Incremental, PosteriorMode::Recompute}) {
        PosteriorOptions o;
        o.noise_variance = lambda;
        o.capacity = 40;
        o.mode = mode;
        FinitePosterior post(ctx, Kernel::se(l), dom, 2, o);
        hammer(post, 30,
               "lambda " + std::to_string(lambda) + ", lengthscale " + std::to_string(l) +
                   (mode == PosteriorMode::Recompute ? " (recompute)" : ""));
      }
    }
  }
}

TEST(AdversarialNumerics, MillionCandidatesWithRepeatedObservations) {
  // N = 10^6 in d = 2 with a huge lengthscale (a rank-one prior) and λ = 1e-300: the worst case
  // for cancellation. μ and σ² must stay finite over all 10^6 candidates.
  Context ctx;
  const Domain dom = Domain::grid({0, 0}, {1, 1}, {1000, 1000});
  ASSERT_EQ(dom.size(), 1000000);
  PosteriorOptions o;
  o.noise_variance = 1e-300;
  o.capacity = 8;
  FinitePosterior post(ctx, Kernel::se(1e6), dom, 1, o);
  hammer(post, 6, "N = 10^6");
}

}  // namespace
