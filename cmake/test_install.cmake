# CTest `InstallConsumer`: installs the build tree to a temporary prefix, then builds and runs
# examples/cpp-consumer against it — its three programs through find_package(gpbandit), main.cpp
# also through pkg-config — and checks the library's SONAME and that neither the library nor the
# CLI can load a library from the current directory (RUNPATH, cmake/runpath_check.cmake). Fails on
# the first step that does not work.
# Usage: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX=... -DSOVERSION=...
#        -P cmake/test_install.cmake
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR CXX SOVERSION)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "test_install.cmake: -D${v}=... is required")
  endif()
endforeach()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_out "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# The library, its SONAME symlink, the headers and the package files are where they should be.
file(GLOB libs ${prefix}/lib*/libgpbandit.so.${SOVERSION})
list(LENGTH libs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one lib*/libgpbandit.so.${SOVERSION} under ${prefix}, found: ${libs}")
endif()
step("readelf" readelf -d ${libs})
if(NOT step_out MATCHES "Library soname: \\[libgpbandit\\.so\\.${SOVERSION}\\]")
  message(FATAL_ERROR "SONAME is not libgpbandit.so.${SOVERSION}:\n${step_out}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/runpath_check.cmake)
gpb_check_runpath(${libs})
gpb_check_runpath(${prefix}/bin/gpbandit)
gpb_check_runpath(${prefix}/bin/gpbandit-main)
gpb_needed(${libs} lib_needed)
gpb_needed(${prefix}/bin/gpbandit-main cli_needed)
# `list` (not --version, which the launcher answers alone) runs gpbandit-main and the library.
gpb_run_in_poisoned_dir(${WORK_DIR}/poisoned NAMES ${lib_needed} ${cli_needed}
                        COMMAND ${prefix}/bin/gpbandit list kernels)
foreach(f include/gpbandit/engine/posterior.hpp include/gpbandit/build_config.hpp
          include/gpbandit/privacy/laplace.hpp bin/gpbandit bin/gpbandit-main
          share/gpbandit/plot_regret.py)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

# 1. CMake package.
step("configure the consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/cpp-consumer
     -B ${WORK_DIR}/consumer -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX}
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
step("build the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
step("run the consumer" ${WORK_DIR}/consumer/consumer)
message(STATUS "find_package consumer: ${step_out}")
foreach(example own_function sharded)  # the other programs docs/ shows verbatim
  step("run the consumer's ${example}" ${WORK_DIR}/consumer/${example})
  message(STATUS "find_package ${example}: ${step_out}")
endforeach()

# 2. pkg-config.
file(GLOB pcdir ${prefix}/lib*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
step("pkg-config" pkg-config --cflags --libs gpbandit)
string(STRIP "${step_out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
get_filename_component(libdir ${libs} DIRECTORY)
step("compile with pkg-config" ${CXX} -std=c++17 -O1 ${SOURCE_DIR}/examples/cpp-consumer/main.cpp
     ${flags} -Wl,-rpath,${libdir} -o ${WORK_DIR}/consumer_pc)
step("run the pkg-config consumer" ${WORK_DIR}/consumer_pc)
message(STATUS "pkg-config consumer: ${step_out}")

# The CLI runs from the prefix and reports the version.
step("gpbandit --version" ${prefix}/bin/gpbandit --version)
message(STATUS "installed CLI: ${step_out}")
file(REMOVE_RECURSE ${WORK_DIR})
