/// @file libsvm_loader.hpp
/// libsvm, loaded when the SVR task first needs it (internal; needs <svm.h>). libgpbandit does not
/// link it: a program or a Python wheel that never runs the svr_friedman task needs no libsvm on
/// the machine, and one that does gets one clear message when it is missing.
#pragma once

#include <svm.h>

namespace gpb::dpgibo::detail {

/// The libsvm functions the SVR task calls.
struct Libsvm {
  decltype(&svm_train) train = nullptr;                                    ///< svm_train
  decltype(&svm_check_parameter) check_parameter = nullptr;                ///< svm_check_parameter
  decltype(&svm_free_and_destroy_model) free_and_destroy_model = nullptr;  ///< svm_free_...
  decltype(&svm_set_print_string_function) set_print_string_function = nullptr;  ///< quiet
};

/// libsvm, dlopen'ed at the first call and kept; thread-safe. The file is the environment's
/// GPB_LIBSVM (a path, or a name) when set, else GPB_LIBSVM_SONAME (e.g. "libsvm.so.3", the SONAME
/// found at build time), looked up by the dynamic loader's usual search: LD_LIBRARY_PATH,
/// libgpbandit's RUNPATH, the system folders; never the current folder.
/// @throws InvalidArgument naming the library and the loader's reason when it cannot be loaded or
/// lacks a function (the next call tries again).
const Libsvm& libsvm();

}  // namespace gpb::dpgibo::detail
