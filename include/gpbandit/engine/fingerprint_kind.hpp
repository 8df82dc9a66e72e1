/// @file fingerprint_kind.hpp
/// What the packed words of a fingerprint hold (on its own so that domain.hpp needs no more of
/// fingerprint.hpp than this tag).
#pragma once

namespace gpb {

/// What the words of a fingerprint hold (layouts: fingerprint.hpp).
enum class FingerprintKind {
  Bits,   ///< one bit per position (the Tanimoto kernel)
  Counts  ///< one byte per position, a count in [0, 255] (the MinMax kernel)
};

}  // namespace gpb
