// Scrambled Sobol domains (net properties, seeds, the box) and .npy / .npz input and output
// (hand-made bytes, and files written or read by numpy when python3 with numpy is installed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "gpbandit/engine/domain.hpp"
#include "gpbandit/error.hpp"
#include "io/npy.hpp"
#include "test_support.hpp"

namespace {

using gpb::Domain;

using gpb::test::contains;
const auto& error_of = gpb::test::invalid_argument_of;

/// Whether the n = 2^m points of columns (a, b) form a (0, m, 2)-net in base 2: every elementary
/// box of area 2^−m (2^k × 2^(m−k) cells) holds exactly one point.
bool is_zero_net(const Eigen::MatrixXd& p, int a, int b, int m) {
  for (int k = 0; k <= m; ++k) {
    std::set<std::pair<long, long>> cells;
    for (Eigen::Index j = 0; j < p.cols(); ++j) {
      cells.insert({static_cast<long>(std::floor(p(a, j) * (1L << k))),
                    static_cast<long>(std::floor(p(b, j) * (1L << (m - k))))});
    }
    if (static_cast<long>(cells.size()) != (1L << m)) return false;
  }
  return true;
}

TEST(SobolDomain, EveryAxisIsStratifiedAndTheFirstTwoFormANet) {
  for (std::uint64_t seed : {0u, 1u, 12345u}) {
    const Domain d =
        Domain::sobol(std::vector<double>(8, 0.0), std::vector<double>(8, 1.0), 1024, seed);
    ASSERT_EQ(d.size(), 1024);
    ASSERT_EQ(d.dim(), 8);
    for (int axis = 0; axis < 8; ++axis) {  // one point in each of the 1024 strata of every axis
      std::set<long> strata;
      for (int j = 0; j < 1024; ++j) {
        const double x = d.points()(axis, j);
        EXPECT_GT(x, 0.0);
        EXPECT_LT(x, 1.0);
        strata.insert(static_cast<long>(std::floor(x * 1024)));
      }
      EXPECT_EQ(strata.size(), 1024u) << "axis " << axis << " seed " << seed;
    }
    EXPECT_TRUE(is_zero_net(d.points(), 0, 1, 10)) << "seed " << seed;
    // Any power-of-two prefix is a net too.
    EXPECT_TRUE(is_zero_net(d.points().leftCols(64), 0, 1, 6)) << "seed " << seed;
  }
}

TEST(SobolDomain, SeedsBoxAndPrefixes) {
  const Domain a = Domain::sobol({-1, 10}, {1, 30}, 100, 7);
  const Domain b = Domain::sobol({-1, 10}, {1, 30}, 100, 7);
  const Domain c = Domain::sobol({-1, 10}, {1, 30}, 100, 8);
  EXPECT_EQ(a.points(), b.points());
  EXPECT_NE(a.points(), c.points());
  EXPECT_GE(a.points().row(0).minCoeff(), -1.0);
  EXPECT_LE(a.points().row(0).maxCoeff(), 1.0);
  EXPECT_GE(a.points().row(1).minCoeff(), 10.0);
  EXPECT_LE(a.points().row(1).maxCoeff(), 30.0);
  EXPECT_EQ(a.lower(), Eigen::Vector2d(-1, 10));
  // The first coordinates of a higher-dimensional set are the lower-dimensional set; more points
  // extend the sequence.
  const Domain wide = Domain::sobol({-1, 10, 0}, {1, 30, 1}, 200, 7);
  EXPECT_EQ(wide.points().topLeftCorner(2, 100), a.points());
  // The largest dimension (1111: every primitive polynomial of degree <= 13) works.
  EXPECT_EQ(Domain::sobol(std::vector<double>(1111, 0.0), std::vector<double>(1111, 1.0), 4).dim(),
            1111);
}

TEST(SobolDomain, BadArguments) {
  EXPECT_TRUE(contains(error_of([] { Domain::sobol({0}, {1}, 0); }), "domain.count"));
  EXPECT_TRUE(contains(error_of([] { Domain::sobol({0, 2}, {1, 1}, 5); }), "domain.lower[1]"));
  EXPECT_TRUE(contains(error_of([] { Domain::sobol({0}, {1, 1}, 5); }), "same length"));
  EXPECT_TRUE(contains(error_of([] {
                         Domain::sobol(std::vector<double>(1112, 0.0),
                                       std::vector<double>(1112, 1.0), 4);
                       }),
                       "at most 1111"));
}

TEST(Npy, ReadsWhatItWritesAndHandMadeVariants) {
  gpb::test::TempDir dir;
  Eigen::MatrixXd m(3, 2);
  m << 1.5, -2, 3, 4.25, 1e-300, 6;
  gpb::test::write_file(dir.file("m.npy"), gpb::detail::npy_bytes(m));
  EXPECT_EQ(Domain::from_npy(dir.file("m.npy")).points(), m.transpose());
  // Fortran order, int32, 1-d.
  const auto header = [](const std::string& dict) {
    std::string h = "\x93NUMPY\x01";
    h.push_back('\0');
    h.push_back(static_cast<char>(dict.size()));
    h.push_back('\0');
    return h + dict;
  };
  std::string f = header("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }\n");
  for (std::int32_t v : {1, 4, 2, 5, 3, 6}) f.append(reinterpret_cast<const char*>(&v), 4);
  gpb::test::write_file(dir.file("f.npy"), f);
  Eigen::MatrixXd want(3, 2);
  want << 1, 4, 2, 5, 3, 6;
  EXPECT_EQ(Domain::from_npy(dir.file("f.npy")).points(), want);
  std::string one = header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n");
  for (float v : {0.5f, 0.25f}) one.append(reinterpret_cast<const char*>(&v), 4);
  gpb::test::write_file(dir.file("one.npy"), one);
  EXPECT_EQ(Domain::from_npy(dir.file("one.npy")).points(), Eigen::RowVector2d(0.5, 0.25));
  // Errors name the file.
  std::string be =
      header("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }\n") + std::string(8, '\0');
  gpb::test::write_file(dir.file("be.npy"), be);
  EXPECT_TRUE(contains(error_of([&] { Domain::from_npy(dir.file("be.npy")); }), "be.npy"));
  EXPECT_TRUE(contains(error_of([&] { Domain::from_npy(dir.file("be.npy")); }), "dtype '>f8'"));
  gpb::test::write_file(dir.file("short.npy"), gpb::detail::npy_bytes(m).substr(0, 140));
  EXPECT_TRUE(contains(error_of([&] { Domain::from_npy(dir.file("short.npy")); }), "truncated"));
  Eigen::MatrixXd nan = m;
  nan(2, 1) = NAN;
  gpb::test::write_file(dir.file("nan.npy"), gpb::detail::npy_bytes(nan));
  EXPECT_TRUE(contains(error_of([&] { Domain::from_npy(dir.file("nan.npy")); }),
                       "row 2, column 1 is not finite"));
  gpb::test::write_file(dir.file("x.npy"), "hello");
  EXPECT_TRUE(contains(error_of([&] { Domain::from_npy(dir.file("x.npy")); }), "not a .npy"));
}

TEST(Npy, RowsAreReadWithoutTheRest) {
  // read_npy_points: any range of rows as d × m columns, in C and Fortran order, and the checks.
  gpb::test::TempDir dir;
  Eigen::MatrixXd m(5, 3);
  for (Eigen::Index j = 0; j < m.size(); ++j) m.data()[j] = 0.5 * static_cast<double>(j) - 3;
  gpb::test::write_file(dir.file("c.npy"), gpb::detail::npy_bytes(m));
  std::string f = gpb::detail::npy_bytes(m);  // the same values as a Fortran-order header says
  const std::size_t start = f.size() - 8 * 15;
  f.replace(f.find("False"), 5, "True ");
  for (Eigen::Index j = 0; j < m.size(); ++j) {  // column-major: Eigen's own order
    std::memcpy(&f[start + 8 * static_cast<std::size_t>(j)], m.data() + j, 8);
  }
  gpb::test::write_file(dir.file("f.npy"), f);
  for (const char* name : {"c.npy", "f.npy"}) {
    EXPECT_EQ(gpb::detail::npy_points_shape(dir.file(name)),
              std::make_pair(std::int64_t{5}, std::int64_t{3}));
    EXPECT_EQ(gpb::detail::read_npy_points(dir.file(name), 0, 5), m.transpose()) << name;
    EXPECT_EQ(gpb::detail::read_npy_points(dir.file(name), 1, 3), m.middleRows(1, 2).transpose())
        << name;
    EXPECT_EQ(gpb::detail::read_npy_points(dir.file(name), 4, 5), m.bottomRows(1).transpose());
    EXPECT_TRUE(contains(error_of([&] { gpb::detail::read_npy_points(dir.file(name), 3, 6); }),
                         "rows [3, 6) are empty or not within [0, 5)"));
    EXPECT_TRUE(contains(error_of([&] { gpb::detail::read_npy_points(dir.file(name), 2, 2); }),
                         "are empty"));
  }
  EXPECT_THROW(gpb::detail::npy_points_shape(dir.path()), gpb::IoError);  // a directory
}

TEST(Npy, ZipArchivesRoundTrip) {
  const std::string zip =
      gpb::detail::zip_stored({{"a.npy", "xyz"}, {"b.npy", std::string(1000, 'q')}});
  const auto members = gpb::detail::unzip_stored(zip, "t.npz");
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].first, "a.npy");
  EXPECT_EQ(members[1].second, std::string(1000, 'q'));
  std::string bad = zip;
  bad[35] ^= 1;  // member a's data ("xyz" starts after the 30-byte header and the name)
  EXPECT_TRUE(contains(error_of([&] { gpb::detail::unzip_stored(bad, "t.npz"); }), "CRC"));
}

TEST(Npy, NumpyReadsAndWritesTheSameFiles) {
  if (gpb::test::run_command("python3 -c 'import numpy' 2>/dev/null").exit_code != 0) {
    GTEST_SKIP() << "python3 with numpy is not installed";
  }
  gpb::test::TempDir dir;
  Eigen::MatrixXd m(2, 3);
  m << 1, 2, 3, 4, 5, 6.5;
  gpb::test::write_file(dir.file("ours.npz"),
                        gpb::detail::zip_stored({{"m.npy", gpb::detail::npy_bytes(m)}}));
  const auto r = gpb::test::run_command(
      "cd '" + dir.path() +
      "' && python3 -c \"import numpy as np; a = np.load('ours.npz')['m']; "
      "assert a.shape == (2, 3) and a[1, 2] == 6.5, a; "
      "np.save('theirs.npy', np.asfortranarray(np.arange(6.0).reshape(3, 2) / 4)); "
      "np.save('ints.npy', np.arange(4, dtype=np.int64)); "
      "np.savez('theirs.npz', z=np.arange(3.0))\"");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Eigen::MatrixXd want(2, 3);
  want << 0, 0.5, 1, 0.25, 0.75, 1.25;
  EXPECT_EQ(Domain::from_npy(dir.file("theirs.npy")).points(), want);
  EXPECT_EQ(Domain::from_npy(dir.file("ints.npy")).points(), Eigen::RowVector4d(0, 1, 2, 3));
  // numpy.savez writes ZIP64 extra fields.
  const auto members =
      gpb::detail::unzip_stored(gpb::test::read_file(dir.file("theirs.npz")), "theirs.npz");
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].first, "z.npy");
  EXPECT_EQ(gpb::detail::parse_npy(members[0].second, "z").values, (std::vector<double>{0, 1, 2}));
}

}  // namespace
