// Packed fingerprints, the Tanimoto and MinMax kernels (scalar formula, AVX2 / POPCNT / portable
// block paths, engine ops), PSD-ness, fingerprint domains and their checks. Fixed seeds.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

#include "engine/cpu/fingerprint_block.hpp"
#include "engine/cpu/kernel_eval.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "io/npy.hpp"
#include "test_support.hpp"

namespace {

using gpb::Domain;
using gpb::FingerprintKind;
using gpb::Fingerprints;
using gpb::Kernel;

/// n dense rows of `bits` values: 0/1 with probability `density`, or counts 0..max_count.
std::vector<std::int64_t> dense_rows(long long n, int bits, double density, int max_count,
                                     std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 3);
  std::vector<std::int64_t> v(static_cast<std::size_t>(n) * bits);
  for (auto& x : v) {
    if (rng.uniform() < density)
      x = max_count <= 1 ? 1 : 1 + static_cast<int>(rng.below(max_count));
  }
  return v;
}

/// |a ∧ b| / |a ∨ b| or Σ min / Σ max straight from the dense values (the definition).
double direct(const std::int64_t* a, const std::int64_t* b, int bits) {
  long long lo = 0, hi = 0;
  for (int i = 0; i < bits; ++i) {
    lo += std::min(a[i], b[i]);
    hi += std::max(a[i], b[i]);
  }
  return hi == 0 ? 1.0 : static_cast<double>(lo) / static_cast<double>(hi);
}

Eigen::MatrixXd as_points(const Fingerprints& fp) {
  Eigen::MatrixXd p(fp.words(), fp.size());
  std::memcpy(p.data(), fp.data().data(), fp.data().size() * sizeof(std::uint64_t));
  return p;
}

TEST(Fingerprint, PackingRoundTripsAndChecksValues) {
  const int bits = 131;  // a partial last word in both layouts
  const auto d = dense_rows(7, bits, 0.3, 1, 1);
  const Fingerprints fp = Fingerprints::from_dense(d.data(), 7, bits, FingerprintKind::Bits);
  EXPECT_EQ(fp.words(), 3);
  for (long long j = 0; j < 7; ++j) {
    const std::vector<int> back = fp.dense(j);
    for (int b = 0; b < bits; ++b) EXPECT_EQ(back[b], d[j * bits + b]);
  }
  const auto c = dense_rows(5, bits, 0.5, 300, 2);  // some counts above 255 are clipped
  const Fingerprints fc = Fingerprints::from_dense(c.data(), 5, bits, FingerprintKind::Counts);
  EXPECT_EQ(fc.words(), 17);
  long long clipped = 0;
  for (long long j = 0; j < 5; ++j) {
    const std::vector<int> back = fc.dense(j);
    for (int b = 0; b < bits; ++b) {
      EXPECT_EQ(back[b], std::min<std::int64_t>(c[j * bits + b], 255));
      clipped += c[j * bits + b] > 255;
    }
  }
  EXPECT_GT(clipped, 0);
  EXPECT_EQ(fc.clipped(), clipped);
  std::vector<std::int64_t> bad(d);
  bad[bits + 4] = 2;
  EXPECT_TRUE(gpb::test::contains(gpb::test::invalid_argument_of([&] {
                                    Fingerprints::from_dense(bad.data(), 7, bits,
                                                             FingerprintKind::Bits);
                                  }),
                                  "row 1, position 4 is 2"));
  std::vector<std::uint64_t> words(fp.data());
  words[2] |= std::uint64_t{1} << 63;  // position 191 of row 0: past the 131 bits
  EXPECT_THROW(Fingerprints::from_words(words, 7, bits, FingerprintKind::Bits),
               gpb::InvalidArgument);
}

TEST(Fingerprint, NpyFilesPackedDenseAndCounts) {
  const std::string dir = testing::TempDir();
  const auto d = dense_rows(4, 100, 0.2, 1, 3);
  const Fingerprints fp = Fingerprints::from_dense(d.data(), 4, 100, FingerprintKind::Bits);
  const std::string packed = dir + "/fp_packed.npy";
  gpb::test::write_file(packed, gpb::detail::npy_bytes_u64(fp.data(), 4, fp.words()));
  const Fingerprints back = Fingerprints::from_npy(packed, FingerprintKind::Bits, 100);
  EXPECT_EQ(back.data(), fp.data());
  EXPECT_EQ(back.bits(), 100);
  EXPECT_EQ(Fingerprints::from_npy(packed).bits(), 128);  // bits = 0: 64 per word
  std::vector<std::int64_t> wide(d);
  const std::string dense = dir + "/fp_dense.npy";
  gpb::test::write_file(dense, gpb::detail::npy_bytes_i64(wide));  // 1-d: rejected
  EXPECT_TRUE(gpb::test::contains(
      gpb::test::invalid_argument_of([&] { Fingerprints::from_npy(dense); }), "2-d array"));
}

TEST(Fingerprint, KernelsMatchTheDefinitionOnEveryPath) {
  for (const FingerprintKind kind : {FingerprintKind::Bits, FingerprintKind::Counts}) {
    // 2048 bits (32 words) and 8000 bits (125 words: past one 31-step flush of the AVX2 byte
    // counters), plus an empty fingerprint.
    for (const int bits : {2048, 8000, 70}) {
      const long long n = 23;
      const int max_count = kind == FingerprintKind::Bits ? 1 : 40;
      auto d = dense_rows(n, bits, 0.08, max_count, 5 + bits);
      std::fill(d.begin() + 3 * bits, d.begin() + 4 * bits, 0);  // row 3 empty
      const Fingerprints fp = Fingerprints::from_dense(d.data(), n, bits, kind);
      const Kernel k = kind == FingerprintKind::Bits ? Kernel::tanimoto(1.7) : Kernel::minmax(1.7);
      const gpb::detail::KernelEval f(k);
      const Eigen::MatrixXd pts = as_points(fp);
      for (const auto path : {gpb::detail::PopcountPath::Avx2, gpb::detail::PopcountPath::Popcnt,
                              gpb::detail::PopcountPath::Portable}) {
        Eigen::MatrixXd out(n, n);
        gpb::detail::fingerprint_block(f, pts.data(), n, pts.data(), n, fp.words(), out.data(), n,
                                       {2, 0.0}, path);
        for (long long i = 0; i < n; ++i) {
          for (long long j = 0; j < n; ++j) {
            const double want = 1.7 * direct(d.data() + i * bits, d.data() + j * bits, bits);
            EXPECT_EQ(out(i, j), f(pts.col(i).data(), pts.col(j).data(), fp.words()));
            EXPECT_NEAR(out(i, j), want, 1e-15);
          }
        }
      }
      // The engine op (CPU backend) and the scalar entry points agree with the same values.
      const gpb::Context ctx = gpb::test::make_cpu_context(2);
      const Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, pts, pts);
      for (long long i = 0; i < n; ++i) {
        for (long long j = 0; j < n; ++j) {
          EXPECT_EQ(K(i, j), k(pts.col(i).data(), pts.col(j).data(), fp.words()));
          const double unit = kind == FingerprintKind::Bits
                                  ? gpb::tanimoto(fp.row(i), fp.row(j), fp.words())
                                  : gpb::minmax(fp.row(i), fp.row(j), fp.words());
          EXPECT_EQ(1.7 * unit, K(i, j));
        }
      }
      EXPECT_EQ(K(3, 3), 1.7);  // two empty fingerprints are identical
    }
  }
}

TEST(Fingerprint, KernelMatricesArePositiveSemiDefinite) {
  for (const FingerprintKind kind : {FingerprintKind::Bits, FingerprintKind::Counts}) {
    const long long n = 80;
    const auto d = dense_rows(n, 512, 0.05, kind == FingerprintKind::Bits ? 1 : 9, 11);
    const Fingerprints fp = Fingerprints::from_dense(d.data(), n, 512, kind);
    const Kernel k = kind == FingerprintKind::Bits ? Kernel::tanimoto() : Kernel::minmax();
    const gpb::Context ctx = gpb::test::make_cpu_context(2);
    const Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, as_points(fp), as_points(fp));
    EXPECT_EQ((K - K.transpose()).cwiseAbs().maxCoeff(), 0.0);
    const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(K).eigenvalues();
    EXPECT_GT(ev.minCoeff(), -1e-12) << "smallest eigenvalue of a " << n << "x" << n << " matrix";
    EXPECT_GT(ev.maxCoeff(), 1.0);
  }
}

TEST(Fingerprint, DomainHoldsTheWordsAndChecksItsKernel) {
  const auto d = dense_rows(50, 300, 0.1, 1, 13);
  const Fingerprints fp = Fingerprints::from_dense(d.data(), 50, 300, FingerprintKind::Bits);
  const Domain dom = Domain::fingerprints(fp);
  EXPECT_TRUE(dom.is_fingerprint());
  EXPECT_EQ(dom.size(), 50);
  EXPECT_EQ(dom.dim(), 5);
  EXPECT_EQ(dom.fingerprint_bits(), 300);
  EXPECT_EQ(dom.fingerprints_of(10, 20).data(), fp.rows(10, 20).data());
  const Domain slice = dom.slice(10, 30);
  EXPECT_TRUE(slice.is_fingerprint());
  EXPECT_EQ(slice.fingerprints_of(12, 13).data(), fp.rows(12, 13).data());
  const gpb::Context ctx = gpb::test::make_cpu_context(1);
  const std::string se =
      gpb::test::invalid_argument_of([&] { gpb::FinitePosterior(ctx, Kernel::se(0.5), dom, 1); });
  EXPECT_TRUE(gpb::test::contains(se, "use the tanimoto (bits) or minmax (counts) kernel")) << se;
  const std::string mm =
      gpb::test::invalid_argument_of([&] { gpb::FinitePosterior(ctx, Kernel::minmax(), dom, 1); });
  EXPECT_TRUE(gpb::test::contains(mm, "needs counts fingerprints")) << mm;
  const std::string grid = gpb::test::invalid_argument_of(
      [&] { gpb::FinitePosterior(ctx, Kernel::tanimoto(), Domain::grid({0}, {1}, {5}), 1); });
  EXPECT_TRUE(gpb::test::contains(grid, "needs fingerprint candidates")) << grid;
}

TEST(Fingerprint, RandomPoolsHaveTheirDensity) {
  const Fingerprints fp = Fingerprints::random(2000, 2048, 0.04, 7);
  double set = 0;
  for (const std::uint64_t w : fp.data()) set += __builtin_popcountll(w);
  // 2000·2048 Bernoulli(0.04) bits: mean 163840, sd 280; 6 sd → false failure < 1e-8.
  EXPECT_NEAR(set, 0.04 * 2000 * 2048, 6 * 280.0);
  EXPECT_EQ(Fingerprints::random(2000, 2048, 0.04, 7).data(), fp.data());  // reproducible
}

}  // namespace
