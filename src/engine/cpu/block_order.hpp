/// @file block_order.hpp
/// A spatial order of the candidates for the lazy blocks of the CPU FinitePosterior: candidates
/// that are close share a block, so a block's UCB bound is tight (internal; see posterior.hpp).
#pragma once

#include <Eigen/Core>

#include <vector>

namespace gpb::detail {

/// Orders the columns of `points` (d×N) by recursive median splits along the coordinate of
/// largest spread, with every split at a multiple of `block` from the start of its range, so
/// each run of `block` consecutive positions is one cell of a k-d partition. Returns order[i] =
/// the column at position i (a permutation of 0..N−1). Deterministic; O(N·d·log(N/block)).
std::vector<int> spatial_block_order(const Eigen::MatrixXd& points, int block);

}  // namespace gpb::detail
