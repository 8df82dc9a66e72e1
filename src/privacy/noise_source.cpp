// Privacy noise sources: ChaCha20 keyed from getrandom(2) (secure) and seeded Philox (simulation).
#include "gpbandit/privacy/noise_source.hpp"

#include "gpbandit/error.hpp"

namespace gpb::privacy {

double NoiseSource::uniform() { throw Error("NoiseSource::uniform: not implemented yet"); }

std::unique_ptr<NoiseSource> make_secure_source() {
  throw Error("make_secure_source: not implemented yet");
}

std::unique_ptr<NoiseSource> make_seeded_source(std::uint64_t, std::uint32_t, std::uint32_t) {
  throw Error("make_seeded_source: not implemented yet");
}

}  // namespace gpb::privacy
