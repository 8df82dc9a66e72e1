// libsvm loaded on first use (see libsvm_loader.hpp).
#if GPB_HAS_LIBSVM
#include "objective/libsvm_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "gpbandit/error.hpp"

#ifndef GPB_LIBSVM_SONAME
#define GPB_LIBSVM_SONAME "libsvm.so.3"
#endif

namespace gpb::detail {

namespace {

/// GPB_LIBSVM (a file name or path) when set, else the SONAME found at build time.
std::string library_name() {
  const char* env = std::getenv("GPB_LIBSVM");
  return env != nullptr && *env != '\0' ? env : GPB_LIBSVM_SONAME;
}

template <class F>
void resolve(void* lib, const std::string& needed_by, const std::string& file, const char* name,
             F* out) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) {
    throw InvalidArgument(needed_by + ": " + file + " has no " + name + " (not libsvm?)");
  }
  *out = reinterpret_cast<F>(sym);
}

}  // namespace

const Libsvm& libsvm(const std::string& needed_by) {
  static std::mutex m;
  static Libsvm loaded;
  static bool ready = false;
  const std::lock_guard<std::mutex> lock(m);
  if (ready) return loaded;
  const std::string file = library_name();
  void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    throw InvalidArgument(needed_by + " needs libsvm, and " + file + " cannot be loaded (" +
                          (why != nullptr ? why : "unknown reason") +
                          "); on Debian or Ubuntu: apt-get install libsvm3 (or set GPB_LIBSVM "
                          "to its path)");
  }
  Libsvm l;
  resolve(lib, needed_by, file, "svm_train", &l.train);
  resolve(lib, needed_by, file, "svm_check_parameter", &l.check_parameter);
  resolve(lib, needed_by, file, "svm_free_and_destroy_model", &l.free_and_destroy_model);
  resolve(lib, needed_by, file, "svm_set_print_string_function", &l.set_print_string_function);
  resolve(lib, needed_by, file, "svm_predict_values", &l.predict_values);
  loaded = l;  // the handle stays open for the life of the process
  ready = true;
  return loaded;
}

}  // namespace gpb::detail
#endif
