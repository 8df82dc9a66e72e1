// k-ary hierarchical partition with counter-based random split axes.
#include "gpbandit/xarmed/partition.hpp"

#include <limits>

#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::xarmed {

namespace {
constexpr std::uint32_t kSplitStream = 0x5e11u;  // stream of the split-axis draws
}

Partition::Partition(Box box, int k, std::uint64_t seed)
    : box_(std::move(box)), k_(k), seed_(seed) {
  GPB_EXPECTS(k >= 2, "partition: k must be >= 2, got " << k);
  GPB_EXPECTS(box_.dim() >= 1 && box_.lo.size() == box_.hi.size(),
              "partition: box needs matching lo/hi of length >= 1");
  for (int a = 0; a < box_.dim(); ++a) {
    GPB_EXPECTS(box_.lo[a] < box_.hi[a], "partition: box axis " << a << " has lo >= hi");
  }
}

int Partition::split_dim(int h, std::uint64_t i) const {
  if (dim() == 1) return 0;
  // (seed, run = depth, stream, index = node): one 64-bit draw per node.
  const std::uint64_t u = detail::philox_u64(seed_, static_cast<std::uint32_t>(h), kSplitStream, i);
  return static_cast<int>(u % static_cast<std::uint64_t>(dim()));
}

Box Partition::cell(int h, std::uint64_t i) const {
  GPB_EXPECTS(h >= 0, "partition: depth must be >= 0, got " << h);
  // Ancestors i_j = ceil(i / k^{h-j}); compute k^h with an overflow check.
  std::vector<std::uint64_t> anc(static_cast<std::size_t>(h) + 1);
  std::uint64_t width = 1;  // k^h
  for (int j = 0; j < h; ++j) {
    GPB_EXPECTS(width <= std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(k_),
                "partition: depth " << h << " overflows 64-bit node indices");
    width *= static_cast<std::uint64_t>(k_);
  }
  GPB_EXPECTS(i >= 1 && i <= width, "partition: node index " << i << " outside [1, k^" << h << "]");
  anc[static_cast<std::size_t>(h)] = i;
  for (int j = h - 1; j >= 0; --j) {
    const std::uint64_t c = anc[static_cast<std::size_t>(j) + 1];
    anc[static_cast<std::size_t>(j)] = (c - 1) / static_cast<std::uint64_t>(k_) + 1;
  }
  Box b = box_;
  for (int j = 0; j < h; ++j) {
    const std::uint64_t ij = anc[static_cast<std::size_t>(j)];
    const int a = split_dim(j, ij);
    const std::uint64_t s =
        anc[static_cast<std::size_t>(j) + 1] - static_cast<std::uint64_t>(k_) * (ij - 1);
    const double lo = b.lo[a], w = (b.hi[a] - lo) / k_;
    const double new_lo = lo + w * static_cast<double>(s - 1);
    const double new_hi =
        (s == static_cast<std::uint64_t>(k_)) ? b.hi[a] : lo + w * static_cast<double>(s);
    b.lo[a] = new_lo;
    b.hi[a] = new_hi;
  }
  return b;
}

std::vector<double> Partition::centre(int h, std::uint64_t i) const {
  const Box b = cell(h, i);
  std::vector<double> c(b.lo.size());
  for (std::size_t a = 0; a < c.size(); ++a) c[a] = 0.5 * (b.lo[a] + b.hi[a]);
  return c;
}

}  // namespace gpb::xarmed
