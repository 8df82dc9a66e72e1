/// @file rng.hpp
/// Counter-based Philox4x32-10 random numbers keyed by (seed, run, stream).
///
/// Draw i of stream (seed, run, stream) is a pure function of those four numbers, so the same
/// draws come out on CPU and CUDA, any run can be replayed alone, and the draws of run r do not
/// depend on how many runs an experiment has. Simulation only: privacy noise uses its own source.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "gpbandit/detail/host_device.hpp"

namespace gpb {

/// Named simulation streams. A policy-specific stream adds the policy's index times kPolicyStride.
enum class StreamId : std::uint32_t {
  Objective = 1,   ///< drawing the objective (RKHS coefficients, GP sample path)
  Noise = 2,       ///< observation noise; shared by all policies of a run (common random numbers)
  Bootstrap = 3,   ///< data-set rows resampled as rewards; shared by all policies
  TieBreak = 4,    ///< argmax ties, per policy
  Policy = 5,      ///< a policy's own randomness (random search, dictionary draws), per policy
  Projection = 6,  ///< random projection matrices
};
/// Stream numbers reserved per policy (policy i's streams start at i·kPolicyStride).
constexpr std::uint32_t kPolicyStride = 1u << 16;

/// Stream number of a named stream for policy `policy_index` (0 for streams shared by policies).
constexpr std::uint32_t stream_of(StreamId id, std::uint32_t policy_index = 0) {
  return static_cast<std::uint32_t>(id) + policy_index * kPolicyStride;
}

namespace detail {
/// One Philox4x32-10 block: 4 words from a 128-bit counter and a 64-bit key.
GPB_HD inline void philox4x32_10(const std::uint32_t ctr_in[4], const std::uint32_t key_in[2],
                                 std::uint32_t out[4]) {
  std::uint32_t c0 = ctr_in[0], c1 = ctr_in[1], c2 = ctr_in[2], c3 = ctr_in[3];
  std::uint32_t k0 = key_in[0], k1 = key_in[1];
  for (int r = 0; r < 10; ++r) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(0xD2511F53u) * c0;
    const std::uint64_t p1 = static_cast<std::uint64_t>(0xCD9E8D57u) * c2;
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32),
                        lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32),
                        lo1 = static_cast<std::uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/// 64 random bits: draw `index` of stream (seed, run, stream).
GPB_HD inline std::uint64_t philox_u64(std::uint64_t seed, std::uint32_t run, std::uint32_t stream,
                                       std::uint64_t index) {
  const std::uint64_t block = index >> 1;
  const std::uint32_t ctr[4] = {static_cast<std::uint32_t>(block),
                                static_cast<std::uint32_t>(block >> 32), run, stream};
  const std::uint32_t key[2] = {static_cast<std::uint32_t>(seed),
                                static_cast<std::uint32_t>(seed >> 32)};
  std::uint32_t out[4];
  philox4x32_10(ctr, key, out);
  const int lane = static_cast<int>(index & 1u) * 2;
  return (static_cast<std::uint64_t>(out[lane]) << 32) | out[lane + 1];
}

/// Maps 64 random bits to a double in the open interval (0, 1) (53-bit resolution).
/// The top input would round to exactly 1.0 (1 − 2⁻⁵⁴ is not a double); it maps to the largest
/// double below 1 instead, leaving every other value unchanged.
GPB_HD inline double u64_to_open01(std::uint64_t x) {
  const double u = (static_cast<double>(x >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  return u < 1.0 ? u : 0x1.fffffffffffffp-1;
}
}  // namespace detail

/// A sequential view of one stream: the n-th call returns draw n. Copyable value type.
///
/// Thread safety: a value; one Rng per thread (draws advance its position).
class Rng {
 public:
  /// The stream (seed, run, stream), positioned at draw `start`.
  Rng(std::uint64_t seed, std::uint32_t run, std::uint32_t stream, std::uint64_t start = 0)
      : seed_(seed), run_(run), stream_(stream), index_(start) {}

  /// 64 uniformly random bits.
  std::uint64_t next_u64() { return detail::philox_u64(seed_, run_, stream_, index_++); }
  /// Uniform on the open interval (0, 1).
  double uniform() { return detail::u64_to_open01(next_u64()); }
  /// Uniform on (lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n), n ≥ 1 (rejection-free multiply-shift; bias < n / 2^64).
  std::uint64_t below(std::uint64_t n) {
    __extension__ typedef unsigned __int128 U128;
    const U128 m = static_cast<U128>(next_u64()) * n;
    return static_cast<std::uint64_t>(m >> 64);
  }
  /// Standard normal by Box–Muller; consumes exactly two draws.
  double normal() {
    const double u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925 * u2);
  }
  /// Index of the next draw.
  std::uint64_t position() const { return index_; }

 private:
  std::uint64_t seed_;
  std::uint32_t run_;
  std::uint32_t stream_;
  std::uint64_t index_;
};

}  // namespace gpb
