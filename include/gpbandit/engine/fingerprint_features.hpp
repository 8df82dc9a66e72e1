/// @file fingerprint_features.hpp
/// Random features of the Tanimoto kernel (MinHash) and of its count form, MinMax: prior draws
/// over millions of fingerprints without an N×N Cholesky factor, e.g. for pathwise Thompson
/// sampling.
///
/// Feature i of a bit fingerprint x is φ_i(x) = ξ_i(h_i(x))/√m, where h_i(x) is the MinHash of
/// x's set bits under the i-th random hash (the smallest of m·bits independent 32-bit Philox
/// values T[b][i] over the positions b set in x) and ξ_i a random sign of that value. Two
/// fingerprints share the minimum with probability |x ∧ y| / |x ∨ y| (the argmin of independent
/// uniforms over x ∪ y is uniform), and unequal minima have independent signs, so
/// E[φ(x)·φ(y)] = T(x, y) exactly and φ(x)·φ(x) = 1 (Broder 1997; the random-hash Tanimoto
/// features of Tripp, Bacallado, Singh & Hernández-Lobato, NeurIPS 2023). A prior draw is
/// f = √v·Φ w with w ~ N(0, I_m): Var f(x) = v exactly, covariances within O(v/√m) of v·T.
/// Two empty fingerprints share every hash (T = 1, as the kernel's 0/0 convention).
///
/// Count fingerprints (MinMax): a position b with count c stands for the c elements (b, 1), …,
/// (b, c) of a multiset, so that Σ min(xᵢ, yᵢ) / Σ max(xᵢ, yᵢ) is the Jaccard index of the two
/// multisets and the same MinHash argument gives E[φ(x)·φ(y)] = MinMax(x, y) exactly. Element
/// (b, 1) hashes to the table's T[b][i], as the bit b does (a 0/1 count fingerprint has the
/// features of its bit fingerprint); elements (b, e ≥ 2) to Philox values of their own stream.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <vector>

#include "gpbandit/engine/domain.hpp"

namespace gpb {

/// MinHash random features of the Tanimoto kernel (bit fingerprints) and of the MinMax kernel
/// (count fingerprints) for fingerprints of a fixed length.
class TanimotoFeatures {
 public:
  /// `features` (m) hashes over `bits` positions, keyed by `seed` (Philox): the table holds
  /// bits·m 32-bit values (8 MiB for 2048 bits and m = 1024).
  /// @throws InvalidArgument if bits < 1 or features < 1.
  TanimotoFeatures(int bits, int features, std::uint64_t seed);

  /// m, the number of features.
  int size() const { return m_; }
  /// Positions per fingerprint.
  int bits() const { return bits_; }

  /// Φ for the held candidates [begin, end) of a bit-fingerprint domain: (end − begin) × m,
  /// entries ±1/√m. O((end − begin)·(set bits)·m) with the hash minimum vectorised over m; for
  /// counts, O((end − begin)·(Σ counts)·m).
  /// @throws InvalidArgument if the domain is not of fingerprints of bits() positions or the
  /// range is not held.
  Eigen::MatrixXd features(const Domain& domain, long long begin, long long end) const;

  /// Φ(D)·W for every held candidate of the domain (n × b, candidate order) without holding Φ:
  /// chunks of candidates are hashed and multiplied in turn, in parallel over chunks with up to
  /// `threads` OpenMP threads (0 = all). W is m × b. O(n·(set bits·m + m·b)).
  /// @throws InvalidArgument as features(), or if W does not have m rows.
  Eigen::MatrixXd apply(const Domain& domain, const Eigen::Ref<const Eigen::MatrixXd>& W,
                        int threads = 0) const;

 private:
  int bits_ = 0, m_ = 0;
  std::uint64_t seed_ = 0;
  std::vector<std::uint32_t> table_;  // bits × m, row b = the m hash values of position b
  void check(const Domain& domain) const;
  void hash_rows(const double* words, long long count, int w, bool counts, double* out,
                 long long ldo) const;
  /// The m hash values of element (b, copy) of a count fingerprint, copy ≥ 2.
  void copy_hashes(int b, int copy, std::uint32_t* row) const;
};

}  // namespace gpb
