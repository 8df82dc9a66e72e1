/// @file npy.hpp
/// NumPy .npy arrays and uncompressed .npz archives (internal), without any library: the formats
/// numpy.save / numpy.savez write and numpy.load reads.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpb::detail {

/// A 1-d or 2-d numeric array read from .npy bytes, as doubles in row-major order.
struct NpyArray {
  std::vector<std::int64_t> shape;  ///< one or two extents
  std::vector<double> values;       ///< product(shape) values, C (row-major) order
};

/// The header of a .npy file: what its data is and where it starts.
struct NpyHeader {
  std::vector<std::int64_t> shape;  ///< one or two extents
  char kind = 0;                    ///< 'f', 'i', 'u' or 'b'
  int element_size = 0;             ///< bytes per value
  bool fortran_order = false;       ///< column-major data
  std::size_t data_offset = 0;      ///< bytes before the data
};
/// Parses the header of .npy bytes (at least the whole header; the data need not follow).
/// @throws InvalidArgument "<what>: ..." as parse_npy().
NpyHeader parse_npy_header(std::string_view bytes, const std::string& what);
/// The length of the header (magic, version, length field and dict) from the first 12 bytes of a
/// .npy file. @throws InvalidArgument "<what>: ..." for a file that is not .npy.
std::size_t npy_header_length(std::string_view first, const std::string& what);
/// The value at `p` (one element of the data of `h`) as a double.
double npy_value(const NpyHeader& h, const char* p);
/// The value at `p` of an integer or bool array ('i', 'u', 'b'; not 'f') as a signed integer,
/// exactly (uint64 values above INT64_MAX saturate).
std::int64_t npy_integer(const NpyHeader& h, const char* p);

/// Parses .npy bytes (format 1.0, 2.0 or 3.0; little-endian float64, float32, signed or unsigned
/// integers of 1, 2, 4 or 8 bytes, or bool; C or Fortran order; 1-d or 2-d). `what` names the
/// source in messages. @throws InvalidArgument "<what>: ..." for anything else.
NpyArray parse_npy(std::string_view bytes, const std::string& what);

/// .npy bytes (format 1.0, '<f8', C order) of a rows×cols matrix, written row by row.
std::string npy_bytes(const Eigen::Ref<const Eigen::MatrixXd>& m);
/// .npy bytes of a 1-d float64 array.
std::string npy_bytes(const std::vector<double>& v);
/// .npy bytes of a 1-d '|u1' array holding `data` (e.g. UTF-8 text).
std::string npy_bytes_u8(std::string_view data);
/// .npy bytes of a 1-d '<i8' array.
std::string npy_bytes_i64(const std::vector<std::int64_t>& v);
/// .npy bytes of a 2-d rows×cols '<u8' array (row-major `v`, rows·cols values).
std::string npy_bytes_u64(const std::vector<std::uint64_t>& v, std::int64_t rows,
                          std::int64_t cols);
/// .npy bytes of a 2-d rows×cols '<i8' array (row-major `v`, rows·cols values).
std::string npy_bytes_i64(const std::vector<std::int64_t>& v, std::int64_t rows, std::int64_t cols);

/// A zip archive of stored (uncompressed) members, as numpy.savez writes: (name, bytes) pairs.
std::string zip_stored(const std::vector<std::pair<std::string, std::string>>& members);
/// The members of a zip archive whose entries are stored (method 0), by name. `what` names the
/// source. @throws InvalidArgument for a malformed archive, a compressed member (numpy.savez_
/// compressed: not supported) or a CRC mismatch.
std::vector<std::pair<std::string, std::string>> unzip_stored(std::string_view bytes,
                                                              const std::string& what);

/// Points from a .npy file as an N×d matrix (1-d arrays give d = 1), every value finite.
/// @throws InvalidArgument naming the file; IoError if unreadable.
Eigen::MatrixXd read_npy_matrix(const std::string& path);

/// N and d of the points in the .npy file at `path` (a 2-d N×d array, or 1-d: d = 1), from its
/// header alone (the data's length is checked against the file's size).
/// @throws InvalidArgument naming the file (bad header, dtype or shape, an empty array, a file
/// shorter than its header says); IoError if it cannot be opened or read.
std::pair<std::int64_t, std::int64_t> npy_points_shape(const std::string& path);
/// Rows [begin, end) of the points in the .npy file at `path`, one candidate per column
/// (d × (end − begin)), reading only those rows' bytes (one read in C order, d reads in Fortran
/// order): how a rank reads its slice of a domain of 10⁹ candidates. Every value finite.
/// @throws InvalidArgument naming the file and a row for a value that is not finite, or for a
/// range outside [0, N); as npy_points_shape() otherwise.
Eigen::MatrixXd read_npy_points(const std::string& path, std::int64_t begin, std::int64_t end);

}  // namespace gpb::detail
