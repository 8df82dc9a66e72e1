// Objective values on slices of a grid against the whole grid, bit for bit (tests of issue #19:
// test_domain_shard.cpp on the CPU, test_cuda_domain_shard.cpp on a CUDA Context).
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cstring>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb::test {

/// Bit-for-bit equality of f over a slice [b, e) with the whole-domain values.
inline void expect_same_bits(const Eigen::VectorXd& whole, const Eigen::VectorXd& part, long long b,
                             const std::string& what) {
  ASSERT_LE(b + part.size(), whole.size()) << what;
  long long differ = 0, first = -1;
  for (Eigen::Index j = 0; j < part.size(); ++j) {
    if (std::memcmp(&part[j], &whole[b + j], sizeof(double)) != 0) {
      if (first < 0) first = b + j;
      ++differ;
    }
  }
  EXPECT_EQ(differ, 0) << what << ": first differing candidate " << first;
}

/// f on slices [cuts[i], cuts[i+1]) of the grid equals f on the whole grid, bit for bit.
inline void expect_slices_match(const ::gpb::Context& ctx, const ::gpb::Objective& f,
                                const std::vector<double>& lo, const std::vector<double>& hi,
                                const std::vector<int>& counts, const std::vector<long long>& cuts,
                                const std::string& what) {
  const ::gpb::Domain whole = ::gpb::Domain::grid(lo, hi, counts);
  const Eigen::VectorXd all = f.values(ctx, whole, 17, 2);
  ASSERT_EQ(all.size(), whole.size());
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const ::gpb::Domain s = ::gpb::Domain::grid_slice(lo, hi, counts, cuts[i], cuts[i + 1]);
    const Eigen::VectorXd part = f.values(ctx, s, 17, 2);
    ASSERT_EQ(part.size(), cuts[i + 1] - cuts[i]) << what;
    expect_same_bits(all, part, cuts[i], what + " slice " + std::to_string(i));
  }
}

}  // namespace gpb::test
