// Shared oracle of the fuzz targets: bad input may only be reported as gpb::InvalidArgument or
// gpb::IoError (what the CLI turns into one line and exit code 2/1); any other exception escaping
// a loader is a bug and aborts the run so that libFuzzer records the input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "gpbandit/error.hpp"

namespace gpb::fuzz {

/// Runs `body`; accepts the typed input errors, aborts on anything else.
template <class F>
void expect_clean_rejection(F&& body) {
  try {
    body();
  } catch (const gpb::InvalidArgument&) {
  } catch (const gpb::IoError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz oracle: untyped exception escaped: %s\n", e.what());
    std::abort();
  }
}

/// Aborts with `what` when `ok` is false (libFuzzer then saves the input as a crash).
inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz oracle: %s\n", what);
    std::abort();
  }
}

}  // namespace gpb::fuzz
