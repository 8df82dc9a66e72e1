/// @file partition.hpp
/// Hierarchical k-ary partitions of a box (specs/fed-pne.md §2) for X-armed bandits.
#pragma once

#include <cstdint>
#include <vector>

namespace gpb::xarmed {

/// An axis-aligned box Π_a [lo_a, hi_a] (D = lo.size()).
struct Box {
  std::vector<double> lo;  ///< lower bound per axis, length D
  std::vector<double> hi;  ///< upper bound per axis, length D (hi[a] > lo[a])
  /// D, the number of axes.
  int dim() const { return static_cast<int>(lo.size()); }
};

/// The k-ary partition P_{h,i} of a box, i ∈ [1, k^h] (1-based as in the paper).
///
/// Children of (h,i) are (h+1, k(i−1)+s), s = 1..k: slice s (lowest coordinates first) of the
/// node's split axis. The split axis of (h,i) is 0 in 1-D and Philox(seed, h, i) mod D otherwise,
/// so any process computes any cell from (seed, h, i) alone, with no communication.
/// Cell computation walks the ancestors: O(h) per node.
class Partition {
 public:
  /// @throws InvalidArgument if the box is empty or inverted, or k < 2.
  Partition(Box box, int k, std::uint64_t seed);
  /// Branching factor k.
  int k() const { return k_; }
  /// D, the dimension of the box.
  int dim() const { return box_.dim(); }
  /// The root cell P_{0,1}.
  const Box& box() const { return box_; }
  /// Split axis of node (h, i).
  int split_dim(int h, std::uint64_t i) const;
  /// The cell P_{h,i}. @throws InvalidArgument if i ∉ [1, k^h] or k^h overflows 64 bits.
  Box cell(int h, std::uint64_t i) const;
  /// Centre of the cell (the node's representative point x_{h,i}), length D.
  std::vector<double> centre(int h, std::uint64_t i) const;
  /// Index of child s (1..k) of node i.
  std::uint64_t child(std::uint64_t i, int s) const {
    return static_cast<std::uint64_t>(k_) * (i - 1) + static_cast<std::uint64_t>(s);
  }

 private:
  Box box_;
  int k_;
  std::uint64_t seed_;
};

}  // namespace gpb::xarmed
