/// @file libsvm_loader.hpp
/// libsvm, loaded when a task first needs it (internal; needs <svm.h>): DP-GIBO's svr_friedman task
/// and the X-armed landmine_svm objective. libgpbandit does not link it: a program or a Python
/// wheel that never runs those needs no libsvm on the machine, and one that does gets one clear
/// message when it is missing.
#pragma once

#include <svm.h>

#include <string>

namespace gpb::detail {

/// The libsvm functions the tasks call.
struct Libsvm {
  decltype(&svm_train) train = nullptr;                                    ///< svm_train
  decltype(&svm_check_parameter) check_parameter = nullptr;                ///< svm_check_parameter
  decltype(&svm_free_and_destroy_model) free_and_destroy_model = nullptr;  ///< svm_free_...
  decltype(&svm_set_print_string_function) set_print_string_function = nullptr;  ///< quiet
  decltype(&svm_predict_values) predict_values = nullptr;  ///< svm_predict_values
};

/// libsvm, dlopen'ed at the first call and kept; thread-safe. The file is the environment's
/// GPB_LIBSVM (a path, or a name) when set, else GPB_LIBSVM_SONAME (e.g. "libsvm.so.3", the SONAME
/// found at build time), looked up by the dynamic loader's usual search: LD_LIBRARY_PATH,
/// libgpbandit's RUNPATH, the system folders; never the current folder.
/// @throws InvalidArgument "<needed_by> needs libsvm, and FILE cannot be loaded (reason); ..."
/// when it cannot be loaded or lacks a function (the next call tries again). `needed_by` names
/// the config field that asked for it, e.g. "task.type: svr_friedman".
const Libsvm& libsvm(const std::string& needed_by);

}  // namespace gpb::detail
