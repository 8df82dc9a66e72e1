/// @file posterior_argmax.hpp
/// The CPU posterior's UCB argmax over this rank's slice (internal): one record per run (eager
/// scan, or lazy blocks brought up to date until no stale block can win), then the k-th tie of the
/// slice when the global choice is a later tie (see detail/shard.hpp for the reduction).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/cpu/posterior_state.hpp"

namespace gpb::detail {

/// Run r's best UCB score over the slice, the lowest (global) candidate index reaching it and its
/// tie count; a NaN score is reported in the record. `ex`: the slice's mask (may be null). In
/// lazy mode `ties` receives the slice's ties in candidate order (global indices) when there are
/// several. The same score and ties as ucb_argmax_cpu over the slice.
UcbRecord local_ucb_record(const CpuState& s, int r, double width, const std::uint8_t* ex,
                           std::vector<int>& ties);

/// The k-th (k ≥ 0) tie of score `score` in the slice, in candidate order, as a global index;
/// `record` and `ties` are what local_ucb_record returned for run r.
int local_kth_tie(const CpuState& s, int r, double width, const std::uint8_t* ex, double score,
                  int k, const UcbRecord& record, const std::vector<int>& ties);

}  // namespace gpb::detail
