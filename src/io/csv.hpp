/// @file csv.hpp
/// Internal entry point of the numeric CSV reader (the public one is gpb::read_csv_matrix,
/// gpbandit/io/csv.hpp).
#pragma once

#include <Eigen/Core>

#include <string>
#include <string_view>

namespace gpb::detail {

/// Parses CSV text already in memory, exactly as read_csv_matrix parses a file's bytes; `path`
/// only names the source in messages ("path:line: what"). Used by read_csv_matrix and by the
/// fuzz target tests/fuzz/fuzz_csv.cpp. @throws InvalidArgument as read_csv_matrix does.
/// Complexity O(bytes).
Eigen::MatrixXd parse_csv_matrix(std::string_view text, const std::string& path,
                                 bool* had_header = nullptr, int skip_columns = 0,
                                 bool missing_as_nan = false);

}  // namespace gpb::detail
