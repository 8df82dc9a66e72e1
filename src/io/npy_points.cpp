// Points from a .npy file read by rows (see npy.hpp): the header, then only the bytes of the rows
// asked for, with pread, so that a rank of a sharded run reads its slice and nothing else.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpbandit/error.hpp"
#include "io/npy.hpp"

namespace gpb::detail {

namespace {

/// An open file, closed when it goes.
class File {
 public:
  explicit File(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw IoError("cannot read '" + path + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || S_ISDIR(st.st_mode)) {
      const std::string why = S_ISDIR(st.st_mode) ? "is a directory" : std::strerror(errno);
      ::close(fd_);
      throw IoError("cannot read '" + path + "': " + why);
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  std::uint64_t size() const { return size_; }
  /// Exactly n bytes at `offset` into `out`.
  void read_at(char* out, std::size_t n, std::uint64_t offset) const {
    while (n > 0) {
      const ssize_t r = ::pread(fd_, out, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        throw IoError("cannot read '" + path_ + "': " +
                      (r == 0 ? std::string("unexpected end of file") : std::strerror(errno)));
      }
      out += r;
      n -= static_cast<std::size_t>(r);
      offset += static_cast<std::uint64_t>(r);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

struct Points {
  NpyHeader h;
  std::int64_t n = 0, d = 0;
};

Points read_header(const File& f, const std::string& path) {
  GPB_EXPECTS(f.size() >= 12, path << ": not a .npy file (" << f.size() << " bytes)");
  std::string head(12, '\0');
  f.read_at(head.data(), head.size(), 0);
  const std::size_t len = npy_header_length(head, path);
  GPB_EXPECTS(len <= f.size() && len < (std::size_t{1} << 26), path << ": truncated .npy header");
  head.resize(len);
  f.read_at(head.data(), len, 0);
  Points p;
  p.h = parse_npy_header(head, path);
  p.n = p.h.shape[0];
  p.d = p.h.shape.size() == 2 ? p.h.shape[1] : 1;
  GPB_EXPECTS(p.n >= 1 && p.d >= 1, path << ": the array is empty (" << p.n << " x " << p.d << ")");
  const std::uint64_t need = static_cast<std::uint64_t>(p.n) * static_cast<std::uint64_t>(p.d) *
                             static_cast<std::uint64_t>(p.h.element_size);
  GPB_EXPECTS(f.size() - p.h.data_offset >= need,
              path << ": truncated .npy data (" << (f.size() - p.h.data_offset) << " bytes for "
                   << p.n << " x " << p.d << " values of " << p.h.element_size << " bytes)");
  return p;
}

}  // namespace

std::pair<std::int64_t, std::int64_t> npy_points_shape(const std::string& path) {
  const File f(path);
  const Points p = read_header(f, path);
  return {p.n, p.d};
}

Eigen::MatrixXd read_npy_points(const std::string& path, std::int64_t begin, std::int64_t end) {
  const File f(path);
  const Points p = read_header(f, path);
  GPB_EXPECTS(0 <= begin && begin < end && end <= p.n, path << ": rows [" << begin << ", " << end
                                                            << ") are empty or not within [0, "
                                                            << p.n << ")");
  const std::int64_t m = end - begin, d = p.d, size = p.h.element_size;
  Eigen::MatrixXd out(d, m);
  // C order: the rows are one run of m·d values; Fortran order: one run of m values per column.
  // Each run is read in chunks of at most 2^20 values (8 MiB), so the raw bytes never double the
  // slice's memory.
  const std::int64_t runs = p.h.fortran_order ? d : 1, run = p.h.fortran_order ? m : m * d;
  const std::int64_t chunk = std::min<std::int64_t>(run, std::int64_t{1} << 20);
  std::vector<char> buf(static_cast<std::size_t>(chunk * size));
  for (std::int64_t c = 0; c < runs; ++c) {
    const std::int64_t first = p.h.fortran_order ? c * p.n + begin : begin * d;
    for (std::int64_t k0 = 0; k0 < run; k0 += chunk) {
      const std::int64_t len = std::min(chunk, run - k0);
      f.read_at(buf.data(), static_cast<std::size_t>(len * size),
                p.h.data_offset +
                    static_cast<std::uint64_t>(first + k0) * static_cast<std::uint64_t>(size));
      for (std::int64_t t = 0; t < len; ++t) {
        const std::int64_t k = k0 + t;
        const std::int64_t i = p.h.fortran_order ? k : k / d, j = p.h.fortran_order ? c : k % d;
        const double v = npy_value(p.h, buf.data() + t * size);
        GPB_EXPECTS(std::isfinite(v), path << ": row " << begin + i << ", column " << j
                                           << " is not finite (" << v << ")");
        out(j, i) = v;
      }
    }
  }
  return out;
}

}  // namespace gpb::detail
