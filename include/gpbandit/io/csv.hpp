/// @file csv.hpp
/// Numeric CSV files: what domains, data sets and state files are read from and written as.
#pragma once

#include <Eigen/Core>

#include <string>
#include <vector>

namespace gpb {

/// Reads a numeric CSV (optional header, comma separated; lines starting with `#` are comments)
/// into a rows×cols matrix. With `missing_as_nan`, an empty field, "nan" or "na" (any case) is a
/// missing value, read as NaN (a blank line between data lines is then a line of empty fields).
/// @throws IoError if unreadable; InvalidArgument naming file:line for ragged rows, non-numbers,
/// NaN (unless missing values are allowed) or Inf, or an empty file.
Eigen::MatrixXd read_csv_matrix(const std::string& path, bool* had_header = nullptr,
                                int skip_columns = 0, bool missing_as_nan = false);

/// CSV text of the rows×cols matrix `rows`: a header line (`header`, or x0,...,x{cols−1} when
/// empty), then one line per row with 17 significant digits, so that read_csv_matrix reads the
/// very same doubles back. @throws InvalidArgument if header is given with the wrong length.
std::string csv_text(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                     const std::vector<std::string>& header = {});

}  // namespace gpb
