# Checks shared by the install, Python package and wheel tests (included by cmake/test_*.cmake):
# a binary's RPATH/RUNPATH must not make the dynamic loader search the current directory.
#
#   gpb_check_runpath(FILE)      fails on an empty entry (leading, trailing or doubled ':', which
#                                the loader reads as the current directory) or a relative one;
#                                absolute entries and $ORIGIN-based ones are accepted.
#   gpb_needed(FILE OUT_VAR)     the DT_NEEDED names of FILE.
#   gpb_check_files(OUT_VAR FILES...)
#                                gpb_check_runpath on each file; OUT_VAR = every library name they
#                                need (for gpb_run_in_poisoned_dir).
#   gpb_check_package_cli(PKG)   PKG/bin/gpbandit (the launcher the console script runs) and
#                                PKG/bin/gpbandit-main (the CLI it runs) are plain files, the
#                                latter's RUNPATH is exactly $ORIGIN/.. (the package folder) and
#                                neither needs libsvm; PKG/bin holds the plot script.
#   gpb_run_in_poisoned_dir(DIR [EXPECT <regex>] NAMES <names...> COMMAND <cmd...>)
#                                writes a garbage file under each name into DIR (as an attacker
#                                would drop libsvm.so.3 into a download folder), runs the command
#                                there with LD_DEBUG=libs, and fails if it does not succeed or if the
#                                loader tried any library file through a relative path, or if its
#                                standard output does not match EXPECT.

# gpb_require_defined(SCRIPT VARS...): fails unless every -DVAR=... was given to the script.
function(gpb_require_defined script)
  foreach(v IN LISTS ARGN)
    if(NOT DEFINED ${v})
      message(FATAL_ERROR "${script}: -D${v}=... is required")
    endif()
  endforeach()
endfunction()

function(gpb_check_runpath file)
  execute_process(COMMAND readelf -d ${file} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf -d ${file} failed (${rc}): ${err}")
  endif()
  string(REGEX MATCHALL "Library (rpath|runpath): \\[[^]\n]*\\]" entries "${out}")
  foreach(e IN LISTS entries)
    string(REGEX REPLACE "^Library (rpath|runpath): \\[(.*)\\]$" "\\2" paths "${e}")
    if(paths STREQUAL "" OR paths MATCHES "^:" OR paths MATCHES "::" OR paths MATCHES ":$")
      message(FATAL_ERROR "${file}: empty RUNPATH entry (the current directory): [${paths}]")
    endif()
    string(REPLACE ":" ";" list "${paths}")
    foreach(p IN LISTS list)
      if(NOT p MATCHES "^(/|\\$ORIGIN|\\$\\{ORIGIN\\})")
        message(FATAL_ERROR "${file}: relative RUNPATH entry '${p}' in [${paths}]")
      endif()
    endforeach()
    message(STATUS "RUNPATH ok: ${file}: [${paths}]")
  endforeach()
endfunction()

function(gpb_needed file out_var)
  execute_process(COMMAND readelf -d ${file} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf -d ${file} failed (${rc})")
  endif()
  string(REGEX MATCHALL "Shared library: \\[[^]]*\\]" lines "${out}")
  set(names "")
  foreach(l IN LISTS lines)
    string(REGEX REPLACE "^Shared library: \\[(.*)\\]$" "\\1" n "${l}")
    list(APPEND names ${n})
  endforeach()
  set(${out_var} ${names} PARENT_SCOPE)
endfunction()

function(gpb_check_files out_var)
  set(needed "")
  foreach(f IN LISTS ARGN)
    gpb_check_runpath(${f})
    gpb_needed(${f} n)
    list(APPEND needed ${n})
  endforeach()
  list(REMOVE_DUPLICATES needed)
  set(${out_var} ${needed} PARENT_SCOPE)
endfunction()

function(gpb_check_package_cli pkg)
  set(cli ${pkg}/bin/gpbandit-main)
  foreach(f ${pkg}/bin/gpbandit ${cli})
    if(NOT EXISTS ${f} OR IS_SYMLINK ${f})
      message(FATAL_ERROR "${pkg}/bin: no ${f} program (a plain file)")
    endif()
  endforeach()
  if(NOT EXISTS ${pkg}/bin/plot_regret.py)
    message(FATAL_ERROR "${pkg}/bin: no plot_regret.py")
  endif()
  execute_process(COMMAND readelf -d ${cli} OUTPUT_VARIABLE out)
  if(NOT out MATCHES "Library runpath: \\[\\$ORIGIN/\\.\\.\\]")
    string(REGEX MATCH "Library r[a-z]*path: [^\n]*" got "${out}")
    message(FATAL_ERROR "${cli}: RUNPATH must be [$ORIGIN/..], got '${got}'")
  endif()
  gpb_needed(${cli} n)
  gpb_needed(${pkg}/libgpbandit.so.${SOVERSION} l)
  if("${n};${l}" MATCHES "libsvm")
    message(FATAL_ERROR "the package's CLI or library links libsvm (${n} ${l}): it is loaded on "
                        "demand by the svr_friedman task only")
  endif()
  message(STATUS "packaged CLI ok: ${cli}")
endfunction()

function(gpb_run_in_poisoned_dir dir)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "EXPECT" "NAMES;COMMAND")
  file(MAKE_DIRECTORY ${dir})
  foreach(n IN LISTS arg_NAMES)
    file(WRITE ${dir}/${n} "not a shared library\n")
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_DEBUG=libs ${arg_COMMAND}
                  WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REGEX MATCHALL "[^\n]*(error|Error)[^\n]*" errors "${err}")
    message(FATAL_ERROR "`${arg_COMMAND}` failed (${rc}) in a directory holding garbage files "
                        "named ${arg_NAMES}:\n${errors}")
  endif()
  string(REGEX MATCHALL "trying file=[^/\n][^\n]*" relative "${err}")
  if(relative)
    message(FATAL_ERROR "`${arg_COMMAND}`: the loader searched the current directory: ${relative}")
  endif()
  if(DEFINED arg_EXPECT AND NOT out MATCHES "${arg_EXPECT}")
    message(FATAL_ERROR "`${arg_COMMAND}`: output does not match '${arg_EXPECT}':\n${out}")
  endif()
  message(STATUS "no library loaded from the current directory: ${arg_COMMAND}")
endfunction()
