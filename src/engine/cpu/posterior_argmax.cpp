// The CPU posterior's UCB argmax over this rank's slice (see cpu/posterior_argmax.hpp).
#include "engine/cpu/posterior_argmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gpb::detail {

namespace {

/// The record of a slice's best (internal positions in `b`), with global candidate indices.
UcbRecord to_record(const CpuState& s, const UcbBest& b, const double* m, const double* s2) {
  UcbRecord rec;
  if (b.index >= 0) {
    rec.score = b.score;
    rec.index = s.global(b.index);
    rec.ties = b.ties;
  }
  if (b.nan) {
    rec.nan_index = s.global(b.nan_index);
    rec.nan_mean = m[b.nan_index];
    rec.nan_var = s2[b.nan_index];
  }
  return rec;
}

/// Run r's record over lazy blocks (see posterior.hpp, "Lazy blocks"): exact scores of the blocks
/// already up to date, bounds for the others; stale blocks are brought up to date in decreasing
/// order of their bound, in batches that double, until no bound reaches the best exact score. The
/// best score and its tie count are those of a scan over the whole slice.
UcbRecord lazy_record(const CpuState& s, int r, double width, const std::uint8_t* excluded,
                      std::vector<int>& ties) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const int t = s.rows, nb = s.blocks;
  const std::uint8_t* ex = excluded;
  if (excluded != nullptr && !s.order.empty()) {  // the mask in internal positions
    s.excluded_int.resize(static_cast<std::size_t>(s.n));
    for (int i = 0; i < s.n; ++i)
      s.excluded_int[static_cast<std::size_t>(i)] = excluded[s.external(i)];
    ex = s.excluded_int.data();
  }
  const double* m = s.mu_of(r);
  const double* s2 = s.s2_of(r);
  std::vector<UcbBest> part(static_cast<std::size_t>(nb));
  std::vector<double> bound(static_cast<std::size_t>(nb));
  std::vector<double> lower(static_cast<std::size_t>(nb), -kInf);
  const auto scan_block = [&](int b) {
    part[static_cast<std::size_t>(b)] =
        scan_ucb(m, s2, b * kBlock, std::min(s.n, (b + 1) * kBlock), width, ex);
  };
  const int nt = s.threads_for(kUcbWorkPerCandidate * s.n);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int b = 0; b < nb; ++b) {
    if (s.rows_of_block(r, b) == t) {
      scan_block(b);
    } else {
      bound[static_cast<std::size_t>(b)] =
          s.block_bound(r, b, t, width, ex, lower[static_cast<std::size_t>(b)]);
    }
  }
  double best = -std::numeric_limits<double>::infinity();
  std::vector<int> stale;
  for (int b = 0; b < nb; ++b) {
    if (s.rows_of_block(r, b) == t) {
      if (part[static_cast<std::size_t>(b)].index >= 0)
        best = std::max(best, part[static_cast<std::size_t>(b)].score);
    } else {
      stale.push_back(b);
    }
  }
  const auto key = [&](int b) {  // NaN bounds first: they must be brought up to date
    const double u = bound[static_cast<std::size_t>(b)];
    return std::isnan(u) ? std::numeric_limits<double>::infinity() : u;
  };
  std::sort(stale.begin(), stale.end(), [&](int a, int b) { return key(a) > key(b); });
  // The first batch: every stale block whose bound reaches the best lower bound (some candidate
  // scores at least that much, so no other block can win); later batches (rarely needed) double.
  double floor = best;
  for (const int b : stale) floor = std::max(floor, lower[static_cast<std::size_t>(b)]);
  std::size_t next = 0, batch = stale.size();
  std::vector<int> tasks;
  while (next < stale.size() && !(key(stale[next]) < best)) {
    tasks.clear();
    do {
      tasks.push_back(r * nb + stale[next++]);
    } while (next < stale.size() && tasks.size() < batch && !(key(stale[next]) < floor));
    // In block order: each row of V is then read front to back, as the eager update reads it
    // (a flat UCB landscape, e.g. GP-BUCB's hallucinated rows, can bring most blocks up at once).
    std::sort(tasks.begin(), tasks.end());
    s.catch_up(tasks, t);
#pragma omp parallel for schedule(static) num_threads(std::min <int>(nt, tasks.size()))
    for (std::size_t i = 0; i < tasks.size(); ++i) scan_block(tasks[i] % nb);
    for (const int task : tasks) {
      const UcbBest& p = part[static_cast<std::size_t>(task % nb)];
      if (p.index >= 0) best = std::max(best, p.score);
    }
    floor = best;
    batch = batch == stale.size() ? static_cast<std::size_t>(std::max(2 * s.threads.max, 4))
                                  : 2 * batch;
  }
  // Every block that can reach `best` is now up to date; the others score strictly below it.
  UcbBest all;
  for (int b = 0; b < nb; ++b) {
    if (s.rows_of_block(r, b) == t) merge_best(all, part[static_cast<std::size_t>(b)]);
  }
  // The ties in candidate order (they all sit in up-to-date blocks).
  ties.clear();
  if (all.ties > 1) {
    for (int b = all.index / kBlock; b < nb; ++b) {
      if (s.rows_of_block(r, b) != t) continue;
      for (int j = std::max(b * kBlock, all.index); j < std::min(s.n, (b + 1) * kBlock); ++j) {
        if ((ex == nullptr || ex[j] == 0) && ucb_score(m[j], s2[j], width) == all.score)
          ties.push_back(s.global(j));
      }
    }
    std::sort(ties.begin(), ties.end());
  }
  UcbRecord rec = to_record(s, all, m, s2);
  if (!ties.empty()) rec.index = ties.front();
  return rec;
}

}  // namespace

UcbRecord local_ucb_record(const CpuState& s, int r, double width, const std::uint8_t* ex,
                           std::vector<int>& ties) {
  if (s.lazy) return lazy_record(s, r, width, ex, ties);
  ties.clear();
  const double* m = s.mu_of(r);
  const double* s2 = s.s2_of(r);
  return to_record(s, scan_ucb_parallel(m, s2, s.n, width, ex, s.threads), m, s2);
}

int local_kth_tie(const CpuState& s, int r, double width, const std::uint8_t* ex, double score,
                  int k, const UcbRecord& record, const std::vector<int>& ties) {
  if (s.lazy)
    return ties.empty() ? static_cast<int>(record.index) : ties[static_cast<std::size_t>(k)];
  const int j = find_tie(s.mu_of(r), s.s2_of(r), 0, s.n, width, ex, score, k);
  return j < 0 ? -1 : s.global(j);
}

}  // namespace gpb::detail
