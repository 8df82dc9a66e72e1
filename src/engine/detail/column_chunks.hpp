/// @file column_chunks.hpp
/// Chunk planning of the CUDA feature ops (src/engine/cuda/nystrom_cuda.cpp): m×N matrices (K[D,:],
/// Φ, G) are streamed through the device in column chunks whose size depends on the Context's
/// memory budget, never held whole. Plain C++; checked by the CPU tests.
#pragma once

#include <algorithm>
#include <cstddef>

namespace gpb::detail {

/// Largest chunk of one m×len device block, bytes.
constexpr double kMaxColumnChunkBytes = 256.0 * (1 << 20);
/// Smallest chunk (unless N itself is smaller), bytes: keeps the GEMMs efficient.
constexpr double kMinColumnChunkBytes = 1.0 * (1 << 20);

/// Columns per chunk when `blocks` device blocks of rows × len doubles are live at once and the
/// budget is `budget_bytes`: each block gets budget / (8·blocks), clamped to
/// [kMinColumnChunkBytes, kMaxColumnChunkBytes], then len = ⌊that / (8·rows)⌋ clamped to [1, n].
/// Returns 0 only when n = 0.
inline int column_chunk(int n, int rows, int blocks, std::size_t budget_bytes) {
  if (n <= 0) return 0;
  const double per_block =
      std::clamp(static_cast<double>(budget_bytes) / (8.0 * std::max(blocks, 1)),
                 kMinColumnChunkBytes, kMaxColumnChunkBytes);
  const double len = per_block / (8.0 * std::max(rows, 1));
  return static_cast<int>(std::clamp(len, 1.0, static_cast<double>(n)));
}

}  // namespace gpb::detail
