/// @file shell_quote.hpp
/// A path quoted for the shell command lines the CLI tests build (paths under a TempDir hold no
/// single quote).
#pragma once

#include <string>

namespace gpb::test {

/// `path` in single quotes.
inline std::string q(const std::string& path) {
  return "'" + path + "'";
}

}  // namespace gpb::test
