/// @file quiet_recompute.hpp
/// Silences FinitePosterior's own recompute-mode warning on this thread, for callers that report
/// the choice once themselves (the pipeline's memory plan, the Optimizer).
#pragma once

namespace gpb::detail {

/// While an instance lives on a thread, FinitePosterior constructors on that thread do not warn
/// when PosteriorMode::Auto resolves to recompute mode. Nests.
class QuietRecompute {
 public:
  QuietRecompute();
  ~QuietRecompute();
  QuietRecompute(const QuietRecompute&) = delete;
  QuietRecompute& operator=(const QuietRecompute&) = delete;
};

/// Whether a QuietRecompute lives on this thread.
bool recompute_quiet();

}  // namespace gpb::detail
