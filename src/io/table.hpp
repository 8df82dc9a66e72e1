/// @file table.hpp
/// Named columns of CSV tables with a header line, plain or gzip-compressed (internal): the
/// scores of a molecular library (smiles,score), looked up by the pool objectives.
#pragma once

#include <string>
#include <vector>

namespace gpb::detail {

/// The bytes of a file, decompressed when they start with the gzip magic (1f 8b). zlib decides
/// nothing from the file name. @throws IoError if unreadable or corrupt; InvalidArgument naming
/// the file for a gzip file in a build without zlib.
std::string read_maybe_gzip(const std::string& path);

/// Column `column` (named in the header line) of a comma-separated table: one number per data
/// row, in file order. Fields may be double-quoted ("" inside quotes is a quote); blank lines
/// end nothing and are skipped. O(bytes).
/// @throws InvalidArgument "<path>:<line>: ..." for a missing column (listing the header), a row
/// with too few fields, or a value that is empty, not a number, NaN or Inf; "<path>: no data rows"
/// for a header alone. IoError if unreadable.
std::vector<double> read_table_column(const std::string& path, const std::string& column);

/// The fields of one CSV line (quotes as read_table_column). Exposed for tests.
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace gpb::detail
