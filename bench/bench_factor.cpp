// The two O(t²)-per-row parts of a block update's factor, each in its definition's form and in
// the form the posterior runs (the same values bit for bit; tests/test_posterior_columns.cpp,
// tests/test_batch_factor.cpp). Single thread.
//   - BM_FactorColumns*: recompute mode's columns of a batch, v_q at m = 64 new candidates for
//     every row q < t (m·t·(t−1)/2 row steps), one column at a time (detail::column_of_rows, one
//     dependent chain of subtractions per column) against groups of columns
//     (detail::columns_of_rows). SE kernel, d = 8.
//   - BM_BatchFactor*: the factor block of a batch of q rows (q³/6 row steps), row by row
//     (detail::factor_batch_by_rows) against the tiled form (detail::factor_batch).
//
//   ./build/bench/bench_factor [--benchmark_filter=...]
//
// items_per_second: row steps per second.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "engine/cpu/batch_factor.hpp"
#include "engine/cpu/kernel_eval.hpp"
#include "engine/cpu/posterior_rows.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/rng.hpp"

namespace {

constexpr int kDim = 8;
constexpr int kColumns = 64;

struct Problem {
  gpb::detail::RunRows run;
  Eigen::MatrixXd x;  // kDim × kColumns: the new candidates
};

Problem make_problem(int t) {
  gpb::Rng rng(1, 0, 3);
  Problem p;
  for (int q = 0; q < t; ++q) {
    std::vector<double> row(static_cast<std::size_t>(q) + 1);
    for (int r = 0; r < q; ++r) row[static_cast<std::size_t>(r)] = (rng.uniform() - 0.5) / t;
    row[static_cast<std::size_t>(q)] = 0.5 + rng.uniform();
    p.run.L.push_back(row);
    for (int k = 0; k < kDim; ++k) p.run.xs.push_back(rng.uniform());
  }
  p.x.resize(kDim, kColumns);
  for (int c = 0; c < kColumns; ++c) {
    for (int k = 0; k < kDim; ++k) p.x(k, c) = rng.uniform();
  }
  return p;
}

// items = row steps: items_per_second is row steps per second (1e9 / it = ns per step).
void set_counters(benchmark::State& state, int t) {
  const double steps = static_cast<double>(kColumns) * t * (t - 1) / 2.0;
  state.SetItemsProcessed(static_cast<std::int64_t>(steps) *
                          static_cast<std::int64_t>(state.iterations()));
}

void BM_FactorColumnsOneByOne(benchmark::State& state) {
  const int t = static_cast<int>(state.range(0));
  const Problem p = make_problem(t);
  const gpb::detail::KernelEval eval(gpb::Kernel::se(0.5));
  std::vector<double> out(static_cast<std::size_t>(kColumns) * t);
  for (auto _ : state) {
    for (int c = 0; c < kColumns; ++c) {
      gpb::detail::column_of_rows(eval, p.x.col(c).data(), kDim, p.run, t, 0,
                                  out.data() + static_cast<std::size_t>(c) * t);
    }
    benchmark::DoNotOptimize(out.data());
  }
  set_counters(state, t);
}

void BM_FactorColumnsGrouped(benchmark::State& state) {
  const int t = static_cast<int>(state.range(0));
  const Problem p = make_problem(t);
  const gpb::detail::KernelEval eval(gpb::Kernel::se(0.5));
  std::vector<double> out(static_cast<std::size_t>(kColumns) * t), scratch;
  for (auto _ : state) {
    gpb::detail::columns_of_rows(eval, p.x.data(), kDim, p.run, t, kColumns, out.data(),
                                 static_cast<std::size_t>(t), scratch);
    benchmark::DoNotOptimize(out.data());
  }
  set_counters(state, t);
}

// A q×q block: an SE kernel matrix over random points of [0, 1]^8 (positive definite with λ).
struct BlockInput {
  Eigen::MatrixXd S;
  std::vector<double> var0, prior;
};

BlockInput make_block(int q) {
  gpb::Rng rng(2, 0, 5);
  Eigen::MatrixXd x(kDim, q);
  for (int i = 0; i < q; ++i) {
    for (int k = 0; k < kDim; ++k) x(k, i) = rng.uniform();
  }
  const gpb::detail::KernelEval eval(gpb::Kernel::se(0.5));
  BlockInput b;
  b.S.setZero(q, q);
  for (int j = 0; j < q; ++j) {
    for (int i = j; i < q; ++i) b.S(i, j) = eval(x.col(i).data(), x.col(j).data(), kDim);
  }
  b.var0.assign(static_cast<std::size_t>(q), 1.0);
  b.prior.assign(static_cast<std::size_t>(q), 1.0);
  return b;
}

void set_block_counters(benchmark::State& state, int q) {
  const double steps = static_cast<double>(q) * q * q / 6.0;
  state.SetItemsProcessed(static_cast<std::int64_t>(steps) *
                          static_cast<std::int64_t>(state.iterations()));
}

void BM_BatchFactorByRows(benchmark::State& state) {
  const int q = static_cast<int>(state.range(0));
  const BlockInput b = make_block(q);
  const std::vector<double> noise(static_cast<std::size_t>(q), 1e-2);
  for (auto _ : state) {
    auto f = gpb::detail::factor_batch_by_rows(b.S, b.var0.data(), b.prior.data(), noise.data());
    benchmark::DoNotOptimize(f.lbb.data());
  }
  set_block_counters(state, q);
}

void BM_BatchFactorTiled(benchmark::State& state) {
  const int q = static_cast<int>(state.range(0));
  const BlockInput b = make_block(q);
  const std::vector<double> noise(static_cast<std::size_t>(q), 1e-2);
  for (auto _ : state) {
    auto f = gpb::detail::factor_batch(b.S, b.var0.data(), b.prior.data(), noise.data(), {1, 0.0});
    benchmark::DoNotOptimize(f.lbb.data());
  }
  set_block_counters(state, q);
}

BENCHMARK(BM_FactorColumnsOneByOne)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FactorColumnsGrouped)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BatchFactorByRows)->Arg(1000)->Arg(3000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BatchFactorTiled)->Arg(1000)->Arg(3000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
