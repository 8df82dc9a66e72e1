# One libstdc++ per process. Some toolchains link libstdc++ statically into every shared object
# they build: a wrapper compiler passing -static-libstdc++, or a GCC tree whose libstdc++.so is
# missing so that the linker falls back to libstdc++.a (the GPU image's /opt/gcc/bin/g++, seen on
# an H200 on 2026-11-27). Then libgpbandit.so and the Python module each carry their own copy of
# the C++ runtime, and the first std::ofstream the library writes inside `python3` crashes in
# the locale code (SIGSEGV in basic_ostream::_M_insert, from Context's core claim). This file
# links a small shared object with the configured compiler, asks whether it depends on
# libstdc++.so, and when it does not, puts the shared runtime on every C++ and CUDA link line
# (CMAKE_<LANG>_STANDARD_LIBRARIES come before the driver's own -lstdc++, so the archive then
# supplies nothing). The answer is cached (GPB_LIBSTDCXX_SHARED_LINK: the library, or empty).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  return()
endif()

function(gpb_probe_libstdcxx out)
  set(dir ${CMAKE_BINARY_DIR}/CMakeFiles/gpb_libstdcxx_check)
  file(MAKE_DIRECTORY ${dir})
  file(WRITE ${dir}/probe.cpp "#include <sstream>\n"
                              "int gpb_probe(long v) { std::ostringstream s; s << v; "
                              "return int(s.str().size()); }\n")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -shared -fPIC ${dir}/probe.cpp -o ${dir}/probe.so
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  set(${out} "" PARENT_SCOPE)
  if(NOT rc EQUAL 0)
    message(STATUS "gpbandit: could not link the libstdc++ probe (${err}); not checked")
    return()
  endif()
  if(NOT CMAKE_OBJDUMP)
    message(STATUS "gpbandit: no objdump to read the libstdc++ probe; not checked")
    return()
  endif()
  execute_process(COMMAND ${CMAKE_OBJDUMP} -p ${dir}/probe.so OUTPUT_VARIABLE headers ERROR_QUIET)
  if(headers MATCHES "NEEDED +libstdc\\+\\+\\.so")
    return()
  endif()
  find_library(so NAMES libstdc++.so.6 HINTS ${CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES} NO_CACHE)
  if(so)
    message(STATUS "gpbandit: ${CMAKE_CXX_COMPILER} links libstdc++ statically into shared "
                   "objects; linking ${so} instead (one C++ runtime per process)")
    set(${out} ${so} PARENT_SCOPE)
  else()
    message(WARNING "gpbandit: ${CMAKE_CXX_COMPILER} links libstdc++ statically into shared "
                    "objects and no libstdc++.so.6 was found: the Python module may crash. "
                    "Configure with a compiler that links it dynamically "
                    "(-DCMAKE_CXX_COMPILER=/usr/bin/g++).")
  endif()
endfunction()

if(NOT DEFINED CACHE{GPB_LIBSTDCXX_SHARED_LINK})
  gpb_probe_libstdcxx(_gpb_link)
  set(GPB_LIBSTDCXX_SHARED_LINK "${_gpb_link}" CACHE INTERNAL
      "shared libstdc++ put on every link line (empty: the compiler links it dynamically)")
endif()
if(GPB_LIBSTDCXX_SHARED_LINK)
  string(APPEND CMAKE_CXX_STANDARD_LIBRARIES " ${GPB_LIBSTDCXX_SHARED_LINK}")
  string(APPEND CMAKE_CUDA_STANDARD_LIBRARIES " ${GPB_LIBSTDCXX_SHARED_LINK}")
endif()
