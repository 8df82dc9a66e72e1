/// @file blocks.hpp
/// Objective values in the blocks of the whole domain (internal). An objective that evaluates its
/// candidates a block at a time (rkhs, random Fourier features) rounds each value the way its
/// block's size makes Eigen's products round it; a slice of the domain (one MPI rank's) gets the
/// very same bits by evaluating the same global blocks, computing the points of a block's part it
/// does not hold (Domain::points_of) and keeping its own part.
#pragma once

#include <Eigen/Core>

#include <algorithm>

#include "gpbandit/domain.hpp"

namespace gpb::detail {

/// f at the candidates `domain` holds (all N, or a slice's), computed in the blocks
/// [s, s + block) of the whole domain, s a multiple of `block`: `fn(points, out)` writes the
/// values of one block's d × len points into out (len values). A slice evaluates at most two
/// blocks more than it holds (its first and last, when they straddle its ends).
template <class Fn>
Eigen::VectorXd values_in_blocks(const Domain& domain, Eigen::Index block, const Fn& fn) {
  const Eigen::Index b = domain.slice_begin(), e = domain.slice_end(), n = domain.size();
  Eigen::VectorXd f(e - b);
  for (Eigen::Index s = (b / block) * block; s < e; s += block) {
    const Eigen::Index len = std::min(block, n - s);
    if (s >= b && s + len <= e) {
      fn(domain.points().middleCols(s - b, len), f.segment(s - b, len));
      continue;
    }
    Eigen::VectorXd whole(len);
    fn(domain.points_of(s, s + len), whole);
    const Eigen::Index lo = std::max(s, b), hi = std::min(s + len, e);
    f.segment(lo - b, hi - lo) = whole.segment(lo - s, hi - lo);
  }
  return f;
}

}  // namespace gpb::detail
