// The host-side logic of the CUDA backend, which the CPU build can check: cuSOLVER devInfo
// classification, the 64-bit span arithmetic of the UCB argmax, the exclusion-mask delta the CUDA
// posterior uploads, and the column-chunk planning of the CUDA feature ops. (The device behaviour
// that uses them is covered by tests/test_cuda_*.cpp, label gpu.)
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/detail/argmax_span.hpp"
#include "engine/detail/column_chunks.hpp"
#include "engine/detail/mask_delta.hpp"
#include "engine/detail/solver_info.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

namespace {

TEST(SolverInfo, NegativeInfoIsACudaErrorNamingTheParameter) {
  EXPECT_EQ(gpb::detail::check_solver_info(0, "cusolverDnDpotrf"), 0);
  EXPECT_EQ(gpb::detail::check_solver_info(7, "cusolverDnDpotrf"), 7);  // numerical: caller's
  try {
    gpb::detail::check_solver_info(-3, "cusolverDnDsyevd");
    FAIL() << "no exception";
  } catch (const gpb::CudaError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cusolverDnDsyevd"), std::string::npos) << msg;
    EXPECT_NE(msg.find("parameter 3 is invalid"), std::string::npos) << msg;
  }
  // Not a NumericalError: an invalid parameter is a bug in the call, not a property of the data.
  EXPECT_THROW(
      {
        try {
          gpb::detail::check_solver_info(-1, "x");
        } catch (const gpb::NumericalError&) {
          FAIL() << "reported as NumericalError";
        }
      },
      gpb::CudaError);
}

TEST(ArgmaxSpan, BlocksCoverEveryCandidateOnceUpToIntMax) {
  using gpb::detail::span_begin;
  using gpb::detail::span_blocks;
  using gpb::detail::span_end;
  const int span = 2048;
  for (int n : {1, 2047, 2048, 2049, 1000003}) {
    const int blocks = span_blocks(n, span);
    long long covered = 0;
    for (int b = 0; b < blocks; ++b) {
      EXPECT_EQ(span_begin(b, span), covered) << "n " << n << " block " << b;
      ASSERT_GT(span_end(b, span, n), span_begin(b, span)) << "n " << n << " block " << b;
      covered = span_end(b, span, n);
    }
    EXPECT_EQ(covered, n);
  }
  // n close to 2³¹ − 1: (b+1)·span of the last block exceeds INT_MAX; the end must still be n.
  for (int n : {INT_MAX, INT_MAX - 1, INT_MAX - span + 1}) {
    const int blocks = span_blocks(n, span);
    EXPECT_EQ(blocks, static_cast<int>((static_cast<long long>(n) + span - 1) / span));
    const int last = blocks - 1;
    EXPECT_LT(span_begin(last, span), n);
    EXPECT_EQ(span_end(last, span, n), n);
    EXPECT_GT(span_end(last, span, n), span_begin(last, span));
  }
  EXPECT_EQ(span_blocks(0, span), 0);
}

std::vector<std::uint8_t> random_mask(std::size_t n, double p, gpb::Rng& rng) {
  std::vector<std::uint8_t> m(n);
  for (auto& b : m) b = rng.uniform() < p ? 1 : 0;
  return m;
}

TEST(MaskDelta, FewChangesAreListedExactly) {
  gpb::Rng rng(11, 0, 3);
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{1001}}) {
    auto shadow = random_mask(n, 0.3, rng);
    auto now = shadow;
    std::vector<std::int64_t> expect;
    for (std::size_t i = n % 3; i < n; i += 97) {  // a few flips, ascending, incl. the tail bytes
      now[i] = static_cast<std::uint8_t>(now[i] == 0 ? 1 : 0);
      expect.push_back(static_cast<std::int64_t>(i));
    }
    if (n > 1) {
      now[n - 1] = static_cast<std::uint8_t>(now[n - 1] == 0 ? 2 : 0);  // a non-0/1 byte value
      if (expect.empty() || expect.back() != static_cast<std::int64_t>(n - 1)) {
        expect.push_back(static_cast<std::int64_t>(n - 1));
      }
    }
    std::vector<std::int64_t> pos;
    std::vector<std::uint8_t> val;
    ASSERT_TRUE(gpb::detail::mask_delta(shadow.data(), now.data(), n, n, &pos, &val)) << n;
    EXPECT_EQ(pos, expect) << n;
    ASSERT_EQ(val.size(), pos.size());
    for (std::size_t k = 0; k < pos.size(); ++k) EXPECT_EQ(val[k], now[pos[k]]);
    EXPECT_EQ(shadow, now) << n;
    // Unchanged now: nothing to send.
    ASSERT_TRUE(gpb::detail::mask_delta(shadow.data(), now.data(), n, 0, &pos, &val));
    EXPECT_TRUE(pos.empty());
  }
}

TEST(MaskDelta, TooManyChangesAskForTheWholeMask) {
  gpb::Rng rng(12, 0, 3);
  const std::size_t n = 4099;
  auto shadow = random_mask(n, 0.1, rng);
  const auto now = random_mask(n, 0.5, rng);  // about half the bytes differ
  std::vector<std::int64_t> pos{1, 2};
  std::vector<std::uint8_t> val{1};
  EXPECT_FALSE(gpb::detail::mask_delta(shadow.data(), now.data(), n, n / 16, &pos, &val));
  EXPECT_TRUE(pos.empty());
  EXPECT_TRUE(val.empty());
  EXPECT_EQ(shadow, now);  // the shadow always ends equal to the new mask
}

TEST(ColumnChunk, BoundedByBudgetAndLimits) {
  using gpb::detail::column_chunk;
  using gpb::detail::kMaxColumnChunkBytes;
  using gpb::detail::kMinColumnChunkBytes;
  EXPECT_EQ(column_chunk(0, 10, 2, 1 << 30), 0);
  // A large budget: each block is capped at kMaxColumnChunkBytes.
  const int big = column_chunk(10000000, 100, 2, std::size_t{64} << 30);
  EXPECT_EQ(big, static_cast<int>(kMaxColumnChunkBytes / (8.0 * 100)));
  // A budget of 64 MiB with two blocks: each block ≤ 64 MiB / 16 = 4 MiB.
  const int mid = column_chunk(10000000, 100, 2, std::size_t{64} << 20);
  EXPECT_EQ(mid, static_cast<int>(4.0 * (1 << 20) / (8.0 * 100)));
  EXPECT_LE(2.0 * 8.0 * 100 * mid, (64 << 20) / 8.0 * 2);
  // A tiny budget still gets kMinColumnChunkBytes per block (efficient GEMMs).
  EXPECT_EQ(column_chunk(10000000, 100, 2, 1000),
            static_cast<int>(kMinColumnChunkBytes / (8.0 * 100)));
  // Never more than N, never less than one column (a huge m).
  EXPECT_EQ(column_chunk(50, 100, 2, std::size_t{64} << 30), 50);
  EXPECT_EQ(column_chunk(10000000, 100000000, 2, 1000), 1);
}

}  // namespace
