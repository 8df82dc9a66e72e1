// A scripted FinitePosterior session, played on one rank or on K in-process ranks
// (Communicator::in_process, one thread per rank), recording what each rank sees: the UCB choices,
// μ and σ² gathered over the domain, the history and the information gain. Shared by the sharded
// posterior tests of both backends (tests/test_sharded_posterior.cpp,
// tests/test_cuda_sharded_posterior.cpp).
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::test {

/// What is played: every step draws widths, an exclusion mask (every third step) and tie-break
/// streams from fixed seeds, asks ucb_argmax, then observes (or, every `pending_every` steps,
/// adds two pending rows per run and resolves them) the driving choices with seeded rewards.
struct ShardScript {
  Domain domain = Domain::indices(1);
  Kernel kernel = Kernel::se(0.3);
  PosteriorOptions options;
  int runs = 2;
  int steps = 20;
  bool random_ties = true;
  int pending_every = 5;       ///< 0: never
  double mask_fraction = 0.2;  ///< share of candidates excluded on masked steps
  bool slice_domain = false;   ///< give each rank only its slice (Domain::slice)
  bool sparse_masks = false;   ///< pass the masks as exclusion lists (FinitePosterior's overload)
};

/// What one rank saw.
struct ShardTrace {
  std::vector<UcbChoice> choices;         ///< step-major, R per step
  std::vector<std::vector<double>> mu;    ///< per step: μ of run step % R over all N
  std::vector<std::vector<double>> s2;    ///< per step: σ² of run step % R over all N
  std::vector<std::vector<int>> history;  ///< per run, at the end
  std::vector<double> info_gain;          ///< per run, at the end
  bool recompute = false;
  std::string error;  ///< what was thrown, if anything
};

/// The scripts of the sharded tests: a 2-d grid of nx × ny candidates (N not a multiple of 2 or 3
/// in the tests), Matérn-5/2, λ = 10⁻², incremental with a small capacity (V grows).
inline ShardScript grid_script(int nx, int ny, int capacity) {
  ShardScript s;
  s.domain = Domain::grid({0.0, 0.0}, {1.0, 1.0}, {nx, ny});
  s.kernel = Kernel::matern(KernelType::Matern52, 0.25);
  s.options.noise_variance = 1e-2;
  s.options.capacity = capacity;
  s.options.mode = PosteriorMode::Incremental;
  return s;
}

/// A domain in which every point of `base` appears twice (candidates j and j + N/2): their
/// scores tie exactly in every round, across ranks when sharded.
inline Domain twin_domain(const Domain& base) {
  Eigen::MatrixXd rows(2 * base.size(), base.dim());
  rows.topRows(base.size()) = base.points().transpose();
  rows.bottomRows(base.size()) = base.points().transpose();
  return Domain::from_rows(rows);
}

/// Plays `script` on `ctx` (whose communicator says which slice this rank holds). `drive` gives
/// the candidates observed (step-major, R per step); empty: the posterior's own choices.
inline ShardTrace play_script(const Context& ctx, const ShardScript& script,
                              const std::vector<int>& drive) {
  ShardTrace out;
  const int R = script.runs, n = script.domain.size();
  const auto [b, e] = ctx.communicator().slice(n);
  const Domain domain = script.slice_domain ? script.domain.slice(b, e) : script.domain;
  FinitePosterior post(ctx, script.kernel, domain, R, script.options);
  Rng rng(5, 0, 1);
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(R) * n, 0);
  for (int step = 0; step < script.steps; ++step) {
    std::vector<double> width(static_cast<std::size_t>(R));
    for (int r = 0; r < R; ++r) width[r] = 1.5 + 0.25 * r + 0.5 * rng.uniform();
    const bool masked = step % 3 == 1;
    for (std::uint8_t& m : mask) m = rng.uniform() < script.mask_fraction ? 1 : 0;
    std::vector<Rng> ties;
    for (int r = 0; r < R; ++r) ties.emplace_back(3, r, 4, step);
    std::vector<Rng>* tb = script.random_ties ? &ties : nullptr;
    std::vector<UcbChoice> c;
    if (masked && script.sparse_masks) {
      std::vector<std::vector<int>> lists(static_cast<std::size_t>(R));
      for (int r = 0; r < R; ++r) {
        for (int j = n - 1; j >= 0; --j) {  // any order: backwards, and j twice where j % 7 == 0
          if (mask[static_cast<std::size_t>(r) * n + j] == 0) continue;
          lists[static_cast<std::size_t>(r)].push_back(j);
          if (j % 7 == 0) lists[static_cast<std::size_t>(r)].push_back(j);
        }
      }
      c = post.ucb_argmax(width.data(), lists, tb);
    } else {
      c = post.ucb_argmax(width.data(), masked ? mask.data() : nullptr, tb);
    }
    out.choices.insert(out.choices.end(), c.begin(), c.end());
    std::vector<int> idx(static_cast<std::size_t>(R));
    std::vector<double> y(static_cast<std::size_t>(R));
    for (int r = 0; r < R; ++r) {
      idx[r] = drive.empty() ? c[r].index : drive[static_cast<std::size_t>(step) * R + r];
      y[r] = rng.uniform(-1.0, 1.0);
    }
    if (script.pending_every > 0 && step % script.pending_every == script.pending_every - 1) {
      post.add_pending(idx.data());
      post.add_pending(idx.data());  // the same candidate twice
      std::vector<double> yy(2 * static_cast<std::size_t>(R));
      for (double& v : yy) v = rng.uniform(-1.0, 1.0);
      post.resolve_pending(yy.data());
    } else {
      post.observe(idx.data(), y.data());
    }
    const int r = step % R;
    const double* m = post.mean(r);  // a gather when sharded: read once
    out.mu.emplace_back(m, m + n);
    const double* v = post.variance(r);
    out.s2.emplace_back(v, v + n);
  }
  for (int r = 0; r < R; ++r) {
    out.history.push_back(post.history(r));
    out.info_gain.push_back(post.info_gain(r));
  }
  out.recompute = post.recompute_mode();
  return out;
}

/// The candidates a trace chose (step-major), to drive another session with.
inline std::vector<int> chosen(const ShardTrace& t) {
  std::vector<int> out;
  for (const UcbChoice& c : t.choices) out.push_back(c.index);
  return out;
}

/// Plays `script` on K in-process ranks, one thread each, every rank on a Context made by
/// `make(communicator)`. Returns every rank's trace (error set if it threw).
template <class MakeContext>
std::vector<ShardTrace> play_sharded(int ranks, const ShardScript& script,
                                     const std::vector<int>& drive, MakeContext make) {
  const std::vector<Communicator> comms = Communicator::in_process(ranks, 60.0);
  std::vector<ShardTrace> traces(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int q = 0; q < ranks; ++q) {
    threads.emplace_back([&, q] {
      try {
        const auto ctx = make(comms[static_cast<std::size_t>(q)]);
        traces[static_cast<std::size_t>(q)] = play_script(*ctx, script, drive);
      } catch (const std::exception& ex) {
        traces[static_cast<std::size_t>(q)].error = ex.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return traces;
}

/// Bitwise comparison of a rank's trace with the reference: choices (index, score, tie count),
/// μ and σ² after every step, history, information gain, mode.
inline void expect_identical(const ShardTrace& got, const ShardTrace& ref, const std::string& who) {
  ASSERT_EQ(got.error, "") << who;
  ASSERT_EQ(got.choices.size(), ref.choices.size()) << who;
  for (std::size_t i = 0; i < ref.choices.size(); ++i) {
    EXPECT_EQ(got.choices[i].index, ref.choices[i].index) << who << ", choice " << i;
    EXPECT_EQ(std::memcmp(&got.choices[i].score, &ref.choices[i].score, sizeof(double)), 0)
        << who << ", score of choice " << i;
    EXPECT_EQ(got.choices[i].ties, ref.choices[i].ties) << who << ", ties of choice " << i;
  }
  ASSERT_EQ(got.mu.size(), ref.mu.size()) << who;
  for (std::size_t i = 0; i < ref.mu.size(); ++i) {
    const std::size_t bytes = sizeof(double) * ref.mu[i].size();
    ASSERT_EQ(got.mu[i].size(), ref.mu[i].size()) << who;
    EXPECT_EQ(std::memcmp(got.mu[i].data(), ref.mu[i].data(), bytes), 0) << who << ", μ step " << i;
    EXPECT_EQ(std::memcmp(got.s2[i].data(), ref.s2[i].data(), bytes), 0)
        << who << ", σ² step " << i;
  }
  EXPECT_EQ(got.history, ref.history) << who;
  EXPECT_EQ(got.info_gain, ref.info_gain) << who;
  EXPECT_EQ(got.recompute, ref.recompute) << who;
}

/// max |a − b| / max |b| over one array.
inline double relative_gap(const std::vector<double>& a, const std::vector<double>& b) {
  double gap = 0, scale = 1e-300;
  for (std::size_t i = 0; i < b.size(); ++i) {
    gap = std::max(gap, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return std::isfinite(gap) ? gap / scale : INFINITY;
}

/// Comparison with a reference of the other backend: the same choices and tie counts (when
/// `same_choices`), μ and σ² within `tol` relative to their largest magnitude, same history.
inline void expect_close(const ShardTrace& got, const ShardTrace& ref, double tol,
                         bool same_choices, const std::string& who) {
  ASSERT_EQ(got.error, "") << who;
  ASSERT_EQ(got.choices.size(), ref.choices.size()) << who;
  if (same_choices) {
    for (std::size_t i = 0; i < ref.choices.size(); ++i) {
      EXPECT_EQ(got.choices[i].index, ref.choices[i].index) << who << ", choice " << i;
      EXPECT_EQ(got.choices[i].ties, ref.choices[i].ties) << who << ", ties of choice " << i;
    }
  }
  ASSERT_EQ(got.mu.size(), ref.mu.size()) << who;
  for (std::size_t i = 0; i < ref.mu.size(); ++i) {
    ASSERT_EQ(got.mu[i].size(), ref.mu[i].size()) << who;
    EXPECT_LE(relative_gap(got.mu[i], ref.mu[i]), tol) << who << ", μ step " << i;
    EXPECT_LE(relative_gap(got.s2[i], ref.s2[i]), tol) << who << ", σ² step " << i;
  }
  EXPECT_EQ(got.history, ref.history) << who;
  for (std::size_t r = 0; r < ref.info_gain.size(); ++r)
    EXPECT_NEAR(got.info_gain[r], ref.info_gain[r], std::max(tol, 1e-12) * (1 + ref.info_gain[r]))
        << who;
}

}  // namespace gpb::test
