/// @file sobol.hpp
/// Scrambled Sobol points in [0, 1)^d (internal; Domain::sobol maps them to a box).
#pragma once

#include <Eigen/Core>

#include <cstdint>

namespace gpb::detail {

/// Largest dimension: the primitive polynomials of degree ≤ 13 give 1110 dimensions besides the
/// first (van der Corput).
constexpr int kSobolMaxDim = 1111;

/// The first `count` points (columns of the d×count result) of a d-dimensional Sobol sequence in
/// 32-bit digits, scrambled by a random linear matrix scramble and a digital shift keyed by
/// `seed`. Axis 0 uses the identity direction numbers; axis j ≥ 1 the j-th primitive polynomial
/// mod 2 (by degree, then value) with fixed odd initial direction numbers m_k < 2^k. Each
/// coordinate is (y + ½)·2⁻³², so it lies strictly inside (0, 1). O(count·d·32).
/// Requires 1 ≤ d ≤ kSobolMaxDim and count ≥ 0 (checked by the caller).
Eigen::MatrixXd sobol_points(int d, int count, std::uint64_t seed);

}  // namespace gpb::detail
