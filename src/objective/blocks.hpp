/// @file blocks.hpp
/// Objective values in the blocks of the whole domain (internal). An objective that evaluates its
/// candidates a block at a time (rkhs, random Fourier features) rounds each value the way its
/// block's size makes Eigen's products round it; a slice of the domain (one MPI rank's) gets the
/// very same bits by evaluating the same global blocks with the points of a block's part it does
/// not hold — computed by a grid (Domain::points_of), fetched from their owners otherwise
/// (points_of_ranges) — and keeping its own part.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <utility>
#include <vector>

#include "dist/domain_scatter.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"

namespace gpb::detail {

/// f at the candidates `domain` holds (all N, or a slice's), computed in the blocks
/// [s, s + block) of the whole domain, s a multiple of `block`: `fn(points, out)` writes the
/// values of one block's d × len points into out (len values). A slice evaluates at most two
/// blocks more than it holds (its first and last, when they straddle its ends). A slice that is
/// not a grid fetches those blocks' other points from their owners over ctx's communicator: a
/// collective, so every rank calls it together.
template <class Fn>
Eigen::VectorXd values_in_blocks(const Context& ctx, const Domain& domain, Eigen::Index block,
                                 const Fn& fn) {
  const Eigen::Index b = domain.slice_begin(), e = domain.slice_end(), n = domain.size();
  const Eigen::Index first = (b / block) * block,
                     last_end = std::min(((e - 1) / block + 1) * block, n);
  // The parts of the straddling blocks this slice does not hold: [first, b) and [e, last_end).
  Eigen::MatrixXd before, after;
  if (needs_owners(domain)) {
    std::vector<std::pair<long long, long long>> want;
    if (first < b) want.emplace_back(first, b);
    if (e < last_end) want.emplace_back(e, last_end);
    const Eigen::MatrixXd got = points_of_ranges(ctx.communicator(), domain, want);
    before = got.leftCols(b - first);
    after = got.rightCols(last_end - e);
  }
  const auto block_points = [&](Eigen::Index s, Eigen::Index len) -> Eigen::MatrixXd {
    if (!needs_owners(domain)) return domain.points_of(s, s + len);
    Eigen::MatrixXd p(domain.dim(), len);
    const Eigen::Index lo = std::max(s, b), hi = std::min(s + len, e);
    if (s < b) p.leftCols(b - s) = before;  // s = first
    p.middleCols(lo - s, hi - lo) = domain.points().middleCols(lo - b, hi - lo);
    if (s + len > e) p.rightCols(s + len - e) = after;  // s + len = last_end
    return p;
  };
  Eigen::VectorXd f(e - b);
  for (Eigen::Index s = first; s < e; s += block) {
    const Eigen::Index len = std::min(block, n - s);
    if (s >= b && s + len <= e) {
      fn(domain.points().middleCols(s - b, len), f.segment(s - b, len));
      continue;
    }
    Eigen::VectorXd whole(len);
    fn(block_points(s, len), whole);
    const Eigen::Index lo = std::max(s, b), hi = std::min(s + len, e);
    f.segment(lo - b, hi - lo) = whole.segment(lo - s, hi - lo);
  }
  return f;
}

}  // namespace gpb::detail
