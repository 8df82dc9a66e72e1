// Scrambled Sobol points: primitive polynomials mod 2 found by their multiplicative order, fixed
// initial direction numbers, a linear matrix scramble and digital shift (Matoušek 1998).
#include "engine/detail/sobol.hpp"

#include <cstdint>
#include <vector>

#include "gpbandit/rng.hpp"

namespace gpb::detail {
namespace {

constexpr int kBits = 32;
/// Philox streams: the fixed initial direction numbers (seed 0) and the scramble (user seed).
constexpr std::uint32_t kDirectionStream = 0x50B0u;
constexpr std::uint32_t kScrambleStream = 0x50B1u;

/// a·b mod p over GF(2) (bit i = coefficient of x^i; p of degree s ≤ 13).
std::uint32_t mulmod(std::uint32_t a, std::uint32_t b, std::uint32_t p, int s) {
  std::uint32_t r = 0;
  for (; b != 0; b >>= 1) {
    if (b & 1u) r ^= a;
    a <<= 1;
    if (a & (1u << s)) a ^= p;
  }
  return r;
}

/// x^e mod p over GF(2).
std::uint32_t powmod_x(std::uint64_t e, std::uint32_t p, int s) {
  std::uint32_t result = 1;
  std::uint32_t base = s == 1 ? (2u ^ p) : 2u;  // x mod p (x mod (x + 1) = 1)
  for (; e != 0; e >>= 1) {
    if (e & 1u) result = mulmod(result, base, p, s);
    base = mulmod(base, base, p, s);
  }
  return result;
}

/// Whether p (degree s, constant term 1) is primitive: x has order exactly 2^s − 1 modulo p.
bool primitive(std::uint32_t p, int s) {
  const std::uint64_t order = (std::uint64_t{1} << s) - 1;
  if (powmod_x(order, p, s) != 1) return false;
  std::uint64_t n = order;
  for (std::uint64_t q = 2; q * q <= n; ++q) {
    if (n % q != 0) continue;
    if (powmod_x(order / q, p, s) == 1) return false;
    while (n % q == 0) n /= q;
  }
  return n == 1 || n == order || powmod_x(order / n, p, s) != 1;
}

/// The first `count` primitive polynomials by degree, then value (bit s set, bit 0 set).
std::vector<std::uint32_t> primitive_polynomials(int count) {
  std::vector<std::uint32_t> out;
  for (int s = 1; static_cast<int>(out.size()) < count; ++s) {
    for (std::uint32_t p = (1u << s) | 1u; p < (2u << s); p += 2) {
      if (primitive(p, s)) out.push_back(p);
      if (static_cast<int>(out.size()) == count) break;
    }
  }
  return out;
}

int degree(std::uint32_t p) {
  int s = 0;
  while ((p >> (s + 1)) != 0) ++s;
  return s;
}

/// Direction numbers v_k (k = 0..31, MSB first) of polynomial p with initial odd m_k < 2^(k+1).
std::vector<std::uint32_t> directions(std::uint32_t p, Rng& rng) {
  const int s = degree(p);
  std::vector<std::uint32_t> v(kBits);
  for (int k = 0; k < s && k < kBits; ++k) {
    const std::uint32_t m = static_cast<std::uint32_t>(rng.below(std::uint64_t{1} << k)) * 2 + 1;
    v[static_cast<std::size_t>(k)] = m << (kBits - 1 - k);
  }
  for (int k = s; k < kBits; ++k) {
    std::uint32_t x = v[static_cast<std::size_t>(k - s)];
    x ^= x >> s;
    for (int i = 1; i < s; ++i) {
      if ((p >> (s - i)) & 1u) x ^= v[static_cast<std::size_t>(k - i)];
    }
    v[static_cast<std::size_t>(k)] = x;
  }
  return v;
}

/// Applies a random lower-triangular (MSB-first) binary matrix with unit diagonal to each v_k.
void scramble(std::vector<std::uint32_t>& v, Rng& rng) {
  std::uint32_t column[kBits];
  for (int l = 0; l < kBits; ++l) {  // column l: bit l (MSB-first) set, random bits below it
    const std::uint32_t below = l == kBits - 1 ? 0u : (1u << (kBits - 1 - l)) - 1u;
    column[l] = (1u << (kBits - 1 - l)) | (static_cast<std::uint32_t>(rng.next_u64()) & below);
  }
  for (std::uint32_t& x : v) {
    std::uint32_t y = 0;
    for (int l = 0; l < kBits; ++l) {
      if ((x >> (kBits - 1 - l)) & 1u) y ^= column[l];
    }
    x = y;
  }
}

}  // namespace

Eigen::MatrixXd sobol_points(int d, int count, std::uint64_t seed) {
  const std::vector<std::uint32_t> polys = primitive_polynomials(d - 1);
  Rng fixed(0, 0, kDirectionStream);
  Rng scr(seed, 0, kScrambleStream);
  Eigen::MatrixXd out(d, count);
  for (int j = 0; j < d; ++j) {
    std::vector<std::uint32_t> v(kBits);
    if (j == 0) {
      for (int k = 0; k < kBits; ++k) v[static_cast<std::size_t>(k)] = 1u << (kBits - 1 - k);
    } else {
      v = directions(polys[static_cast<std::size_t>(j - 1)], fixed);
    }
    scramble(v, scr);
    const std::uint32_t shift = static_cast<std::uint32_t>(scr.next_u64());
    for (int i = 0; i < count; ++i) {
      std::uint32_t y = shift;
      for (std::uint32_t b = static_cast<std::uint32_t>(i), k = 0; b != 0; b >>= 1, ++k) {
        if (b & 1u) y ^= v[k];
      }
      out(j, i) = (static_cast<double>(y) + 0.5) * 0x1p-32;
    }
  }
  return out;
}

}  // namespace gpb::detail
