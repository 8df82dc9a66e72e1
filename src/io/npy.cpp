// .npy parsing and writing; stored .npz (zip) archives with CRC-32 (see npy.hpp).
#include "io/npy.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "gpbandit/error.hpp"
#include "io/atomic_file.hpp"

namespace gpb::detail {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

template <class T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // little-endian host (x86-64, aarch64)
  return v;
}

/// The value of `key` in the header dict text ("'descr': '<f8', ..."), trimmed; "" if absent.
std::string dict_value(const std::string& h, const std::string& key) {
  const std::size_t k = h.find("'" + key + "'");
  if (k == std::string::npos) return "";
  std::size_t v = h.find(':', k);
  if (v == std::string::npos) return "";
  ++v;
  while (v < h.size() && h[v] == ' ') ++v;
  std::size_t end = v;
  if (h[v] == '(') {
    end = h.find(')', v);
    return end == std::string::npos ? "" : h.substr(v, end - v + 1);
  }
  while (end < h.size() && h[end] != ',' && h[end] != '}') ++end;
  std::string s = h.substr(v, end - v);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::vector<std::int64_t> parse_shape(const std::string& t, const std::string& what) {
  std::vector<std::int64_t> shape;
  std::string inner = t.size() >= 2 ? t.substr(1, t.size() - 2) : "";
  std::stringstream ss(inner);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::size_t a = item.find_first_not_of(' ');
    if (a == std::string::npos) continue;
    item = item.substr(a);
    std::int64_t v = 0;
    for (char c : item) {
      if (c == ' ' || c == 'L') break;
      GPB_EXPECTS(c >= '0' && c <= '9', what << ": bad .npy shape " << t);
      v = v * 10 + (c - '0');
      GPB_EXPECTS(v < (std::int64_t{1} << 40), what << ": .npy shape too large " << t);
    }
    shape.push_back(v);
  }
  GPB_EXPECTS(shape.size() == 1 || shape.size() == 2,
              what << ": expected a 1-d or 2-d array, got shape " << t);
  return shape;
}

/// Element reader for a dtype string such as "'<f8'"; returns its size, or 0 if unsupported.
int element(const std::string& descr, char* kind) {
  if (descr.size() < 5) return 0;
  const char order = descr[1], k = descr[2];
  const std::string width = descr.substr(3, descr.size() - 4);
  if (order != '<' && order != '|' && order != '=') return 0;
  if (width != "1" && width != "2" && width != "4" && width != "8") return 0;
  *kind = k;
  const int size = width[0] - '0';
  if (k == 'f' && (size == 4 || size == 8)) return size;
  if ((k == 'i' || k == 'u') || (k == 'b' && size == 1)) return size;
  return 0;
}

std::int64_t integer_value(const char* p, char kind, int size) {
  if (kind == 'b') return p[0] != 0 ? 1 : 0;
  if (kind == 'i') {
    switch (size) {
      case 1:
        return load_le<std::int8_t>(p);
      case 2:
        return load_le<std::int16_t>(p);
      case 4:
        return load_le<std::int32_t>(p);
      default:
        return load_le<std::int64_t>(p);
    }
  }
  switch (size) {  // 'u' (callers reject 'f')
    case 1:
      return load_le<std::uint8_t>(p);
    case 2:
      return load_le<std::uint16_t>(p);
    case 4:
      return load_le<std::uint32_t>(p);
    default: {
      const std::uint64_t v = load_le<std::uint64_t>(p);
      return v > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(v);
    }
  }
}

double element_value(const char* p, char kind, int size) {
  if (kind == 'f') return size == 8 ? load_le<double>(p) : static_cast<double>(load_le<float>(p));
  if (kind == 'u' && size == 8) return static_cast<double>(load_le<std::uint64_t>(p));  // exact
  return static_cast<double>(integer_value(p, kind, size));
}

std::string npy_header(const std::string& descr, const std::string& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t unpadded = 10 + dict.size() + 1;  // magic 6 + version 2 + length 2, '\n'
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string out(kMagic, 6);
  out.push_back('\x01');
  out.push_back('\x00');
  const std::uint16_t len = static_cast<std::uint16_t>(dict.size());
  out.push_back(static_cast<char>(len & 0xff));
  out.push_back(static_cast<char>(len >> 8));
  return out + dict;
}

std::uint32_t crc32(std::string_view data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : data) c = table[(c ^ b) & 0xffu] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void put16(std::string& s, std::uint32_t v) {
  s.push_back(static_cast<char>(v & 0xff));
  s.push_back(static_cast<char>((v >> 8) & 0xff));
}
void put32(std::string& s, std::uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}

/// The compressed size in a ZIP64 extra field (id 1: uncompressed size, then compressed size),
/// as numpy.savez writes (force_zip64).
std::uint64_t zip64_size(std::string_view extra, const std::string& what) {
  for (std::size_t p = 0; p + 4 <= extra.size();) {
    const std::uint16_t id = load_le<std::uint16_t>(extra.data() + p);
    const std::uint16_t len = load_le<std::uint16_t>(extra.data() + p + 2);
    if (id == 1 && len >= 16 && p + 4 + len <= extra.size()) {
      return load_le<std::uint64_t>(extra.data() + p + 12);
    }
    p += 4 + static_cast<std::size_t>(len);
  }
  GPB_EXPECTS(false, what << ": zip member without its ZIP64 sizes");
  return 0;
}

}  // namespace

NpyHeader parse_npy_header(std::string_view b, const std::string& what) {
  GPB_EXPECTS(b.size() >= 10 && b.substr(0, 6) == std::string_view(kMagic, 6),
              what << ": not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(b[6]);
  GPB_EXPECTS(major >= 1 && major <= 3, what << ": unsupported .npy format version " << major);
  const std::size_t hl_size = major == 1 ? 2 : 4;
  GPB_EXPECTS(b.size() >= 8 + hl_size, what << ": truncated .npy header");
  const std::size_t hlen =
      major == 1 ? load_le<std::uint16_t>(b.data() + 8) : load_le<std::uint32_t>(b.data() + 8);
  NpyHeader h;
  h.data_offset = 8 + hl_size + hlen;
  GPB_EXPECTS(b.size() >= h.data_offset, what << ": truncated .npy header");
  const std::string header(b.substr(8 + hl_size, hlen));
  const std::string descr = dict_value(header, "descr");
  const std::string fortran = dict_value(header, "fortran_order");
  h.element_size = element(descr, &h.kind);
  GPB_EXPECTS(h.element_size > 0, what << ": unsupported dtype "
                                       << (descr.empty() ? "(none)" : descr)
                                       << "; expected little-endian float64, float32, integers "
                                          "or bool");
  GPB_EXPECTS(fortran == "False" || fortran == "True",
              what << ": bad fortran_order in the .npy header");
  h.fortran_order = fortran == "True";
  h.shape = parse_shape(dict_value(header, "shape"), what);
  return h;
}

std::size_t npy_header_length(std::string_view first, const std::string& what) {
  GPB_EXPECTS(first.size() >= 12 && first.substr(0, 6) == std::string_view(kMagic, 6),
              what << ": not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(first[6]);
  GPB_EXPECTS(major >= 1 && major <= 3, what << ": unsupported .npy format version " << major);
  return major == 1 ? 10 + std::size_t{load_le<std::uint16_t>(first.data() + 8)}
                    : 12 + std::size_t{load_le<std::uint32_t>(first.data() + 8)};
}

double npy_value(const NpyHeader& h, const char* p) {
  return element_value(p, h.kind, h.element_size);
}

std::int64_t npy_integer(const NpyHeader& h, const char* p) {
  return integer_value(p, h.kind, h.element_size);
}

NpyArray parse_npy(std::string_view b, const std::string& what) {
  const NpyHeader h = parse_npy_header(b, what);
  NpyArray a;
  a.shape = h.shape;
  const std::int64_t rows = a.shape[0], cols = a.shape.size() == 2 ? a.shape[1] : 1;
  const std::uint64_t count = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  const std::size_t size = static_cast<std::size_t>(h.element_size);
  GPB_EXPECTS(b.size() - h.data_offset >= count * size,
              what << ": truncated .npy data (" << (b.size() - h.data_offset) << " bytes for "
                   << count << " values of " << size << " bytes)");
  a.values.resize(count);
  const char* p = b.data() + h.data_offset;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::int64_t src = h.fortran_order ? j * rows + i : i * cols + j;
      a.values[static_cast<std::size_t>(i * cols + j)] = npy_value(h, p + src * h.element_size);
    }
  }
  return a;
}

std::string npy_bytes(const Eigen::Ref<const Eigen::MatrixXd>& m) {
  std::string out =
      npy_header("<f8", "(" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + ")");
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const double v = m(i, j);
      out.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
  }
  return out;
}

std::string npy_bytes(const std::vector<double>& v) {
  std::string out = npy_header("<f8", "(" + std::to_string(v.size()) + ",)");
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  return out;
}

std::string npy_bytes_u8(std::string_view data) {
  return npy_header("|u1", "(" + std::to_string(data.size()) + ",)") + std::string(data);
}

namespace {

/// .npy bytes of a rows×cols array of 8-byte integers (`descr` '<u8' or '<i8').
template <typename T>
std::string npy_bytes_2d(const char* descr, const std::vector<T>& v, std::int64_t rows,
                         std::int64_t cols) {
  GPB_EXPECTS(static_cast<std::int64_t>(v.size()) == rows * cols,
              "npy_bytes: " << v.size() << " values for a " << rows << " x " << cols << " array");
  std::string out =
      npy_header(descr, "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  return out;
}

}  // namespace

std::string npy_bytes_u64(const std::vector<std::uint64_t>& v, std::int64_t rows,
                          std::int64_t cols) {
  return npy_bytes_2d("<u8", v, rows, cols);
}

std::string npy_bytes_i64(const std::vector<std::int64_t>& v, std::int64_t rows,
                          std::int64_t cols) {
  return npy_bytes_2d("<i8", v, rows, cols);
}

std::string npy_bytes_i64(const std::vector<std::int64_t>& v) {
  std::string out = npy_header("<i8", "(" + std::to_string(v.size()) + ",)");
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(std::int64_t));
  return out;
}

std::string zip_stored(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string out, central;
  for (const auto& [name, data] : members) {
    GPB_EXPECTS(data.size() < 0xFFFFFFFFull && out.size() < 0xFFFFFFFFull,
                "npz: member '" << name << "' is too large for a zip archive without ZIP64");
    const std::uint32_t crc = crc32(data), offset = static_cast<std::uint32_t>(out.size());
    const std::uint32_t size = static_cast<std::uint32_t>(data.size());
    put32(out, 0x04034b50u);  // local file header
    put16(out, 20);           // version needed
    put16(out, 0);            // flags
    put16(out, 0);            // method: stored
    put16(out, 0);            // time
    put16(out, 0x21);         // date: 1980-01-01
    put32(out, crc);
    put32(out, size);
    put32(out, size);
    put16(out, static_cast<std::uint32_t>(name.size()));
    put16(out, 0);
    out += name;
    out += data;
    put32(central, 0x02014b50u);  // central directory entry
    put16(central, 20);
    put16(central, 20);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0x21);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, static_cast<std::uint32_t>(name.size()));
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put32(central, 0);
    put32(central, offset);
    central += name;
  }
  const std::uint32_t cd_offset = static_cast<std::uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50u);  // end of central directory
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<std::uint32_t>(members.size()));
  put16(out, static_cast<std::uint32_t>(members.size()));
  put32(out, static_cast<std::uint32_t>(central.size()));
  put32(out, cd_offset);
  put16(out, 0);
  return out;
}

std::vector<std::pair<std::string, std::string>> unzip_stored(std::string_view b,
                                                              const std::string& what) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos + 4 <= b.size() && load_le<std::uint32_t>(b.data() + pos) == 0x04034b50u) {
    GPB_EXPECTS(pos + 30 <= b.size(), what << ": truncated zip entry");
    const char* h = b.data() + pos;
    const std::uint16_t flags = load_le<std::uint16_t>(h + 6),
                        method = load_le<std::uint16_t>(h + 8);
    const std::uint32_t crc = load_le<std::uint32_t>(h + 14);
    std::uint64_t size = load_le<std::uint32_t>(h + 18);
    const std::uint16_t nlen = load_le<std::uint16_t>(h + 26),
                        xlen = load_le<std::uint16_t>(h + 28);
    GPB_EXPECTS(pos + 30 + nlen + xlen <= b.size(), what << ": truncated zip entry");
    if (size == 0xFFFFFFFFu) size = zip64_size(b.substr(pos + 30 + nlen, xlen), what);
    GPB_EXPECTS(method == 0, what << ": member is compressed (zip method " << method
                                  << "); save with numpy.savez, not numpy.savez_compressed");
    GPB_EXPECTS((flags & 0x8u) == 0, what << ": zip data descriptors are not supported");
    const std::size_t data = pos + 30 + nlen + xlen;
    GPB_EXPECTS(size <= b.size() && data + size <= b.size(), what << ": truncated zip member");
    std::string name(b.substr(pos + 30, nlen));
    std::string bytes(b.substr(data, size));
    GPB_EXPECTS(crc32(bytes) == crc, what << ": CRC mismatch in member '" << name << "'");
    out.emplace_back(std::move(name), std::move(bytes));
    pos = data + size;
  }
  GPB_EXPECTS(!out.empty(), what << ": not a zip (.npz) archive");
  return out;
}

Eigen::MatrixXd read_npy_matrix(const std::string& path) {
  const NpyArray a = parse_npy(read_whole_file(path), path);
  const Eigen::Index rows = a.shape[0], cols = a.shape.size() == 2 ? a.shape[1] : 1;
  GPB_EXPECTS(rows >= 1 && cols >= 1,
              path << ": the array is empty (" << rows << " x " << cols << ")");
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j) {
      const double v = a.values[static_cast<std::size_t>(i * cols + j)];
      GPB_EXPECTS(std::isfinite(v),
                  path << ": row " << i << ", column " << j << " is not finite (" << v << ")");
      m(i, j) = v;
    }
  }
  return m;
}

}  // namespace gpb::detail
