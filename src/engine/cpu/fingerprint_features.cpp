// MinHash random features of the Tanimoto and MinMax kernels (fingerprint_features.hpp).
#include "gpbandit/engine/fingerprint_features.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GPB_MINHASH_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GPB_MINHASH_CLONES
#endif

namespace gpb {

namespace {

/// Philox stream of the hash table (one draw per table entry).
constexpr std::uint32_t kTableStream = 0x4d48;  // "MH"
/// Philox stream of the hash values of a count's second and later copies (counts fingerprints).
constexpr std::uint32_t kCopyStream = 0x4d43;  // "MC"
/// Candidates hashed per chunk in apply().
constexpr long long kChunk = 256;

/// A random sign (0 or 1) of hash value h under feature i: an integer mix of both.
inline std::uint32_t sign_bit(std::uint32_t h, std::uint32_t i) {
  std::uint32_t x = h * 0x9E3779B1u ^ (i * 0x85EBCA77u + 0x27d4eb2fu);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  x *= 0x297A2D39u;
  x ^= x >> 15;
  return x & 1u;
}

/// h[i] = min(h[i], row[i]) for i < m (vectorised in the AVX2 clone).
GPB_MINHASH_CLONES void min_into(std::uint32_t* __restrict h, const std::uint32_t* __restrict row,
                                 int m) {
  for (int i = 0; i < m; ++i) h[i] = std::min(h[i], row[i]);
}

}  // namespace

TanimotoFeatures::TanimotoFeatures(int bits, int features, std::uint64_t seed)
    : bits_(bits), m_(features), seed_(seed) {
  GPB_EXPECTS(bits >= 1, "tanimoto_features: bits must be >= 1, got " << bits);
  GPB_EXPECTS(features >= 1, "tanimoto_features: features must be >= 1, got " << features);
  table_.resize(static_cast<std::size_t>(bits) * static_cast<std::size_t>(features));
  for (std::size_t e = 0; e < table_.size(); e += 2) {  // one Philox draw fills two entries
    const std::uint64_t r = detail::philox_u64(seed, 0, kTableStream, e / 2);
    table_[e] = static_cast<std::uint32_t>(r);
    if (e + 1 < table_.size()) table_[e + 1] = static_cast<std::uint32_t>(r >> 32);
  }
}

void TanimotoFeatures::check(const Domain& domain) const {
  GPB_EXPECTS(domain.is_fingerprint(), "tanimoto_features: the domain is not of fingerprints");
  GPB_EXPECTS(domain.fingerprint_bits() == bits_, "tanimoto_features: the fingerprints have "
                                                      << domain.fingerprint_bits()
                                                      << " bits, the features " << bits_);
}

void TanimotoFeatures::copy_hashes(int b, int copy, std::uint32_t* row) const {
  // Copy `copy` (≥ 2) of position b: m fresh Philox values, two per draw, counter
  // (copy − 2)·⌈m/2⌉ + i/2 under run b: independent of the table and of every other copy.
  const std::uint64_t per_copy = (static_cast<std::uint64_t>(m_) + 1) / 2;
  const std::uint64_t base = static_cast<std::uint64_t>(copy - 2) * per_copy;
  for (int i = 0; i < m_; i += 2) {
    const std::uint64_t r = detail::philox_u64(seed_, static_cast<std::uint32_t>(b), kCopyStream,
                                               base + static_cast<std::uint64_t>(i / 2));
    row[i] = static_cast<std::uint32_t>(r);
    if (i + 1 < m_) row[i + 1] = static_cast<std::uint32_t>(r >> 32);
  }
}

void TanimotoFeatures::hash_rows(const double* words, long long count, int w, bool counts,
                                 double* out, long long ldo) const {
  std::vector<std::uint32_t> h(static_cast<std::size_t>(m_)), copy(counts ? m_ : 0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(m_));
  for (long long r = 0; r < count; ++r) {
    std::fill(h.begin(), h.end(), 0xffffffffu);
    for (int k = 0; k < w; ++k) {
      std::uint64_t word;
      std::memcpy(&word, words + r * w + k, sizeof word);
      if (!counts) {
        while (word != 0) {
          const int b = 64 * k + __builtin_ctzll(word);
          word &= word - 1;
          min_into(h.data(), table_.data() + static_cast<std::size_t>(b) * m_, m_);
        }
        continue;
      }
      // Counts: position b with count c is the c elements (b, 1..c) of a multiset, so that
      // |x ∩ y| / |x ∪ y| = Σ min / Σ max: copy 1 hashes as the bit b does, copies 2..c by
      // copy_hashes.
      for (int j = 0; j < 8 && word != 0; ++j, word >>= 8) {
        const int c = static_cast<int>(word & 0xffu), b = 8 * k + j;
        if (c == 0) continue;
        min_into(h.data(), table_.data() + static_cast<std::size_t>(b) * m_, m_);
        for (int e = 2; e <= c; ++e) {
          copy_hashes(b, e, copy.data());
          min_into(h.data(), copy.data(), m_);
        }
      }
    }
    for (int i = 0; i < m_; ++i) {
      out[r + i * ldo] =
          sign_bit(h[static_cast<std::size_t>(i)], static_cast<std::uint32_t>(i)) ? scale : -scale;
    }
  }
}

Eigen::MatrixXd TanimotoFeatures::features(const Domain& domain, long long begin,
                                           long long end) const {
  check(domain);
  GPB_EXPECTS(begin >= domain.slice_begin() && begin < end && end <= domain.slice_end(),
              "tanimoto_features: candidates [" << begin << ", " << end << ") are not held");
  const int w = domain.dim();
  Eigen::MatrixXd out(end - begin, m_);
  hash_rows(domain.points().data() + (begin - domain.slice_begin()) * w, end - begin, w,
            domain.fingerprint_kind() == FingerprintKind::Counts, out.data(), end - begin);
  return out;
}

Eigen::MatrixXd TanimotoFeatures::apply(const Domain& domain,
                                        const Eigen::Ref<const Eigen::MatrixXd>& W,
                                        int threads) const {
  check(domain);
  GPB_EXPECTS(W.rows() == m_,
              "tanimoto_features.apply: W has " << W.rows() << " rows, expected " << m_);
  const long long n = domain.points().cols();
  const int w = domain.dim();
  const bool counts = domain.fingerprint_kind() == FingerprintKind::Counts;
  Eigen::MatrixXd out(n, W.cols());
  const long long chunks = (n + kChunk - 1) / kChunk;
  const int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel num_threads(static_cast <int>(std::min <long long>(nt, chunks)))
  {
    Eigen::MatrixXd phi(kChunk, m_);
#pragma omp for schedule(dynamic)
    for (long long c = 0; c < chunks; ++c) {
      const long long j0 = c * kChunk, len = std::min(kChunk, n - j0);
      hash_rows(domain.points().data() + j0 * w, len, w, counts, phi.data(), kChunk);
      out.middleRows(j0, len).noalias() = phi.topRows(len) * W;
    }
  }
  return out;
}

}  // namespace gpb
