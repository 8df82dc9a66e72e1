// Numeric CSV reader: read_csv_matrix (declared in gpbandit/io/csv.hpp).
//
// Format accepted:
//  - comma-separated fields, optional spaces/tabs around each field;
//  - LF or CRLF line ends; a UTF-8 byte-order mark at the start is ignored;
//  - an optional header: the first line is a header when one of its fields (after the skipped
//    leading columns) does not parse as a number; its field count then fixes the column count;
//  - blank lines at the end are ignored; a blank line between data lines is an error;
//  - lines whose first non-blank character is '#' are comments, ignored wherever they are (line
//    numbers in messages still count them);
//  - every data field must parse completely as a finite double (std::from_chars, general format,
//    an optional leading '+' allowed); NaN, Inf, empty fields and trailing garbage are errors;
//  - with missing values allowed (read_csv_matrix's missing_as_nan), an empty field, "nan" or
//    "na" (any case) is a missing value, read as NaN, and a blank line between data lines is a
//    line of empty fields; Inf and other text stay errors.
// Errors name "path:line: what" (1-based line and column numbers, columns counted in the file).

#include <Eigen/Core>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/io/csv.hpp"
#include "io/csv.hpp"

namespace gpb {
namespace detail {
namespace {

/// Reads the whole file into memory. @throws IoError naming the path.
std::string slurp(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InvalidArgument(path + ": is a directory, expected a CSV file");
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw IoError("cannot open '" + path + "' for reading");
  const std::streamoff size = in.tellg();
  std::string text;
  if (size > 0) {
    text.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(text.data(), size);
  }
  if (size < 0 || in.bad() || (size > 0 && in.gcount() != size)) {
    throw IoError("error while reading '" + path + "'");
  }
  return text;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Outcome of parsing one field as a number.
enum class FieldStatus { Ok, Empty, NotNumber, NonFinite, OutOfRange };

FieldStatus parse_field(std::string_view s, double* out) {
  s = trim(s);
  if (s.empty()) return FieldStatus::Empty;
  if (s.front() == '+' && s.size() > 1 && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  const char* first = s.data();
  const char* last = s.data() + s.size();
  const auto res = std::from_chars(first, last, *out, std::chars_format::general);
  if (res.ec == std::errc::result_out_of_range) return FieldStatus::OutOfRange;
  if (res.ec != std::errc() || res.ptr != last) return FieldStatus::NotNumber;
  if (!std::isfinite(*out)) return FieldStatus::NonFinite;
  return FieldStatus::Ok;
}

/// Whether the field is a missing value (FieldStatus `st` and value `v` from parse_field): an
/// empty field, NaN ("nan" in any case) or "na" in any case.
bool is_missing(std::string_view s, FieldStatus st, double v) {
  if (st == FieldStatus::Empty || (st == FieldStatus::NonFinite && std::isnan(v))) return true;
  s = trim(s);
  return st == FieldStatus::NotNumber && s.size() == 2 && (s[0] == 'n' || s[0] == 'N') &&
         (s[1] == 'a' || s[1] == 'A');
}

/// Splits a line (without its line end) into comma-separated fields.
void split_fields(std::string_view line, std::vector<std::string_view>* fields) {
  fields->clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      fields->push_back(line.substr(start));
      return;
    }
    fields->push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

/// True when every field from `skip` on parses as a number (finite or not), or, with
/// `missing`, is a missing value.
bool looks_numeric(const std::vector<std::string_view>& fields, int skip, bool missing) {
  for (std::size_t c = static_cast<std::size_t>(skip); c < fields.size(); ++c) {
    double v = 0.0;
    const FieldStatus st = parse_field(fields[c], &v);
    if (missing && is_missing(fields[c], st, v)) continue;
    if (st == FieldStatus::Empty || st == FieldStatus::NotNumber) return false;
  }
  return true;
}

std::string where(const std::string& path, std::size_t line) {
  return path + ":" + std::to_string(line) + ": ";
}

std::string shown(std::string_view field) {
  field = trim(field);
  if (field.size() > 40) return std::string(field.substr(0, 37)) + "...";
  return std::string(field);
}

/// The input split into lines (line i + 1 of the file is element i), line ends and a leading
/// byte-order mark removed, blank trailing lines dropped.
std::vector<std::string_view> split_lines(std::string_view all) {
  if (all.size() >= 3 && all.substr(0, 3) == "\xEF\xBB\xBF") all.remove_prefix(3);
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  return lines;
}

/// Parses one data line into `row` (its fields from `skip` on, written with stride `stride`);
/// with `missing`, missing values (is_missing) are read as NaN.
void parse_data_line(const std::string& path, std::size_t lineno,
                     const std::vector<std::string_view>& fields, int skip, std::size_t expected,
                     double* row, Eigen::Index stride, bool missing) {
  if (fields.size() != expected) {
    throw InvalidArgument(where(path, lineno) + "expected " + std::to_string(expected) +
                          " columns, got " + std::to_string(fields.size()));
  }
  for (std::size_t c = static_cast<std::size_t>(skip); c < fields.size(); ++c) {
    double v = 0.0;
    const FieldStatus st = parse_field(fields[c], &v);
    double* to = row + static_cast<Eigen::Index>(c - static_cast<std::size_t>(skip)) * stride;
    if (st == FieldStatus::Ok) {
      *to = v;
      continue;
    }
    if (missing && is_missing(fields[c], st, v)) {
      *to = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const std::string col = "column " + std::to_string(c + 1);
    const std::string text = "'" + shown(fields[c]) + "'";
    switch (st) {
      case FieldStatus::Empty:
        throw InvalidArgument(where(path, lineno) + col + " is empty");
      case FieldStatus::NonFinite:
        throw InvalidArgument(where(path, lineno) + col + " is " + text +
                              " (NaN or Inf not allowed)");
      case FieldStatus::OutOfRange:
        throw InvalidArgument(where(path, lineno) + col + " is " + text +
                              " (out of the range of a double)");
      default:
        throw InvalidArgument(where(path, lineno) + col + " is " + text + " (not a number)");
    }
  }
}

}  // namespace
}  // namespace detail

Eigen::MatrixXd read_csv_matrix(const std::string& path, bool* had_header, int skip_columns,
                                bool missing_as_nan) {
  GPB_EXPECTS(skip_columns >= 0,
              "read_csv_matrix: skip_columns must be >= 0, got " << skip_columns);
  return detail::parse_csv_matrix(detail::slurp(path), path, had_header, skip_columns,
                                  missing_as_nan);
}

Eigen::MatrixXd detail::parse_csv_matrix(std::string_view all, const std::string& path,
                                         bool* had_header, int skip_columns, bool missing_as_nan) {
  using namespace detail;
  GPB_EXPECTS(skip_columns >= 0,
              "parse_csv_matrix: skip_columns must be >= 0, got " << skip_columns);
  // Line numbers (1-based) and text of the lines that are not comments.
  std::vector<std::string_view> lines;
  std::vector<std::size_t> number;
  {
    const std::vector<std::string_view> all_lines = split_lines(all);
    for (std::size_t i = 0; i < all_lines.size(); ++i) {
      const std::string_view t = trim(all_lines[i]);
      if (!t.empty() && t.front() == '#') continue;
      lines.push_back(all_lines[i]);
      number.push_back(i + 1);
    }
    while (!lines.empty() && trim(lines.back()).empty()) {  // blank lines before trailing comments
      lines.pop_back();
      number.pop_back();
    }
  }
  if (lines.empty()) throw InvalidArgument(where(path, 1) + "file is empty (no data rows)");

  std::vector<std::string_view> fields;
  split_fields(lines[0], &fields);
  const bool header = !looks_numeric(fields, skip_columns, missing_as_nan);
  if (had_header) *had_header = header;
  const std::size_t expected = fields.size();
  if (expected <= static_cast<std::size_t>(skip_columns)) {
    throw InvalidArgument(where(path, number[0]) + "has " + std::to_string(expected) +
                          " columns, no numeric column left after skipping " +
                          std::to_string(skip_columns));
  }
  const std::size_t first = header ? 1 : 0;
  if (first >= lines.size()) {
    throw InvalidArgument(where(path, number[0] + 1) + "no data rows after the header");
  }

  const std::size_t cols = expected - static_cast<std::size_t>(skip_columns);
  const std::size_t rows = lines.size() - first;
  GPB_EXPECTS(rows <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
              path << ": too many rows (" << rows << ")");
  const auto n = static_cast<Eigen::Index>(rows);
  Eigen::MatrixXd out(n, static_cast<Eigen::Index>(cols));
  for (std::size_t i = first; i < lines.size(); ++i) {
    if (!missing_as_nan && trim(lines[i]).empty()) {
      throw InvalidArgument(where(path, number[i]) + "blank line between data rows");
    }
    split_fields(lines[i], &fields);
    double* row = out.data() + static_cast<Eigen::Index>(i - first);
    parse_data_line(path, number[i], fields, skip_columns, expected, row, n, missing_as_nan);
  }
  return out;
}

std::string csv_text(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                     const std::vector<std::string>& header) {
  GPB_EXPECTS(header.empty() || static_cast<Eigen::Index>(header.size()) == rows.cols(),
              "csv_text: " << header.size() << " header names for " << rows.cols() << " columns");
  std::string out;
  for (Eigen::Index j = 0; j < rows.cols(); ++j) {
    if (j > 0) out += ',';
    out += header.empty() ? "x" + std::to_string(j) : header[static_cast<std::size_t>(j)];
  }
  out += '\n';
  char buf[32];
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    for (Eigen::Index j = 0; j < rows.cols(); ++j) {
      std::snprintf(buf, sizeof buf, "%.17g", rows(i, j));
      if (j > 0) out += ',';
      out += buf;
    }
    out += '\n';
  }
  return out;
}

}  // namespace gpb
