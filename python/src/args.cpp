// Argument conversion for the bindings: NumPy arrays and Python numbers checked before they reach
// the engine. Indices accept integer dtypes only and are range-checked in 64 bits before they are
// narrowed to int, so np.int64(2**40), 11.7 and True are refused instead of wrapped or truncated.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "gpbandit/error.hpp"

namespace gpb::python {
namespace {

/// "float64", "bool", "string" ...: the dtype's name for messages.
std::string dtype_name(const py::array& a) {
  switch (a.dtype().kind()) {
    case 'U':
    case 'S':
      return "string";
    case 'O':
      return "object";
    default:
      return py::str(a.dtype()).cast<std::string>();
  }
}

/// The array behind `a` without any dtype conversion (np.asarray); a TypeError naming `what` when
/// `a` cannot be one (e.g. a ragged list).
py::array as_array(const py::handle& a, const char* what, const char* expected) {
  py::array arr = py::array::ensure(a);
  if (!arr) {
    throw py::type_error(std::string(what) + ": expected " + expected + ", got " +
                         py::str(py::type::handle_of(a).attr("__name__")).cast<std::string>());
  }
  return arr;
}

/// "index" for a scalar or R = 1, "index[3]" otherwise.
std::string element(const char* what, std::size_t i, std::size_t n) {
  return n == 1 ? std::string(what) : std::string(what) + "[" + std::to_string(i) + "]";
}

void check_count(std::size_t got, std::size_t n, const char* what) {
  if (n != 0 && got != n) {
    throw InvalidArgument(std::string(what) + ": expected " + std::to_string(n) +
                          (n == 1 ? " element" : " elements") + ", got " + std::to_string(got));
  }
}

}  // namespace

template <typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> vector_arg(const py::handle& a,
                                                                     std::size_t n,
                                                                     const char* what) {
  auto arr = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!arr) throw py::type_error(std::string(what) + ": expected an array of numbers");
  check_count(static_cast<std::size_t>(arr.size()), n, what);
  return arr;
}
template py::array_t<int, py::array::c_style | py::array::forcecast> vector_arg<int>(
    const py::handle&, std::size_t, const char*);
template py::array_t<double, py::array::c_style | py::array::forcecast> vector_arg<double>(
    const py::handle&, std::size_t, const char*);

std::vector<int> index_arg(const py::handle& a, std::size_t n, std::int64_t bound,
                           const char* what) {
  const char* expected = "integer indices (an int or an array of integer dtype)";
  if (PyLong_Check(a.ptr()) && !PyBool_Check(a.ptr())) {  // a Python int of any size
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(a.ptr(), &overflow);
    if (overflow != 0 || v < 0 || v >= bound) {
      throw InvalidArgument(std::string(what) + " = " + py::str(a).cast<std::string>() +
                            " is out of range [0, " + std::to_string(bound) + ")");
    }
    check_count(1, n, what);
    return {static_cast<int>(v)};
  }
  const py::array arr = as_array(a, what, expected);
  const char kind = arr.dtype().kind();
  if (kind != 'i' && kind != 'u') {
    throw py::type_error(std::string(what) + ": expected " + expected + ", got " +
                         (arr.ndim() == 0 ? "a " : "an array of ") + dtype_name(arr));
  }
  const auto count = static_cast<std::size_t>(arr.size());
  check_count(count, n, what);
  std::vector<int> out(count);
  auto check = [&](std::size_t i, bool too_big, long long v) {
    if (too_big || v < 0 || v >= bound) {
      throw InvalidArgument(
          element(what, i, count) + " = " +
          (too_big ? std::string(py::str(arr.attr("flat")[py::int_(i)])) : std::to_string(v)) +
          " is out of range [0, " + std::to_string(bound) + ")");
    }
    out[i] = static_cast<int>(v);
  };
  if (kind == 'u') {
    const auto u = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>(arr);
    const auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t v = u.data()[i];
      check(i, v > kMax, v > kMax ? 0 : static_cast<long long>(v));
    }
  } else {
    const auto s = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>(arr);
    for (std::size_t i = 0; i < count; ++i) check(i, false, s.data()[i]);
  }
  return out;
}

py::array_t<double, py::array::c_style | py::array::forcecast> real_arg(const py::handle& a,
                                                                        std::size_t n,
                                                                        const char* what) {
  const char* expected = "real numbers (a float or an array of float or integer dtype)";
  const py::array arr = as_array(a, what, expected);
  const char kind = arr.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw py::type_error(std::string(what) + ": expected " + expected + ", got " +
                         (arr.ndim() == 0 ? "a " : "an array of ") + dtype_name(arr));
  }
  return vector_arg<double>(arr, n, what);
}

std::vector<double> noise_arg(const py::handle& a, std::size_t n) {
  if (a.is_none()) return {};
  const auto v = real_arg(a, n, "noise");
  return std::vector<double>(v.data(), v.data() + v.size());
}

py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> mask_arg(const py::handle& a,
                                                                              std::size_t n,
                                                                              const char* what) {
  const py::array arr = as_array(a, what, "a mask (an array of bool or integer dtype)");
  const char kind = arr.dtype().kind();
  if (kind != 'b' && kind != 'i' && kind != 'u') {
    throw py::type_error(std::string(what) +
                         ": expected a mask (an array of bool or integer dtype), got an array of " +
                         dtype_name(arr));
  }
  check_count(static_cast<std::size_t>(arr.size()), n, what);
  // Nonzero = set, whatever the integer width (a cast to uint8 would wrap 256 to 0).
  const py::object nonzero = py::module_::import("numpy").attr("not_equal")(arr, 0);
  return py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(nonzero);
}

void set_read_only(py::array& a) {
  a.attr("setflags")(py::arg("write") = false);
}

}  // namespace gpb::python
