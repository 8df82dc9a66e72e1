// Privacy noise sources: ChaCha20 keyed from getrandom(2) (secure) and seeded Philox (simulation).
#include "gpbandit/privacy/noise_source.hpp"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "privacy/chacha20.hpp"

namespace gpb::detail {

namespace {

inline std::uint32_t rotl32(std::uint32_t v, int c) {
  return (v << c) | (v >> (32 - c));
}

inline void quarter_round(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c, std::uint32_t& d) {
  a += b;
  d = rotl32(d ^ a, 16);
  c += d;
  b = rotl32(b ^ c, 12);
  a += b;
  d = rotl32(d ^ a, 8);
  c += d;
  b = rotl32(b ^ c, 7);
}

}  // namespace

void chacha20_block(const std::uint32_t key[8], std::uint32_t counter, const std::uint32_t nonce[3],
                    std::uint32_t out[16]) {
  // "expand 32-byte k", then key, counter, nonce (RFC 8439 §2.3).
  std::uint32_t in[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
  for (int i = 0; i < 8; ++i) in[4 + i] = key[i];
  in[12] = counter;
  for (int i = 0; i < 3; ++i) in[13 + i] = nonce[i];
  std::uint32_t x[16];
  for (int i = 0; i < 16; ++i) x[i] = in[i];
  for (int round = 0; round < 10; ++round) {  // 10 double rounds = 20 rounds
    quarter_round(x[0], x[4], x[8], x[12]);   // columns
    quarter_round(x[1], x[5], x[9], x[13]);
    quarter_round(x[2], x[6], x[10], x[14]);
    quarter_round(x[3], x[7], x[11], x[15]);
    quarter_round(x[0], x[5], x[10], x[15]);  // diagonals
    quarter_round(x[1], x[6], x[11], x[12]);
    quarter_round(x[2], x[7], x[8], x[13]);
    quarter_round(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; ++i) out[i] = x[i] + in[i];
}

}  // namespace gpb::detail

namespace gpb::privacy {

namespace {

/// Fills `buf` from the kernel's CSPRNG (getrandom(2), blocking until the pool is initialised).
/// Never falls back to a weaker source. @throws Error on any failure other than EINTR.
void os_entropy(void* buf, std::size_t len) {
  auto* p = static_cast<unsigned char*>(buf);
  std::size_t done = 0;
  while (done < len) {
    const ssize_t got = ::getrandom(p + done, len - done, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw Error(std::string("secure noise source: getrandom(2) failed: ") + std::strerror(err) +
                  " (refusing to fall back to a weaker random source)");
    }
    done += static_cast<std::size_t>(got);
  }
}

/// ChaCha20 key stream keyed by 256 bits of OS entropy with a random 96-bit nonce; the 32-bit
/// block counter runs from 0, and when it wraps (after 2^32 blocks = 256 GiB of output) the key
/// and nonce are drawn afresh from getrandom(2).
class SecureSource final : public NoiseSource {
 public:
  SecureSource() { reseed(); }
  ~SecureSource() override {
    // Best-effort wipe of the key material.
    volatile std::uint32_t* k = key_.data();
    for (std::size_t i = 0; i < key_.size(); ++i) k[i] = 0;
    volatile std::uint32_t* b = buf_.data();
    for (std::size_t i = 0; i < buf_.size(); ++i) b[i] = 0;
  }
  SecureSource(const SecureSource&) = delete;
  SecureSource& operator=(const SecureSource&) = delete;

  std::uint64_t next_u64() override {
    if (pos_ + 2 > buf_.size()) refill();
    const std::uint64_t lo = buf_[pos_], hi = buf_[pos_ + 1];
    pos_ += 2;
    return (hi << 32) | lo;
  }
  bool secure() const override { return true; }
  std::string describe() const override {
    return "secure (getrandom + ChaCha20, reseeded every 2^32 blocks)";
  }

 private:
  std::array<std::uint32_t, 8> key_{};
  std::array<std::uint32_t, 3> nonce_{};
  std::uint32_t counter_ = 0;
  std::array<std::uint32_t, 16> buf_{};
  std::size_t pos_ = 16;  // buffer empty

  void reseed() {
    unsigned char seed[44];
    os_entropy(seed, sizeof seed);
    for (int i = 0; i < 8; ++i) std::memcpy(&key_[i], seed + 4 * i, 4);
    for (int i = 0; i < 3; ++i) std::memcpy(&nonce_[i], seed + 32 + 4 * i, 4);
    volatile unsigned char* s = seed;
    for (std::size_t i = 0; i < sizeof seed; ++i) s[i] = 0;
    counter_ = 0;
  }
  void refill() {
    detail::chacha20_block(key_.data(), counter_, nonce_.data(), buf_.data());
    pos_ = 0;
    if (++counter_ == 0) reseed();  // 2^32 blocks used under this key and nonce
  }
};

/// Philox4x32-10 stream (seed, run, stream) via gpb::Rng: reproducible, not private.
class SeededSource final : public NoiseSource {
 public:
  SeededSource(std::uint64_t seed, std::uint32_t run, std::uint32_t stream)
      : rng_(seed, run, stream), seed_(seed), run_(run), stream_(stream) {}
  std::uint64_t next_u64() override { return rng_.next_u64(); }
  bool secure() const override { return false; }
  std::string describe() const override {
    std::ostringstream os;
    os << "seeded simulation source (Philox, seed " << seed_ << ", run " << run_ << ", stream "
       << stream_ << ") \xE2\x80\x94 NOT private: anyone with the seed can remove the noise";
    return os.str();
  }

 private:
  Rng rng_;
  std::uint64_t seed_;
  std::uint32_t run_, stream_;
};

}  // namespace

double NoiseSource::uniform() {
  // k / 2^53 for k uniform on {1, …, 2^53 − 1}: open interval, 53-bit resolution, and symmetric
  // (u and 1 − u are equally likely and both exact), so u = ½ is a possible value. k = 0 is
  // rejected and redrawn (probability 2^−53 per draw).
  for (;;) {
    const std::uint64_t k = next_u64() >> 11;
    if (k != 0) return static_cast<double>(k) * 0x1p-53;
  }
}

std::unique_ptr<NoiseSource> make_secure_source() {
  return std::make_unique<SecureSource>();
}

std::unique_ptr<NoiseSource> make_seeded_source(std::uint64_t seed, std::uint32_t run,
                                                std::uint32_t stream) {
  return std::make_unique<SeededSource>(seed, run, stream);
}

}  // namespace gpb::privacy
