// read_csv_matrix: formats accepted and every error path (file:line in the message).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::TempDir;
using gpb::test::write_file;

/// Writes `text` to dir/name and returns the path.
std::string make_csv(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  write_file(path, text);
  return path;
}

/// The InvalidArgument message read_csv_matrix(path) throws ("" when it does not throw).
std::string csv_error(const std::string& path, int skip = 0) {
  try {
    gpb::read_csv_matrix(path, nullptr, skip);
  } catch (const gpb::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Csv, ReadsHeaderAndValues) {
  TempDir dir;
  const std::string path = make_csv(dir, "a.csv", "x,y,z\n1,2,3\n4.5,-5e-1,+6\n");
  bool header = false;
  const Eigen::MatrixXd m = gpb::read_csv_matrix(path, &header);
  EXPECT_TRUE(header);
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 3);
  EXPECT_EQ(m(0, 0), 1.0);
  EXPECT_EQ(m(0, 2), 3.0);
  EXPECT_EQ(m(1, 0), 4.5);
  EXPECT_EQ(m(1, 1), -0.5);
  EXPECT_EQ(m(1, 2), 6.0);
}

TEST(Csv, NoHeaderWhenFirstLineIsNumeric) {
  TempDir dir;
  const std::string path = make_csv(dir, "a.csv", "1,2\n3,4\n");
  bool header = true;
  const Eigen::MatrixXd m = gpb::read_csv_matrix(path, &header);
  EXPECT_FALSE(header);
  ASSERT_EQ(m.rows(), 2);
  EXPECT_EQ(m(1, 1), 4.0);
}

TEST(Csv, ToleratesCrlfWhitespaceBomAndTrailingBlankLines) {
  TempDir dir;
  const std::string path =
      make_csv(dir, "a.csv", "\xEF\xBB\xBF a , b \r\n 1 ,\t2\r\n3,  4  \r\n\r\n  \n\n");
  bool header = false;
  const Eigen::MatrixXd m = gpb::read_csv_matrix(path, &header);
  EXPECT_TRUE(header);
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 2);
  EXPECT_EQ(m(0, 1), 2.0);
  EXPECT_EQ(m(1, 0), 3.0);
  EXPECT_EQ(m(1, 1), 4.0);
}

TEST(Csv, NoFinalNewline) {
  TempDir dir;
  const Eigen::MatrixXd m = gpb::read_csv_matrix(make_csv(dir, "a.csv", "1,2\n3,4"));
  ASSERT_EQ(m.rows(), 2);
  EXPECT_EQ(m(1, 1), 4.0);
}

TEST(Csv, SkipColumnsDropsLeadingColumns) {
  TempDir dir;
  const std::string path = make_csv(dir, "prices.csv",
                                    "Date,AAPL,BA\n2016-01-04,105.35,140.5\n2016-01-05,102.71,"
                                    "141.2\n");
  bool header = false;
  const Eigen::MatrixXd m = gpb::read_csv_matrix(path, &header, 1);
  EXPECT_TRUE(header);
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 2);
  EXPECT_EQ(m(0, 0), 105.35);
  EXPECT_EQ(m(1, 1), 141.2);
  // Without skipping, the date column is not a number.
  EXPECT_TRUE(contains(csv_error(path), path + ":2: column 1 is '2016-01-04' (not a number)"));
}

TEST(Csv, RaggedRowsNameFileAndLine) {
  TempDir dir;
  const std::string shorter = make_csv(dir, "s.csv", "a,b,c\n1,2,3\n4,5\n");
  EXPECT_TRUE(contains(csv_error(shorter), shorter + ":3: expected 3 columns, got 2"));
  const std::string longer = make_csv(dir, "l.csv", "1,2\n3,4\n5,6\n7,8,9\n");
  EXPECT_TRUE(contains(csv_error(longer), longer + ":4: expected 2 columns, got 3"));
}

TEST(Csv, NonNumbersNameColumn) {
  TempDir dir;
  const std::string p1 = make_csv(dir, "a.csv", "a,b\n1,2\n3,x4\n");
  EXPECT_TRUE(contains(csv_error(p1), p1 + ":3: column 2 is 'x4' (not a number)"));
  const std::string p2 = make_csv(dir, "b.csv", "1,2\n3,4abc\n");
  EXPECT_TRUE(contains(csv_error(p2), p2 + ":2: column 2 is '4abc' (not a number)"));
  const std::string p3 = make_csv(dir, "c.csv", "a,b\n1,\n");
  EXPECT_TRUE(contains(csv_error(p3), p3 + ":2: column 2 is empty"));
  const std::string p4 = make_csv(dir, "d.csv", "a,b\n1,1e999\n");
  EXPECT_TRUE(contains(csv_error(p4), p4 + ":2: column 2 is '1e999' (out of the range"));
}

TEST(Csv, NanAndInfRejected) {
  TempDir dir;
  const std::string p1 = make_csv(dir, "a.csv", "a,b,c\n1,2,3\n1,2,nan\n");
  EXPECT_TRUE(contains(csv_error(p1), p1 + ":3: column 3 is 'nan' (NaN or Inf not allowed)"));
  // A NaN on the first line is data, not a header.
  const std::string p2 = make_csv(dir, "b.csv", "1,NaN\n2,3\n");
  EXPECT_TRUE(contains(csv_error(p2), p2 + ":1: column 2 is 'NaN' (NaN or Inf not allowed)"));
  const std::string p3 = make_csv(dir, "c.csv", "x\n-inf\n");
  EXPECT_TRUE(contains(csv_error(p3), p3 + ":2: column 1 is '-inf' (NaN or Inf not allowed)"));
  const std::string p4 = make_csv(dir, "d.csv", "x\nInfinity\n");
  EXPECT_TRUE(contains(csv_error(p4), p4 + ":2: column 1 is 'Infinity'"));
}

// missing_as_nan: an empty field, "nan" or "na" (any case) reads as NaN, a blank line between
// data lines as a line of empty fields; a missing value on the first line is data, not a header;
// Inf and other text stay errors, and without the flag the same files are refused.
TEST(Csv, MissingValuesReadAsNanWhenAllowed) {
  TempDir dir;
  const std::string p1 = make_csv(dir, "a.csv", "v,w\n1,NA\n,2\nnan,Nan\n3, na \n");
  const Eigen::MatrixXd m = gpb::read_csv_matrix(p1, nullptr, 0, true);
  ASSERT_EQ(m.rows(), 4);
  ASSERT_EQ(m.cols(), 2);
  EXPECT_EQ(m(0, 0), 1.0);
  EXPECT_TRUE(std::isnan(m(0, 1)) && std::isnan(m(1, 0)) && std::isnan(m(2, 0)) &&
              std::isnan(m(2, 1)) && std::isnan(m(3, 1)));
  EXPECT_EQ(m(1, 1), 2.0);
  EXPECT_EQ(m(3, 0), 3.0);
  EXPECT_TRUE(contains(csv_error(p1), p1 + ":2: column 2 is 'NA' (not a number)"));
  bool header = true;
  const std::string p2 = make_csv(dir, "b.csv", "nan\n0.5\n\n2\n");
  const Eigen::MatrixXd col = gpb::read_csv_matrix(p2, &header, 0, true);
  EXPECT_FALSE(header);
  ASSERT_EQ(col.rows(), 4);
  EXPECT_TRUE(std::isnan(col(0, 0)) && std::isnan(col(2, 0)));
  EXPECT_EQ(col(3, 0), 2.0);
  EXPECT_TRUE(contains(csv_error(p2), p2 + ":1: column 1 is 'nan' (NaN or Inf not allowed)"));
  const auto error_allowing = [](const std::string& path) {
    try {
      gpb::read_csv_matrix(path, nullptr, 0, true);
    } catch (const gpb::InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string p3 = make_csv(dir, "c.csv", "x\n1\ninf\n");
  EXPECT_TRUE(contains(error_allowing(p3), p3 + ":3: column 1 is 'inf' (NaN or Inf not allowed)"));
  const std::string p4 = make_csv(dir, "d.csv", "x\n1\nnah\n");
  EXPECT_TRUE(contains(error_allowing(p4), p4 + ":3: column 1 is 'nah' (not a number)"));
}

TEST(Csv, EmptyAndHeaderOnlyFiles) {
  TempDir dir;
  const std::string p1 = make_csv(dir, "empty.csv", "");
  EXPECT_TRUE(contains(csv_error(p1), p1 + ":1: file is empty"));
  const std::string p2 = make_csv(dir, "blank.csv", "\n \r\n\n");
  EXPECT_TRUE(contains(csv_error(p2), p2 + ":1: file is empty"));
  const std::string p3 = make_csv(dir, "header.csv", "a,b\n");
  EXPECT_TRUE(contains(csv_error(p3), p3 + ":2: no data rows after the header"));
}

TEST(Csv, BlankLineBetweenRowsRejected) {
  TempDir dir;
  const std::string path = make_csv(dir, "a.csv", "a\n1\n\n2\n");
  EXPECT_TRUE(contains(csv_error(path), path + ":3: blank line between data rows"));
}

TEST(Csv, SkipColumnsErrors) {
  TempDir dir;
  const std::string path = make_csv(dir, "a.csv", "Date\n2016-01-04\n");
  EXPECT_TRUE(contains(csv_error(path, 1), path + ":1: has 1 columns, no numeric column left"));
  EXPECT_THROW(gpb::read_csv_matrix(path, nullptr, -1), gpb::InvalidArgument);
}

TEST(Csv, UnreadableFileIsIoErrorNamingPath) {
  const std::string path = "/nonexistent/dir/data.csv";
  try {
    gpb::read_csv_matrix(path);
    FAIL() << "expected IoError";
  } catch (const gpb::IoError& e) {
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
  }
}

TEST(Csv, LargeFileIsFast) {
  TempDir dir;
  std::string text = "a,b,c,d\n";
  const int rows = 200000;
  for (int i = 0; i < rows; ++i) {
    text += std::to_string(i) + ",0.25," + std::to_string(-i) + ".5,1e-3\n";
  }
  const Eigen::MatrixXd m = gpb::read_csv_matrix(make_csv(dir, "big.csv", text));
  ASSERT_EQ(m.rows(), rows);
  EXPECT_EQ(m(rows - 1, 0), rows - 1);
  EXPECT_EQ(m(rows - 1, 2), -(rows - 1) - 0.5);
  EXPECT_EQ(m(7, 3), 1e-3);
}

TEST(Csv, HashLinesAreCommentsAnywhereAndLineNumbersStillCountThem) {
  TempDir dir;
  const std::string path = make_csv(dir, "c.csv",
                                    "# written by a script\n"
                                    "x0,x1\n"
                                    "  # a comment between rows\n"
                                    "1,2\n"
                                    "#3,4\n"
                                    "5,6\n"
                                    "# trailing\n");
  bool header = false;
  const Eigen::MatrixXd m = gpb::read_csv_matrix(path, &header);
  EXPECT_TRUE(header);  // the comment above it is not taken for a header
  ASSERT_EQ(m.rows(), 2);
  EXPECT_EQ(m(1, 0), 5.0);
  // Without a header: the first non-comment line is data.
  EXPECT_EQ(gpb::read_csv_matrix(make_csv(dir, "d.csv", "# a, b\n1,2\n")).rows(), 1);
  // An error names the file's own line number, comments counted.
  EXPECT_TRUE(contains(csv_error(make_csv(dir, "e.csv", "# c\n1,2\n# c\n3,x\n")),
                       "e.csv:4: column 2 is 'x'"))
      << csv_error(dir.file("e.csv"));
  EXPECT_TRUE(contains(csv_error(make_csv(dir, "f.csv", "# only a comment\n")), "file is empty"));
}

TEST(Csv, ADirectoryIsNamedNotReadAsAHugeFile) {
  TempDir dir;
  EXPECT_EQ(csv_error(dir.path()), dir.path() + ": is a directory, expected a CSV file");
}

}  // namespace
