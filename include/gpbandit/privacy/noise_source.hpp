/// @file noise_source.hpp
/// Sources of randomness for privacy noise. Secure by default (OS entropy feeding ChaCha20); a
/// seeded source exists only for reproducible simulation, and says so.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace gpb::privacy {

/// Uniform random bits for privacy mechanisms.
class NoiseSource {
 public:
  /// Destroys the source.
  virtual ~NoiseSource() = default;
  /// 64 uniformly random bits.
  virtual std::uint64_t next_u64() = 0;
  /// True for the cryptographically secure source; false for seeded simulation sources.
  virtual bool secure() const = 0;
  /// e.g. "secure (getrandom + ChaCha20)" or "seeded simulation (Philox, seed 3) — NOT private".
  virtual std::string describe() const = 0;
  /// Uniform on the open interval (0, 1), 53-bit resolution: k/2^53 with k uniform on
  /// {1, …, 2^53 − 1} (k = 0 is redrawn), so u and 1 − u are equally likely and u = ½ is possible.
  double uniform();
};

/// ChaCha20 (RFC 8439 block function) keyed with 256 bits and a 96-bit nonce from getrandom(2),
/// reseeded from getrandom(2) every 2^32 blocks. Never falls back to a weaker source.
/// @throws Error if the OS entropy source fails (at creation or at a reseed).
std::unique_ptr<NoiseSource> make_secure_source();
/// Counter-based Philox stream (seed, run, stream): reproducible, for simulation only.
std::unique_ptr<NoiseSource> make_seeded_source(std::uint64_t seed, std::uint32_t run,
                                                std::uint32_t stream);

}  // namespace gpb::privacy
