// columns_of_rows (the recompute-mode factor columns of a batch, computed in groups) against
// column_of_rows one column at a time: equal bit for bit for every column count, kernel and row
// count (the substitution changes no value). Then a recompute-mode posterior fed block updates of
// several column groups agrees with an incremental one (whose block update is a GEMM and a TRSM,
// so to rounding, not bit for bit).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cstring>
#include <vector>

#include "engine/cpu/kernel_eval.hpp"
#include "engine/cpu/posterior_rows.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"
#include "test_support.hpp"

namespace {

using gpb::detail::RunRows;

// A run of t rows with random coordinates in [0, 1]^d and a random lower factor (diagonal in
// [0.5, 1.5]): any values do, the two functions must only agree.
RunRows random_run(int t, int d, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 7);
  RunRows run;
  for (int q = 0; q < t; ++q) {
    std::vector<double> row(static_cast<std::size_t>(q) + 1);
    for (int p = 0; p < q; ++p) row[static_cast<std::size_t>(p)] = rng.uniform() - 0.5;
    row[static_cast<std::size_t>(q)] = 0.5 + rng.uniform();
    run.L.push_back(row);
    for (int k = 0; k < d; ++k) run.xs.push_back(rng.uniform());
  }
  return run;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(PosteriorColumns, GroupedColumnsEqualSingleColumnsBitForBit) {
  const int d = 3;
  for (const gpb::Kernel& k :
       {gpb::Kernel::se(0.3), gpb::Kernel::matern(gpb::KernelType::Matern52, 0.7)}) {
    const gpb::detail::KernelEval eval(k);
    for (const int t : {0, 1, 5, 37}) {
      const RunRows run = random_run(t, d, 11 + t);
      for (const int m : {1, 7, 8, 15, 32, 37, 40, 70}) {  // groups, and remainders < 8 one by one
        gpb::Rng rng(5, 0, static_cast<std::uint32_t>(m));
        Eigen::MatrixXd x(d, m);
        for (int c = 0; c < m; ++c) {
          for (int i = 0; i < d; ++i) x(i, c) = rng.uniform();
        }
        std::vector<double> grouped(static_cast<std::size_t>(m) * (t + 2), -7.0), scratch;
        gpb::detail::columns_of_rows(eval, x.data(), d, run, t, m, grouped.data(),
                                     static_cast<std::size_t>(t) + 2, scratch);
        std::vector<double> one(static_cast<std::size_t>(t));
        for (int c = 0; c < m; ++c) {
          gpb::detail::column_of_rows(eval, x.col(c).data(), d, run, t, 0, one.data());
          for (int p = 0; p < t; ++p) {
            ASSERT_TRUE(same_bits(grouped[static_cast<std::size_t>(c) * (t + 2) + p],
                                  one[static_cast<std::size_t>(p)]))
                << "t " << t << " m " << m << " column " << c << " row " << p;
          }
          // Nothing written beyond the t entries of each column.
          EXPECT_EQ(grouped[static_cast<std::size_t>(c) * (t + 2) + t], -7.0);
        }
      }
    }
  }
}

TEST(PosteriorColumns, RecomputeBlockUpdatesAgreeWithIncremental) {
  const gpb::Context ctx = gpb::test::make_cpu_context(2);
  const gpb::Domain dom = gpb::test::random_domain(700, 2, 3);
  const gpb::Kernel k = gpb::Kernel::se(0.25);
  gpb::PosteriorOptions inc;
  inc.capacity = 200;
  inc.mode = gpb::PosteriorMode::Incremental;
  gpb::PosteriorOptions rec = inc;
  rec.mode = gpb::PosteriorMode::Recompute;
  gpb::FinitePosterior a(ctx, k, dom, 1, inc), b(ctx, k, dom, 1, rec);
  gpb::Rng rng(9, 0, 1);
  for (const int q : {7, 33, 75}) {  // one column at a time, groups, and partial groups
    std::vector<int> idx;
    std::vector<double> y;
    for (int i = 0; i < q; ++i) {
      idx.push_back(static_cast<int>(rng.uniform() * 700) % 700);
      y.push_back(rng.uniform());
    }
    a.observe_batch(q, idx.data(), y.data());
    b.observe_batch(q, idx.data(), y.data());
  }
  ASSERT_TRUE(b.recompute_mode());
  const double* va = a.variance(0);
  const double* vb = b.variance(0);
  const double* ma = a.mean(0);
  const double* mb = b.mean(0);
  for (int j = 0; j < 700; ++j) {
    ASSERT_NEAR(va[j], vb[j], 1e-10) << j;
    ASSERT_NEAR(ma[j], mb[j], 1e-9) << j;
  }
}

TEST(PosteriorColumns, RecomputeBlockUpdateEqualsSingleObservationsBitForBit) {
  // Recompute mode's observe_batch (groups and tiles) appends the rows observe() would.
  const gpb::Context ctx = gpb::test::make_cpu_context(2);
  const gpb::Domain dom = gpb::test::related_fingerprints(600, 256, 4);
  gpb::PosteriorOptions o;
  o.capacity = 150;
  o.mode = gpb::PosteriorMode::Recompute;
  o.noise_variance = 0.05;
  gpb::FinitePosterior batch(ctx, gpb::Kernel::tanimoto(), dom, 2, o);
  gpb::FinitePosterior single(ctx, gpb::Kernel::tanimoto(), dom, 2, o);
  gpb::Rng rng(4, 0, 2);
  for (const int q : {1, 9, 40, 60}) {  // from scratch, then on top of earlier rows
    std::vector<int> idx(static_cast<std::size_t>(2 * q));
    std::vector<double> y(idx.size());
    for (std::size_t e = 0; e < idx.size(); ++e) {
      idx[e] = static_cast<int>(rng.uniform() * 600) % 600;
      y[e] = rng.uniform() - 0.5;
    }
    batch.observe_batch(q, idx.data(), y.data());
    for (int i = 0; i < q; ++i) {  // run-major: run r's i-th is idx[r·q + i]
      const int one[2] = {idx[static_cast<std::size_t>(i)], idx[static_cast<std::size_t>(q + i)]};
      const double yy[2] = {y[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(q + i)]};
      single.observe(one, yy);
    }
  }
  for (int r = 0; r < 2; ++r) {
    const double* ma = batch.mean(r);
    const double* mb = single.mean(r);
    const double* va = batch.variance(r);
    const double* vb = single.variance(r);
    for (int j = 0; j < 600; ++j) {
      ASSERT_TRUE(same_bits(ma[j], mb[j])) << "run " << r << " mean " << j;
      ASSERT_TRUE(same_bits(va[j], vb[j])) << "run " << r << " variance " << j;
    }
  }
}

}  // namespace
