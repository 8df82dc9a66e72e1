// Recursive median splits for the lazy blocks of the CPU posterior (see block_order.hpp).
#include "engine/cpu/block_order.hpp"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace gpb::detail {

namespace {
void split(const Eigen::MatrixXd& points, int block, int* first, int* last) {
  const long count = last - first;
  if (count <= block) return;
  // The bounding box in one pass over the points' columns (each contiguous), not one strided
  // pass per axis; the widest axis, the first of equal widths.
  const long d = points.rows();
  std::vector<double> lo(points.col(*first).data(), points.col(*first).data() + d), hi = lo;
  for (const int* p = first; p != last; ++p) {
    const double* x = points.col(*p).data();
    for (long k = 0; k < d; ++k) {
      lo[k] = std::min(lo[k], x[k]);
      hi[k] = std::max(hi[k], x[k]);
    }
  }
  int axis = 0;
  double widest = -1.0;
  for (long k = 0; k < d; ++k) {
    if (hi[k] - lo[k] > widest) {
      widest = hi[k] - lo[k];
      axis = static_cast<int>(k);
    }
  }
  const long half_blocks = (count / block + 1) / 2;  // ≥ 1 since count > block
  // The median split on (coordinate, index) pairs held side by side: the same comparisons as on
  // the indices themselves (so the same order), without a strided read per comparison.
  std::vector<std::pair<double, int>> keyed(static_cast<std::size_t>(count));
  for (long i = 0; i < count; ++i) keyed[i] = {points(axis, first[i]), first[i]};
  std::nth_element(keyed.begin(), keyed.begin() + half_blocks * block, keyed.end());
  for (long i = 0; i < count; ++i) first[i] = keyed[i].second;
  int* mid = first + half_blocks * block;
  split(points, block, first, mid);
  split(points, block, mid, last);
}
}  // namespace

std::vector<int> spatial_block_order(const Eigen::MatrixXd& points, int block) {
  std::vector<int> order(static_cast<std::size_t>(points.cols()));
  std::iota(order.begin(), order.end(), 0);
  if (!order.empty()) split(points, block, order.data(), order.data() + order.size());
  return order;
}

}  // namespace gpb::detail
