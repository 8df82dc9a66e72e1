// Named numeric columns of CSV tables, plain and gzip-compressed (io/table.hpp): quoting, blank
// lines, and one clear message naming file:line for every kind of bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "gpbandit/error.hpp"
#include "io/table.hpp"
#include "test_support.hpp"

namespace {

using gpb::detail::read_table_column;

std::string temp(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  gpb::test::write_file(path, text);
  return path;
}

TEST(Table, ReadsANamedColumnWithQuotesAndBlankLines) {
  const std::string p =
      temp("t1.csv", "smiles,score\n\"C(=O)O,x\",-7.5\n\nCCO, 1e-2\r\n\"C\"\"N\",3\n");
  const std::vector<double> v = read_table_column(p, "score");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], -7.5);
  EXPECT_EQ(v[1], 0.01);
  EXPECT_EQ(v[2], 3.0);
  EXPECT_EQ(gpb::detail::split_csv_line("\"a\"\"b\",c"), (std::vector<std::string>{"a\"b", "c"}));
}

TEST(Table, MessagesNameFileAndLine) {
  const std::string missing = temp("t2.csv", "smiles,dock\nC,1\n");
  const std::string m1 =
      gpb::test::invalid_argument_of([&] { read_table_column(missing, "score"); });
  EXPECT_TRUE(
      gpb::test::contains(m1, "t2.csv:1: no column 'score' in the header (columns: smiles, dock)"))
      << m1;
  const std::string bad = temp("t3.csv", "smiles,score\nC,1\nN,abc\n");
  const std::string m2 = gpb::test::invalid_argument_of([&] { read_table_column(bad, "score"); });
  EXPECT_TRUE(gpb::test::contains(m2, "t3.csv:3: score 'abc' is not a number")) << m2;
  const std::string empty = temp("t4.csv", "smiles,score\nC,\n");
  EXPECT_TRUE(gpb::test::contains(
      gpb::test::invalid_argument_of([&] { read_table_column(empty, "score"); }), "t4.csv:2"));
  // Rows may be short when the column is among their fields (here the first).
  const std::string ragged = temp("t5.csv", "score,smiles\n1,C\n2\n3,N\n");
  EXPECT_EQ(read_table_column(ragged, "score"), (std::vector<double>{1, 2, 3}));
  const std::string short_row = temp("t6.csv", "smiles,score\nC\n");
  EXPECT_TRUE(gpb::test::contains(
      gpb::test::invalid_argument_of([&] { read_table_column(short_row, "score"); }),
      "t6.csv:2: 1 fields, the header has 2"));
  const std::string inf = temp("t7.csv", "score\ninf\n");
  EXPECT_THROW(read_table_column(inf, "score"), gpb::InvalidArgument);
  const std::string header_only = temp("t8.csv", "smiles,score\n");
  EXPECT_TRUE(gpb::test::contains(
      gpb::test::invalid_argument_of([&] { read_table_column(header_only, "score"); }),
      "no data rows"));
  EXPECT_THROW(read_table_column(testing::TempDir() + "/nope.csv", "score"), gpb::IoError);
}

TEST(Table, ReadsGzipCompressedFiles) {
  const std::string plain = temp("t9.csv", "smiles,score\nC,-1.5\nN,2.25\n");
  const std::string gz = plain + ".gz";
  std::remove(gz.c_str());
  ASSERT_EQ(gpb::test::run_command("gzip -k " + plain).exit_code, 0);
  const std::string no_zlib =
      gpb::test::invalid_argument_of([&] { read_table_column(gz, "score"); });
  if (gpb::test::contains(no_zlib, "this build has no zlib")) GTEST_SKIP() << no_zlib;
  EXPECT_EQ(read_table_column(gz, "score"), (std::vector<double>{-1.5, 2.25}));
  std::string bytes = gpb::test::read_file(gz);
  bytes.resize(bytes.size() - 12);  // truncated
  const std::string cut = temp("t10.csv.gz", bytes);
  EXPECT_THROW(read_table_column(cut, "score"), gpb::IoError);
}

}  // namespace
