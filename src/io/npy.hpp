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

/// The header of a .npy array and where its data starts, without converting any value.
struct NpyHeader {
  std::vector<std::int64_t> shape;  ///< one or two extents
  char kind = 0;                    ///< 'f' float, 'i' signed, 'u' unsigned, 'b' bool
  int size = 0;                     ///< bytes per element (1, 2, 4 or 8)
  bool fortran = false;             ///< column-major data
  std::size_t data = 0;             ///< offset of the first element in the bytes
  /// Element i (0-based, in file order) as a signed integer ('f' kinds: not allowed).
  std::int64_t integer(std::string_view bytes, std::uint64_t i) const;
};

/// Parses the header of .npy bytes (as parse_npy) and checks that the data is complete.
/// @throws InvalidArgument "<what>: ..." as parse_npy.
NpyHeader parse_npy_header(std::string_view bytes, const std::string& what);

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

}  // namespace gpb::detail
