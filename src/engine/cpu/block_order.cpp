// Recursive median splits for the lazy blocks of the CPU posterior (see block_order.hpp).
#include "engine/cpu/block_order.hpp"

#include <algorithm>
#include <numeric>

namespace gpb::detail {

namespace {
void split(const Eigen::MatrixXd& points, int block, int* first, int* last) {
  const long count = last - first;
  if (count <= block) return;
  int axis = 0;
  double widest = -1.0;
  for (int k = 0; k < points.rows(); ++k) {
    double lo = points(k, *first), hi = lo;
    for (const int* p = first; p != last; ++p) {
      lo = std::min(lo, points(k, *p));
      hi = std::max(hi, points(k, *p));
    }
    if (hi - lo > widest) {
      widest = hi - lo;
      axis = k;
    }
  }
  const long half_blocks = (count / block + 1) / 2;  // ≥ 1 since count > block
  int* mid = first + half_blocks * block;
  std::nth_element(first, mid, last, [&](int a, int b) {
    const double xa = points(axis, a), xb = points(axis, b);
    return xa < xb || (xa == xb && a < b);
  });
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
