// libsvm loaded on first use (see libsvm_loader.hpp).
#if GPB_HAS_LIBSVM
#include "dpgibo/libsvm_loader.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "gpbandit/error.hpp"

#ifndef GPB_LIBSVM_SONAME
#define GPB_LIBSVM_SONAME "libsvm.so.3"
#endif

namespace gpb::dpgibo::detail {

namespace {

template <class F>
void resolve(void* lib, const char* name, F* out) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) {
    throw InvalidArgument(std::string("task.type: svr_friedman: ") + GPB_LIBSVM_SONAME +
                          " has no " + name + " (not libsvm?)");
  }
  *out = reinterpret_cast<F>(sym);
}

}  // namespace

const Libsvm& libsvm() {
  static std::mutex m;
  static Libsvm loaded;
  static bool ready = false;
  const std::lock_guard<std::mutex> lock(m);
  if (ready) return loaded;
  void* lib = dlopen(GPB_LIBSVM_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    throw InvalidArgument(std::string("task.type: svr_friedman needs libsvm, and ") +
                          GPB_LIBSVM_SONAME + " cannot be loaded (" +
                          (why != nullptr ? why : "unknown reason") +
                          "); on Debian or Ubuntu: apt-get install libsvm3");
  }
  Libsvm l;
  resolve(lib, "svm_train", &l.train);
  resolve(lib, "svm_check_parameter", &l.check_parameter);
  resolve(lib, "svm_free_and_destroy_model", &l.free_and_destroy_model);
  resolve(lib, "svm_set_print_string_function", &l.set_print_string_function);
  loaded = l;  // the handle stays open for the life of the process
  ready = true;
  return loaded;
}

}  // namespace gpb::dpgibo::detail
#endif
