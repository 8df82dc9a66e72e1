/// @file mask_delta.hpp
/// The change between two exclusion masks, for the CUDA posterior, which keeps the R×N mask on the
/// device and, per ucb_argmax call, uploads only the entries that changed (one scatter kernel)
/// instead of all R·N bytes. Plain C++; checked by the CPU tests (tests/test_gpu_host_logic.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gpb::detail {

/// Compares `now` with `shadow` (n bytes each), eight bytes at a time, and copies `now` into
/// `shadow`. When at most `max_changes` bytes differ, returns true with their positions
/// (ascending) in `changed` and their new values in `values`; otherwise returns false with
/// `changed` and `values` cleared (the caller then uploads the whole mask). O(n) host reads.
inline bool mask_delta(std::uint8_t* shadow, const std::uint8_t* now, std::size_t n,
                       std::size_t max_changes, std::vector<std::int64_t>* changed,
                       std::vector<std::uint8_t>* values) {
  changed->clear();
  values->clear();
  std::size_t i = 0;
  while (i < n) {
    const std::size_t len = std::min<std::size_t>(8, n - i);
    if (std::memcmp(shadow + i, now + i, len) != 0) {
      for (std::size_t k = i; k < i + len; ++k) {
        if (shadow[k] == now[k]) continue;
        if (changed->size() == max_changes) {  // too many: the whole mask goes up
          std::memcpy(shadow + i, now + i, n - i);
          changed->clear();
          values->clear();
          return false;
        }
        changed->push_back(static_cast<std::int64_t>(k));
        values->push_back(now[k]);
        shadow[k] = now[k];
      }
    }
    i += len;
  }
  return true;
}

}  // namespace gpb::detail
