/// @file fingerprint.hpp
/// Packed molecular fingerprints (or any binary / small-count feature vectors): the candidates of
/// a fingerprint domain (Domain::fingerprints) and the inputs of the Tanimoto and MinMax kernels.
///
/// Layout: N rows of W 64-bit words, row-major (row j's W words are contiguous), host memory.
///  - Bits (Tanimoto): position b of row j is bit b mod 64 of word ⌊b/64⌋; W = ⌈bits/64⌉.
///  - Counts (MinMax): one byte per position, the count clipped to 255: position b is byte b mod 8
///    (little-endian) of word ⌊b/8⌋; W = ⌈bits/8⌉ (exactly the bytes of a C-order N×bits uint8
///    array whose rows are padded to a multiple of 8).
/// Positions past `bits` (the padding of the last word) are always zero.
///
/// Cost of one kernel value: W AND/OR (or byte min/max) and popcounts; the CPU evaluates blocks of
/// candidates with AVX2 (nibble-table popcount; scalar POPCNT elsewhere), CUDA with __popcll
/// (engine ops, docs/pools.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpbandit/engine/fingerprint_kind.hpp"

namespace gpb {

/// Parses "bits" | "counts". @throws InvalidArgument naming the bad value.
FingerprintKind parse_fingerprint_kind(const std::string& name);
/// "bits" or "counts".
const char* fingerprint_kind_name(FingerprintKind kind);

/// N packed fingerprints of `bits` positions (see the file comment for the layout). A value type;
/// copies copy the words.
class Fingerprints {
 public:
  /// From a dense row-major n×bits array: Bits: every value 0 or 1; Counts: every value ≥ 0, counts
  /// above 255 clipped to 255 (clipped() counts them). O(n·bits).
  /// @throws InvalidArgument if n < 1, bits < 1, or (naming row and position) a value is negative
  /// or, for Bits, not 0/1.
  static Fingerprints from_dense(const std::int64_t* values, long long n, int bits,
                                 FingerprintKind kind);
  /// From packed words (n·words() of them, row-major as above), moved in without a copy.
  /// @throws InvalidArgument if the count does not match or a padding bit past `bits` is set.
  static Fingerprints from_words(std::vector<std::uint64_t> words, long long n, int bits,
                                 FingerprintKind kind);
  /// From a .npy file: a 2-d '<u8' (uint64) array of packed words (n×W; `bits` ≤ 64·W, 0 = 64·W;
  /// Bits only), or a 2-d array of bool or integers holding the dense n×bits values (`bits` 0 or
  /// equal to the column count). The file's dtype decides the format; `kind` the meaning.
  /// @throws InvalidArgument naming the file (bad shape, dtype, value at row and column);
  /// IoError if it cannot be read.
  static Fingerprints from_npy(const std::string& path,
                               FingerprintKind kind = FingerprintKind::Bits, int bits = 0);
  /// `count` random bit fingerprints of `bits` positions, each position set with probability
  /// `density` (Philox keyed by `seed`): synthetic pools for scale tests and benchmarks.
  /// O(count·bits/64). @throws InvalidArgument if count < 1, bits < 1 or density ∉ [0, 1].
  static Fingerprints random(long long count, int bits, double density, std::uint64_t seed);

  /// Number of fingerprints N.
  long long size() const { return n_; }
  /// Positions per fingerprint.
  int bits() const { return bits_; }
  /// 64-bit words per fingerprint, W.
  int words() const { return words_per_row_; }
  /// Bits or Counts.
  FingerprintKind kind() const { return kind_; }
  /// Row j's W words (0 ≤ j < size()).
  const std::uint64_t* row(long long j) const {
    return words_.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(words_per_row_);
  }
  /// All N·W words, row-major.
  const std::vector<std::uint64_t>& data() const { return words_; }
  /// Row j unpacked: bits() values (0/1, or the counts). @throws InvalidArgument if out of range.
  std::vector<int> dense(long long j) const;
  /// Rows [begin, end) as fingerprints of their own. @throws InvalidArgument if empty or out of
  /// range.
  Fingerprints rows(long long begin, long long end) const;
  /// Rows `index` (any order, repeats allowed). @throws InvalidArgument for an index out of range.
  Fingerprints select(const std::vector<long long>& index) const;
  /// Counts above 255 clipped to 255 when this was made (from_dense, from_npy; 0 for Bits).
  long long clipped() const { return clipped_; }

 private:
  friend struct FingerprintsAccess;  // the .npy reader sets clipped_
  std::vector<std::uint64_t> words_;
  long long n_ = 0;
  int bits_ = 0;
  int words_per_row_ = 0;
  FingerprintKind kind_ = FingerprintKind::Bits;
  long long clipped_ = 0;
};

/// 64-bit words per fingerprint of `bits` positions of `kind` (⌈bits/64⌉ or ⌈bits/8⌉).
int fingerprint_words(int bits, FingerprintKind kind);

/// |a ∧ b| / |a ∨ b| over W words (1 when both are empty): the Tanimoto kernel with v = 1.
double tanimoto(const std::uint64_t* a, const std::uint64_t* b, int words);
/// Σ min(a_i, b_i) / Σ max(a_i, b_i) over the byte counts of W words (1 when both are empty).
double minmax(const std::uint64_t* a, const std::uint64_t* b, int words);

}  // namespace gpb
