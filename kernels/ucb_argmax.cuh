/// @file ucb_argmax.cuh
/// __global__ kernels of the fused UCB argmax over R runs (launched from
/// src/engine/cuda/ucb_argmax.cu). Same contract as the CPU (cpu/ops_cpu.cpp): score =
/// detail::ucb_score(μ, σ², width), excluded candidates skipped, the lowest index among exact ties
/// and the exact number of ties, NaN scores reported with the lowest NaN index. The merge below is
/// commutative and associative, so the result does not depend on the order of the reduction.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <climits>
#include <cstdint>

#include "engine/detail/argmax_span.hpp"
#include "engine/detail/scalar_steps.hpp"

namespace gpb::cuda::kernels {

constexpr int kArgmaxThreads = 256;
constexpr int kArgmaxItems = 8;
/// Candidates per block of the first stage.
constexpr int kArgmaxSpan = kArgmaxThreads * kArgmaxItems;

/// Partial argmax of a range. index < 0: no candidate (all excluded); nan_index = INT_MAX: no NaN.
struct Best {
  double score;
  int index;
  int ties;
  int nan_index;
};

__device__ inline Best best_empty() {
  return Best{0.0, -1, 0, INT_MAX};
}

struct MergeBest {
  __device__ Best operator()(const Best& a, const Best& b) const {
    Best out;
    out.nan_index = min(a.nan_index, b.nan_index);
    if (b.index < 0 || (a.index >= 0 && a.score > b.score)) {
      out.score = a.score;
      out.index = a.index;
      out.ties = a.ties;
    } else if (a.index < 0 || b.score > a.score) {
      out.score = b.score;
      out.index = b.index;
      out.ties = b.ties;
    } else {  // exact tie: the lower index (and its score bits, as the CPU keeps), ties add up
      const bool a_first = a.index < b.index;
      out.score = a_first ? a.score : b.score;
      out.index = a_first ? a.index : b.index;
      out.ties = a.ties + b.ties;
    }
    return out;
  }
};

/// Stage 1: block (x = b, y = run) reduces candidates [b·span, min((b+1)·span, n)) of run
/// blockIdx.y into partial[run·gridDim.x + b]. mean/var are R×n run-major (row stride n),
/// excluded is R×n or null, width has R entries. Indices fit in int (n < 2³¹); span ends, loop
/// counters and offsets are computed in 64 bits (R·n may exceed 2³¹, and (b+1)·span may exceed
/// 2³¹ − 1 in the last block when n is close to it).
__global__ void __launch_bounds__(kArgmaxThreads)
    ucb_argmax_partial(const double* __restrict__ mean, const double* __restrict__ var, int n,
                       const double* __restrict__ width, const std::uint8_t* __restrict__ excluded,
                       Best* __restrict__ partial) {
  using Reduce = cub::BlockReduce<Best, kArgmaxThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const int run = blockIdx.y;
  const std::size_t base = static_cast<std::size_t>(run) * static_cast<std::size_t>(n);
  const double w = width[run];
  const long long end = detail::span_end(blockIdx.x, kArgmaxSpan, n);
  Best best = best_empty();
  const MergeBest merge;
  for (long long j = detail::span_begin(blockIdx.x, kArgmaxSpan) + threadIdx.x; j < end;
       j += kArgmaxThreads) {
    if (excluded != nullptr && excluded[base + j] != 0) continue;
    const double s = detail::ucb_score(mean[base + j], var[base + j], w);
    if (isnan(s)) {
      best.nan_index = min(best.nan_index, static_cast<int>(j));
      continue;
    }
    best = merge(best, Best{s, static_cast<int>(j), 1, INT_MAX});
  }
  const Best total = Reduce(temp).Reduce(best, merge);
  if (threadIdx.x == 0) partial[static_cast<std::size_t>(run) * gridDim.x + blockIdx.x] = total;
}

/// Stage 2: block `run` merges the `blocks` partials of its run into out[run].
__global__ void __launch_bounds__(kArgmaxThreads)
    ucb_argmax_final(const Best* __restrict__ partial, int blocks, Best* __restrict__ out) {
  using Reduce = cub::BlockReduce<Best, kArgmaxThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const int run = blockIdx.x;
  const MergeBest merge;
  Best best = best_empty();
  for (int b = threadIdx.x; b < blocks; b += kArgmaxThreads) {
    best = merge(best, partial[static_cast<std::size_t>(run) * blocks + b]);
  }
  const Best total = Reduce(temp).Reduce(best, merge);
  if (threadIdx.x == 0) out[run] = total;
}

/// Tie counting for the runs that need a random tie-break: block (x = b, y = k) counts the
/// candidates of run runs[k] in [b·span, …) whose score equals target[k] exactly (excluded ones
/// skipped) into counts[k·gridDim.x + b].
__global__ void __launch_bounds__(kArgmaxThreads)
    count_ties(const double* __restrict__ mean, const double* __restrict__ var, int n,
               const double* __restrict__ width, const std::uint8_t* __restrict__ excluded,
               const int* __restrict__ runs, const double* __restrict__ target,
               int* __restrict__ counts) {
  using Reduce = cub::BlockReduce<int, kArgmaxThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const int k = blockIdx.y;
  const int run = runs[k];
  const std::size_t base = static_cast<std::size_t>(run) * static_cast<std::size_t>(n);
  const double w = width[run];
  const double t = target[k];
  const long long end = detail::span_end(blockIdx.x, kArgmaxSpan, n);
  int c = 0;
  for (long long j = detail::span_begin(blockIdx.x, kArgmaxSpan) + threadIdx.x; j < end;
       j += kArgmaxThreads) {
    if (excluded != nullptr && excluded[base + j] != 0) continue;
    if (detail::ucb_score(mean[base + j], var[base + j], w) == t) ++c;
  }
  const int total = Reduce(temp).Sum(c);
  if (threadIdx.x == 0) counts[static_cast<std::size_t>(k) * gridDim.x + blockIdx.x] = total;
}

/// Block k finds, within block range [block[k]·span, …) of run runs[k], the rank[k]-th (0-based,
/// index order) candidate whose score equals target[k], and writes its index to chosen[k]
/// (left untouched if there is none, which the host treats as an internal error).
__global__ void __launch_bounds__(kArgmaxThreads)
    select_kth_tie(const double* __restrict__ mean, const double* __restrict__ var, int n,
                   const double* __restrict__ width, const std::uint8_t* __restrict__ excluded,
                   const int* __restrict__ runs, const double* __restrict__ target,
                   const int* __restrict__ block, const int* __restrict__ rank,
                   int* __restrict__ chosen) {
  using Scan = cub::BlockScan<int, kArgmaxThreads>;
  __shared__ typename Scan::TempStorage temp;
  const int k = blockIdx.x;
  const int run = runs[k];
  const std::size_t base = static_cast<std::size_t>(run) * static_cast<std::size_t>(n);
  const double w = width[run];
  const double t = target[k];
  const long long end = detail::span_end(block[k], kArgmaxSpan, n);
  int seen = 0;  // ties before the current tile (uniform across the block)
  for (long long j0 = detail::span_begin(block[k], kArgmaxSpan); j0 < end; j0 += kArgmaxThreads) {
    const long long j = j0 + threadIdx.x;
    int flag = 0;
    if (j < end && (excluded == nullptr || excluded[base + j] == 0)) {
      flag = detail::ucb_score(mean[base + j], var[base + j], w) == t ? 1 : 0;
    }
    int before = 0, tile_total = 0;
    Scan(temp).ExclusiveSum(flag, before, tile_total);
    if (flag != 0 && seen + before == rank[k]) chosen[k] = static_cast<int>(j);
    seen += tile_total;
    __syncthreads();  // temp is reused by the next tile's scan
  }
}

}  // namespace gpb::cuda::kernels
