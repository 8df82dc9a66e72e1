// Named numeric columns of CSV tables, plain or gzip-compressed (see table.hpp).
#include "io/table.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "gpbandit/error.hpp"
#include "io/atomic_file.hpp"

#if GPB_HAS_ZLIB
#include <zlib.h>
#endif

namespace gpb::detail {

namespace {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

#if GPB_HAS_ZLIB
std::string gunzip(const std::string& in, const std::string& path) {
  z_stream zs{};
  // 16 + MAX_WBITS: gzip header; concatenated members are handled by resetting below.
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw IoError(path + ": zlib init failed");
  std::string out;
  char buf[1 << 16];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(buf, sizeof buf - zs.avail_out);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // another gzip member follows
    }
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) throw IoError(path + ": corrupt or truncated gzip data");
  return out;
}
#endif

/// Parses a double that must fill the whole field.
bool parse_number(const std::string& field, double* out) {
  std::size_t a = field.find_first_not_of(" \t");
  std::size_t b = field.find_last_not_of(" \t\r");
  if (a == std::string::npos) return false;
  const std::string s = field.substr(a, b - a + 1);
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

}  // namespace

std::string read_maybe_gzip(const std::string& path) {
  std::string bytes = read_whole_file(path);
  if (!is_gzip(bytes)) return bytes;
#if GPB_HAS_ZLIB
  return gunzip(bytes, path);
#else
  throw InvalidArgument(path +
                        ": a gzip file, but this build has no zlib (apt-get install "
                        "zlib1g-dev and rebuild, or gunzip the file)");
#endif
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back().push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back().push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back().push_back(c);
    }
  }
  return fields;
}

std::vector<double> read_table_column(const std::string& path, const std::string& column) {
  const std::string text = read_maybe_gzip(path);
  std::istringstream in(text);
  std::string line;
  long line_no = 0;
  std::size_t col = 0, width = 0;
  bool have_header = false;
  std::vector<double> values;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::vector<std::string> f = split_csv_line(line);
    if (!have_header) {
      std::string names;
      for (std::size_t i = 0; i < f.size(); ++i) {
        names += (i ? ", " : "") + f[i];
        if (f[i] == column) col = i, have_header = true;
      }
      GPB_EXPECTS(have_header, path << ":" << line_no << ": no column '" << column
                                    << "' in the header (columns: " << names << ")");
      width = f.size();
      continue;
    }
    GPB_EXPECTS(f.size() > col,
                path << ":" << line_no << ": " << f.size() << " fields, the header has " << width);
    double v = 0;
    GPB_EXPECTS(parse_number(f[col], &v),
                path << ":" << line_no << ": " << column << " '" << f[col] << "' is not a number");
    GPB_EXPECTS(std::isfinite(v), path << ":" << line_no << ": " << column << " is " << v);
    values.push_back(v);
  }
  GPB_EXPECTS(have_header,
              path << ": empty file (expected a header line naming '" << column << "')");
  GPB_EXPECTS(!values.empty(), path << ": no data rows");
  return values;
}

}  // namespace gpb::detail
