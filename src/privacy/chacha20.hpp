/// @file chacha20.hpp
/// The ChaCha20 block function (RFC 8439 §2.3), internal to the secure noise source; exposed
/// here so the tests can check it against the RFC's test vector.
#pragma once

#include <cstdint>

namespace gpb::detail {

/// One ChaCha20 block (RFC 8439 §2.3): 16 output words from a 256-bit key (8 little-endian
/// words), a 32-bit block counter and a 96-bit nonce (3 little-endian words). The output words
/// are the state after 20 rounds plus the input state; serialised little-endian they are the
/// 64-byte key-stream block. O(1).
void chacha20_block(const std::uint32_t key[8], std::uint32_t counter, const std::uint32_t nonce[3],
                    std::uint32_t out[16]);

}  // namespace gpb::detail
