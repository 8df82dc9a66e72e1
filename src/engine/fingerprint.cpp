// Packed fingerprints: construction from dense arrays, packed words and .npy files; random pools;
// the scalar Tanimoto and MinMax similarities (see include/gpbandit/engine/fingerprint.hpp).
#include "gpbandit/engine/fingerprint.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "engine/detail/kernel_formula.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"

namespace gpb {

/// Sets what the public factories compute for the .npy reader.
struct FingerprintsAccess {
  static void set_clipped(Fingerprints& fp, long long clipped) { fp.clipped_ = clipped; }
};

namespace {

constexpr long long kMaxRows = std::numeric_limits<int>::max();
constexpr int kMaxBits = 1 << 20;

void check_shape(long long n, int bits, const std::string& what) {
  GPB_EXPECTS(n >= 1 && n <= kMaxRows,
              what << ": the number of fingerprints must be in [1, " << kMaxRows << "], got " << n);
  GPB_EXPECTS(bits >= 1 && bits <= kMaxBits,
              what << ": bits must be in [1, " << kMaxBits << "], got " << bits);
}

/// Sets position b of a row to `value` (0/1 for bits; a byte count for counts).
void put(std::uint64_t* row, int b, std::uint64_t value, FingerprintKind kind) {
  if (kind == FingerprintKind::Bits) {
    row[b / 64] |= value << (b % 64);
  } else {
    row[b / 8] |= value << (8 * (b % 8));
  }
}

/// Mask of the positions of the last word that lie within `bits` (all ones when it is full).
std::uint64_t last_word_mask(int bits, FingerprintKind kind) {
  const int per_word = kind == FingerprintKind::Bits ? 64 : 8;
  const int used = bits - (fingerprint_words(bits, kind) - 1) * per_word;  // 1..per_word
  const int used_bits = kind == FingerprintKind::Bits ? used : 8 * used;
  return used_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << used_bits) - 1;
}

/// Dense values of a .npy array (bool or integers) packed as fingerprints.
Fingerprints dense_npy(std::string_view bytes, const detail::NpyHeader& h, FingerprintKind kind,
                       int bits, const std::string& path) {
  const std::int64_t rows = h.shape[0], cols = h.shape[1];
  GPB_EXPECTS(bits == 0 || bits == cols,
              path << ": " << cols << " columns (positions) but bits = " << bits << " was given");
  check_shape(rows, static_cast<int>(std::min<std::int64_t>(cols, kMaxBits + 1)), path);
  std::vector<std::int64_t> row(static_cast<std::size_t>(cols));
  const int w = fingerprint_words(static_cast<int>(cols), kind);
  std::vector<std::uint64_t> words(static_cast<std::size_t>(rows) * w, 0);
  long long clipped = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    std::uint64_t* out = words.data() + static_cast<std::size_t>(i) * w;
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::uint64_t at = h.fortran_order ? static_cast<std::uint64_t>(j * rows + i)
                                               : static_cast<std::uint64_t>(i * cols + j);
      const std::int64_t v = detail::npy_integer(
          h, bytes.data() + h.data_offset + at * static_cast<std::uint64_t>(h.element_size));
      GPB_EXPECTS(v >= 0, path << ": row " << i << ", column " << j << " is " << v
                               << "; fingerprint values must be >= 0");
      if (kind == FingerprintKind::Bits) {
        GPB_EXPECTS(v <= 1, path << ": row " << i << ", column " << j << " is " << v
                                 << "; a bit fingerprint holds 0 or 1 (count fingerprints: "
                                 << "kind \"counts\")");
      } else if (v > 255) {
        ++clipped;
      }
      put(out, static_cast<int>(j), static_cast<std::uint64_t>(std::min<std::int64_t>(v, 255)),
          kind);
    }
  }
  Fingerprints fp = Fingerprints::from_words(std::move(words), rows, static_cast<int>(cols), kind);
  FingerprintsAccess::set_clipped(fp, clipped);
  return fp;
}

}  // namespace

int fingerprint_words(int bits, FingerprintKind kind) {
  return kind == FingerprintKind::Bits ? (bits + 63) / 64 : (bits + 7) / 8;
}

FingerprintKind parse_fingerprint_kind(const std::string& name) {
  if (name == "bits") return FingerprintKind::Bits;
  if (name == "counts") return FingerprintKind::Counts;
  throw InvalidArgument("unknown fingerprint kind '" + name + "'; expected bits or counts");
}

const char* fingerprint_kind_name(FingerprintKind kind) {
  return kind == FingerprintKind::Bits ? "bits" : "counts";
}

Fingerprints Fingerprints::from_dense(const std::int64_t* values, long long n, int bits,
                                      FingerprintKind kind) {
  check_shape(n, bits, "fingerprints");
  GPB_EXPECTS(values != nullptr, "fingerprints: the value array is null");
  const int w = fingerprint_words(bits, kind);
  std::vector<std::uint64_t> words(static_cast<std::size_t>(n) * w, 0);
  long long clipped = 0;
  for (long long i = 0; i < n; ++i) {
    std::uint64_t* out = words.data() + static_cast<std::size_t>(i) * w;
    const std::int64_t* in = values + static_cast<std::size_t>(i) * bits;
    for (int b = 0; b < bits; ++b) {
      const std::int64_t v = in[b];
      GPB_EXPECTS(v >= 0, "fingerprints: row " << i << ", position " << b << " is " << v
                                               << "; values must be >= 0");
      GPB_EXPECTS(kind == FingerprintKind::Counts || v <= 1,
                  "fingerprints: row " << i << ", position " << b << " is " << v
                                       << "; a bit fingerprint holds 0 or 1");
      if (v > 255) ++clipped;
      put(out, b, static_cast<std::uint64_t>(std::min<std::int64_t>(v, 255)), kind);
    }
  }
  Fingerprints fp = from_words(std::move(words), n, bits, kind);
  fp.clipped_ = clipped;
  return fp;
}

Fingerprints Fingerprints::from_words(std::vector<std::uint64_t> words, long long n, int bits,
                                      FingerprintKind kind) {
  check_shape(n, bits, "fingerprints");
  const int w = fingerprint_words(bits, kind);
  GPB_EXPECTS(words.size() == static_cast<std::size_t>(n) * static_cast<std::size_t>(w),
              "fingerprints: " << words.size() << " words for " << n << " fingerprints of " << w
                               << " words (" << bits << " " << fingerprint_kind_name(kind) << ")");
  const std::uint64_t mask = last_word_mask(bits, kind);
  for (long long i = 0; i < n; ++i) {
    const std::uint64_t last = words[static_cast<std::size_t>(i) * w + (w - 1)];
    GPB_EXPECTS((last & ~mask) == 0, "fingerprints: row " << i << " sets a position at or past "
                                                          << bits << " (the padding of its last "
                                                          << "word must be zero)");
  }
  Fingerprints fp;
  fp.words_ = std::move(words);
  fp.n_ = n;
  fp.bits_ = bits;
  fp.words_per_row_ = w;
  fp.kind_ = kind;
  return fp;
}

Fingerprints Fingerprints::from_npy(const std::string& path, FingerprintKind kind, int bits) {
  const std::string bytes = detail::read_whole_file(path);
  const detail::NpyHeader h = detail::parse_npy_header(bytes, path);
  GPB_EXPECTS(h.shape.size() == 2,
              path << ": fingerprints must be a 2-d array (one row per molecule), got "
                   << h.shape.size() << "-d");
  GPB_EXPECTS(h.shape[0] >= 1 && h.shape[1] >= 1, path << ": the array is empty");
  GPB_EXPECTS(h.kind != 'f', path << ": float arrays are not fingerprints; use uint64 packed "
                                  << "words, or bool / integer 0-1 (bits) or counts");
  const std::uint64_t count =
      static_cast<std::uint64_t>(h.shape[0]) * static_cast<std::uint64_t>(h.shape[1]);
  GPB_EXPECTS(bytes.size() - h.data_offset >= count * static_cast<std::uint64_t>(h.element_size),
              path << ": truncated .npy data (" << (bytes.size() - h.data_offset) << " bytes for "
                   << count << " values of " << h.element_size << " bytes)");
  if (h.kind == 'u' && h.element_size == 8) {  // packed words
    GPB_EXPECTS(kind == FingerprintKind::Bits,
                path << ": uint64 arrays are packed bit fingerprints; count fingerprints are "
                     << "given dense (one integer per position)");
    const std::int64_t rows = h.shape[0], w = h.shape[1];
    GPB_EXPECTS(w <= kMaxBits / 64, path << ": " << w << " words per row is too many");
    const int b = bits == 0 ? static_cast<int>(64 * w) : bits;
    GPB_EXPECTS(fingerprint_words(b, kind) == w,
                path << ": " << w << " words per row do not hold " << b << " bits");
    std::vector<std::uint64_t> words(static_cast<std::size_t>(rows * w));
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < w; ++j) {
        const std::int64_t at = h.fortran_order ? j * rows + i : i * w + j;
        std::memcpy(&words[static_cast<std::size_t>(i * w + j)],
                    bytes.data() + h.data_offset + static_cast<std::size_t>(at) * 8, 8);
      }
    }
    return from_words(std::move(words), rows, b, kind);
  }
  return dense_npy(bytes, h, kind, bits, path);
}

Fingerprints Fingerprints::random(long long count, int bits, double density, std::uint64_t seed) {
  check_shape(count, bits, "fingerprints.random");
  GPB_EXPECTS(density >= 0 && density <= 1,
              "fingerprints.random: density must be in [0, 1], got " << density);
  const int w = fingerprint_words(bits, FingerprintKind::Bits);
  std::vector<std::uint64_t> words(static_cast<std::size_t>(count) * w, 0);
  const double log_q = std::log1p(-std::min(density, 1.0 - 1e-16));
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < count; ++i) {
    std::uint64_t* row = words.data() + static_cast<std::size_t>(i) * w;
    Rng rng(seed, static_cast<std::uint32_t>(i), stream_of(StreamId::Objective));
    if (density <= 0) continue;
    // Geometric gaps between set positions: O(set bits) draws per row.
    for (double b = -1;;) {
      b += 1.0 + (density >= 1 ? 0.0 : std::floor(std::log(rng.uniform()) / log_q));
      if (b >= bits) break;
      put(row, static_cast<int>(b), 1, FingerprintKind::Bits);
    }
  }
  return from_words(std::move(words), count, bits, FingerprintKind::Bits);
}

std::vector<int> Fingerprints::dense(long long j) const {
  GPB_EXPECTS(j >= 0 && j < n_, "fingerprints: row " << j << " out of range [0, " << n_ << ")");
  std::vector<int> out(static_cast<std::size_t>(bits_));
  const std::uint64_t* r = row(j);
  for (int b = 0; b < bits_; ++b) {
    out[static_cast<std::size_t>(b)] = kind_ == FingerprintKind::Bits
                                           ? static_cast<int>((r[b / 64] >> (b % 64)) & 1u)
                                           : static_cast<int>((r[b / 8] >> (8 * (b % 8))) & 0xffu);
  }
  return out;
}

Fingerprints Fingerprints::rows(long long begin, long long end) const {
  GPB_EXPECTS(
      begin >= 0 && begin < end && end <= n_,
      "fingerprints: rows [" << begin << ", " << end << ") are empty or out of [0, " << n_ << ")");
  std::vector<std::uint64_t> w(row(begin), row(begin) + (end - begin) * words_per_row_);
  return from_words(std::move(w), end - begin, bits_, kind_);
}

Fingerprints Fingerprints::select(const std::vector<long long>& index) const {
  GPB_EXPECTS(!index.empty(), "fingerprints.select: no rows selected");
  std::vector<std::uint64_t> w;
  w.reserve(index.size() * static_cast<std::size_t>(words_per_row_));
  for (std::size_t i = 0; i < index.size(); ++i) {
    const long long j = index[i];
    GPB_EXPECTS(j >= 0 && j < n_, "fingerprints.select: index["
                                      << i << "] = " << j << " is out of range [0, " << n_ << ")");
    w.insert(w.end(), row(j), row(j) + words_per_row_);
  }
  return from_words(std::move(w), static_cast<long long>(index.size()), bits_, kind_);
}

double tanimoto(const std::uint64_t* a, const std::uint64_t* b, int words) {
  long long both = 0, either = 0;
  for (int i = 0; i < words; ++i) {
    both += detail::popcount64(a[i] & b[i]);
    either += detail::popcount64(a[i] | b[i]);
  }
  return detail::similarity(1.0, both, either);
}

double minmax(const std::uint64_t* a, const std::uint64_t* b, int words) {
  long long lo = 0, hi = 0;
  for (int i = 0; i < words; ++i) detail::byte_min_max(a[i], b[i], lo, hi);
  return detail::similarity(1.0, lo, hi);
}

}  // namespace gpb
