// libFuzzer target: the numeric CSV reader behind every data file (domain, precomputed kernel,
// data sets): gpb::detail::parse_csv_matrix, the in-memory core of gpb::read_csv_matrix. The first
// byte picks skip_columns (0..3). Oracle: only InvalidArgument may escape; an accepted matrix is
// non-empty and every entry is finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "io/csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 1 << 16) return 0;
  const int skip = data[0] % 4;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  gpb::fuzz::expect_clean_rejection([&] {
    bool header = false;
    const Eigen::MatrixXd m = gpb::detail::parse_csv_matrix(text, "fuzz.csv", &header, skip);
    gpb::fuzz::check(m.rows() >= 1 && m.cols() >= 1, "accepted an empty matrix");
    gpb::fuzz::check(m.allFinite(), "accepted a non-finite entry");
  });
  return 0;
}
