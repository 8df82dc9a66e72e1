// Domain: grids (order, endpoints, validation), point sets, CSV, index sets.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gpbandit/engine/domain.hpp"
#include "gpbandit/error.hpp"
#include "test_support.hpp"

namespace {

std::string grid_error(const std::vector<double>& lo, const std::vector<double>& hi,
                       const std::vector<int>& counts) {
  try {
    gpb::Domain::grid(lo, hi, counts);
  } catch (const gpb::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(Domain, GridOrderAxisZeroFastest) {
  const gpb::Domain d = gpb::Domain::grid({0.0, 10.0}, {1.0, 20.0}, {3, 2});
  ASSERT_EQ(d.size(), 6);
  ASSERT_EQ(d.dim(), 2);
  const double expected[6][2] = {{0, 10}, {0.5, 10}, {1, 10}, {0, 20}, {0.5, 20}, {1, 20}};
  for (int j = 0; j < 6; ++j) {
    EXPECT_EQ(d.point(j)[0], expected[j][0]) << j;
    EXPECT_EQ(d.point(j)[1], expected[j][1]) << j;
    EXPECT_EQ(d.points()(0, j), expected[j][0]);
  }
  EXPECT_EQ(d.lower()(0), 0.0);
  EXPECT_EQ(d.upper()(1), 20.0);
}

TEST(Domain, GridSpecSyntheticDomain) {
  // specs/ldp-bo.md §6.1: {0.01, 0.02, ..., 1.00}.
  const gpb::Domain d = gpb::Domain::grid({0.01}, {1.0}, {100});
  ASSERT_EQ(d.size(), 100);
  for (int j = 0; j < 100; ++j) EXPECT_NEAR(d.point(j)[0], 0.01 * (j + 1), 1e-15);
  EXPECT_EQ(d.point(0)[0], 0.01);
  EXPECT_EQ(d.point(99)[0], 1.0);
}

TEST(Domain, GridCountOneIsCentre) {
  const gpb::Domain d = gpb::Domain::grid({-1.0, 2.0}, {3.0, 4.0}, {1, 3});
  ASSERT_EQ(d.size(), 3);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(d.point(j)[0], 1.0);
  EXPECT_EQ(d.point(2)[1], 4.0);
  // The box is the one given, not the bounding box of the points.
  EXPECT_EQ(d.lower()(0), -1.0);
  EXPECT_EQ(d.upper()(0), 3.0);
  // A degenerate axis lower == upper is allowed.
  EXPECT_EQ(gpb::Domain::grid({2.0}, {2.0}, {4}).point(3)[0], 2.0);
}

TEST(Domain, GridValidationNamesField) {
  EXPECT_EQ(grid_error({0, 0}, {1, 1}, {2, 0}), "domain.counts[1] must be >= 1, got 0");
  EXPECT_NE(grid_error({0, 0}, {1, 1}, {-3, 2}).find("domain.counts[0] must be >= 1, got -3"),
            std::string::npos);
  EXPECT_NE(grid_error({0, 2}, {1, 1}, {2, 2})
                .find("domain.lower[1] = 2 must be <= "
                      "domain.upper[1] = 1"),
            std::string::npos);
  EXPECT_NE(grid_error({0}, {1, 1}, {2, 2}).find("same length"), std::string::npos);
  EXPECT_NE(grid_error({}, {}, {}).find("domain.counts must not be empty"), std::string::npos);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NE(grid_error({nan}, {1}, {2}).find("domain.lower[0] must be finite"), std::string::npos);
  EXPECT_NE(grid_error({0}, {inf}, {2}).find("domain.upper[0] must be finite"), std::string::npos);
  EXPECT_NE(grid_error({0, 0, 0}, {1, 1, 1}, {2000, 2000, 2000}).find("more than 2147483647"),
            std::string::npos);
}

TEST(Domain, FromRowsAndBoundingBox) {
  Eigen::MatrixXd rows(3, 2);
  rows << 1, 5, -2, 6, 0.5, 4;
  const gpb::Domain d = gpb::Domain::from_rows(rows);
  ASSERT_EQ(d.size(), 3);
  ASSERT_EQ(d.dim(), 2);
  EXPECT_EQ(d.point(1)[0], -2.0);
  EXPECT_EQ(d.point(1)[1], 6.0);
  EXPECT_EQ(d.lower()(0), -2.0);
  EXPECT_EQ(d.upper()(0), 1.0);
  EXPECT_EQ(d.lower()(1), 4.0);
  EXPECT_EQ(d.upper()(1), 6.0);
}

TEST(Domain, FromRowsRejectsEmptyAndNonFinite) {
  EXPECT_THROW(gpb::Domain::from_rows(Eigen::MatrixXd(0, 2)), gpb::InvalidArgument);
  EXPECT_THROW(gpb::Domain::from_rows(Eigen::MatrixXd(2, 0)), gpb::InvalidArgument);
  Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(2, 2);
  rows(1, 0) = std::numeric_limits<double>::infinity();
  try {
    gpb::Domain::from_rows(rows);
    FAIL() << "expected InvalidArgument";
  } catch (const gpb::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("point 1, coordinate 0 is not finite"), std::string::npos)
        << e.what();
  }
}

TEST(Domain, FromPointsTakesTheMatrixOverAndMatchesFromRows) {
  Eigen::MatrixXd pts(2, 3);
  pts << 0, 2, 4, 1, 3, 5;  // d = 2, N = 3: candidate j = column j
  const double* buffer = pts.data();
  const gpb::Domain d = gpb::Domain::from_points(std::move(pts));
  EXPECT_EQ(d.points().data(), buffer);  // moved in: the domain owns the caller's buffer
  const gpb::Domain r = gpb::Domain::from_rows(d.points().transpose());
  EXPECT_EQ(r.points(), d.points());
  EXPECT_EQ(d.lower(), r.lower());
  Eigen::MatrixXd bad = Eigen::MatrixXd::Zero(2, 3);
  bad(1, 2) = std::numeric_limits<double>::quiet_NaN();
  try {
    gpb::Domain::from_points(bad);
    FAIL() << "expected InvalidArgument";
  } catch (const gpb::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("point 2, coordinate 1 is not finite"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(gpb::Domain::from_points(Eigen::MatrixXd(2, 0)), gpb::InvalidArgument);
}

TEST(Domain, FromCsv) {
  gpb::test::TempDir dir;
  const std::string path = dir.file("pts.csv");
  gpb::test::write_file(path, "x,y\n0,1\n2,3\n4,5\n");
  const gpb::Domain d = gpb::Domain::from_csv(path);
  ASSERT_EQ(d.size(), 3);
  ASSERT_EQ(d.dim(), 2);
  EXPECT_EQ(d.point(2)[1], 5.0);
  gpb::test::write_file(path, "x,y\n0,1\n2,nan\n");
  try {
    gpb::Domain::from_csv(path);
    FAIL() << "expected InvalidArgument";
  } catch (const gpb::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpb::Domain::from_csv(dir.file("missing.csv")), gpb::IoError);
}

TEST(Domain, Indices) {
  const gpb::Domain d = gpb::Domain::indices(4);
  ASSERT_EQ(d.size(), 4);
  ASSERT_EQ(d.dim(), 1);
  for (int j = 0; j < 4; ++j) EXPECT_EQ(d.point(j)[0], j);
  EXPECT_EQ(d.lower()(0), 0.0);
  EXPECT_EQ(d.upper()(0), 3.0);
  EXPECT_THROW(gpb::Domain::indices(0), gpb::InvalidArgument);
}

}  // namespace

namespace {

TEST(DomainSlice, GridSliceEqualsTheGridsColumnsBitForBit) {
  const std::vector<double> lo{-1.0, 0.0, 2.0}, hi{1.0, 3.0, 2.5};
  const std::vector<int> counts{7, 5, 3};
  const gpb::Domain whole = gpb::Domain::grid(lo, hi, counts);
  const gpb::Domain s = gpb::Domain::grid_slice(lo, hi, counts, 17, 61);
  EXPECT_EQ(s.size(), whole.size());
  EXPECT_TRUE(s.is_slice());
  EXPECT_FALSE(whole.is_slice());
  EXPECT_EQ(s.slice_begin(), 17);
  EXPECT_EQ(s.slice_end(), 61);
  ASSERT_EQ(s.points().cols(), 44);
  for (int j = 17; j < 61; ++j) {
    for (int i = 0; i < 3; ++i) EXPECT_EQ(s.point(j)[i], whole.point(j)[i]) << j;
  }
  EXPECT_EQ(s.lower()(1), 0.0);
  EXPECT_EQ(s.upper()(2), 2.5);
}

TEST(DomainSlice, SliceOfASliceAndFromSlice) {
  const gpb::Domain whole = gpb::Domain::grid({0.0}, {1.0}, {11});
  const gpb::Domain a = whole.slice(2, 9);
  const gpb::Domain b = a.slice(4, 6);
  EXPECT_EQ(b.size(), 11);
  EXPECT_EQ(b.slice_begin(), 4);
  EXPECT_EQ(b.point(5)[0], whole.point(5)[0]);
  EXPECT_THROW(a.slice(1, 4), gpb::InvalidArgument);  // not held
  EXPECT_THROW(a.slice(5, 5), gpb::InvalidArgument);  // empty
  const gpb::Domain c = gpb::Domain::from_slice(Eigen::MatrixXd::Constant(2, 3, 0.5), 7, 10);
  EXPECT_EQ(c.size(), 10);
  EXPECT_EQ(c.slice_end(), 10);
  EXPECT_THROW(gpb::Domain::from_slice(Eigen::MatrixXd::Constant(2, 3, 0.5), 8, 10),
               gpb::InvalidArgument);
  EXPECT_THROW(gpb::Domain::grid_slice({0.0}, {1.0}, {5}, 3, 6), gpb::InvalidArgument);
}

}  // namespace
