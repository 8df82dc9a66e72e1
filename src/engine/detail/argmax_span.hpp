/// @file argmax_span.hpp
/// Index arithmetic of the CUDA UCB argmax's first stage (kernels/ucb_argmax.cuh): block b of a
/// run covers the candidates [b·span, min((b+1)·span, n)). Computed in 64 bits, so the last block
/// of a run with n close to 2³¹ − 1 neither overflows nor wraps to a negative end. Host and device
/// (GPB_HD); the CPU tests check it at the int limits.
#pragma once

#include "gpbandit/detail/host_device.hpp"

namespace gpb::detail {

/// Number of blocks of `span` candidates that cover n ≥ 0 candidates: ⌈n / span⌉ (span > 0).
GPB_HD inline int span_blocks(int n, int span) {
  return static_cast<int>((static_cast<long long>(n) + span - 1) / span);
}
/// First candidate of block b: b·span (64-bit).
GPB_HD inline long long span_begin(int block, int span) {
  return static_cast<long long>(block) * span;
}
/// One past the last candidate of block b: min((b+1)·span, n) (64-bit, so never wraps).
GPB_HD inline long long span_end(int block, int span, int n) {
  const long long e = (static_cast<long long>(block) + 1) * span;
  return e < n ? e : static_cast<long long>(n);
}

}  // namespace gpb::detail
