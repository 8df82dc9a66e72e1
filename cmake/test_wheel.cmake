# CTest `PythonWheel` (label `wheel`): builds the wheel as `pip wheel .` does (scikit-build-core,
# pyproject.toml's defaults, CPU only to save time) and checks what a user gets:
#   - the wheel holds gpbandit/__init__.py, the extension and one libgpbandit.so.SOVERSION, the CLI
#     in gpbandit/bin with RUNPATH $ORIGIN/.., and declares the console script `gpbandit`;
#   - neither the library nor the CLI links libsvm (the svr_friedman task loads it on demand);
#   - no empty or relative RUNPATH entry in any shared object of the wheel;
#   - built without MPI by default: libgpbandit needs no libmpi;
#   - unpacked, `import gpbandit` works from a folder holding a garbage file under every library
#     name the package needs, and the loader never tries a relative path (LD_DEBUG=libs).
# Prints "SKIP: ..." (CTest's SKIP_REGULAR_EXPRESSION: skipped) when scikit-build-core is not
# installed for PYTHON
# (`python3 -m pip install scikit-build-core`): the build runs without isolation, offline.
# The wheel's build folder is kept in WORK_DIR/build, so a second run rebuilds only what changed;
# LAUNCHER (e.g. ccache) is passed on as the compiler launcher when given.
# Usage: cmake -DSOURCE_DIR=... -DWORK_DIR=... -DPYTHON=... -DSOVERSION=... [-DLAUNCHER=...]
#        -P cmake/test_wheel.cmake
include(${CMAKE_CURRENT_LIST_DIR}/runpath_check.cmake)
gpb_require_defined(test_wheel.cmake SOURCE_DIR WORK_DIR PYTHON SOVERSION)

execute_process(COMMAND ${PYTHON} -c "import scikit_build_core" RESULT_VARIABLE rc
                OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
  message("SKIP: scikit-build-core is not installed for ${PYTHON} "
          "(${PYTHON} -m pip install scikit-build-core)")
  return()
endif()

set(dist ${WORK_DIR}/dist)
set(unpacked ${WORK_DIR}/unpacked)
file(REMOVE_RECURSE ${dist} ${unpacked} ${WORK_DIR}/poisoned)
set(launcher_args "")
if(LAUNCHER)
  set(launcher_args -Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
execute_process(COMMAND ${PYTHON} -m pip wheel ${SOURCE_DIR} --no-build-isolation --no-deps
                        --disable-pip-version-check -w ${dist} -Cbuild-dir=${WORK_DIR}/build
                        -Ccmake.define.GPB_ENABLE_CUDA=OFF ${launcher_args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip wheel failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB wheels ${dist}/gpbandit-*.whl)
list(LENGTH wheels n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one gpbandit wheel in ${dist}, found: ${wheels}")
endif()
message(STATUS "wheel: ${wheels}")
file(ARCHIVE_EXTRACT INPUT ${wheels} DESTINATION ${unpacked})

set(pkg ${unpacked}/gpbandit)
set(lib ${pkg}/libgpbandit.so.${SOVERSION})
file(GLOB ext ${pkg}/_gpbandit*.so)
foreach(f ${pkg}/__init__.py ${lib} ${ext})
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "the wheel lacks ${f}")
  endif()
endforeach()
file(GLOB_RECURSE shared ${unpacked}/*.so ${unpacked}/*.so.*)
gpb_check_files(needed ${shared})
gpb_needed(${lib} lib_needed)
if(lib_needed MATCHES "libmpi")
  message(FATAL_ERROR "the wheel's library links MPI (${lib_needed}); pyproject.toml builds "
                      "without MPI by default")
endif()
gpb_check_package_cli(${pkg})
file(GLOB entry_points ${unpacked}/gpbandit-*.dist-info/entry_points.txt)
if(NOT entry_points)
  message(FATAL_ERROR "the wheel has no entry_points.txt (console script gpbandit)")
endif()
file(READ ${entry_points} ep)
if(NOT ep MATCHES "\\[console_scripts\\][^[]*gpbandit *= *gpbandit\\._cli:main")
  message(FATAL_ERROR "the wheel does not declare the console script gpbandit:\n${ep}")
endif()
gpb_needed(${pkg}/bin/gpbandit-main cli_needed)
gpb_run_in_poisoned_dir(${WORK_DIR}/poisoned-cli EXPECT "^kernels:" NAMES ${cli_needed}
  COMMAND PYTHONPATH=${unpacked} ${PYTHON} -m gpbandit list kernels)
gpb_run_in_poisoned_dir(${WORK_DIR}/poisoned EXPECT "^${pkg}/__init__.py" NAMES ${needed}
  COMMAND PYTHONPATH=${unpacked} ${PYTHON} -c
          "import numpy as np, gpbandit as g; \
d = g.Domain.grid([0.0], [1.0], [11]); \
p = g.FinitePosterior(g.Context('cpu', threads=1), g.Kernel.se(0.3), d); \
p.observe(np.array([3], np.int32), [1.0]); assert p.rows == 1 and not g.HAS_CUDA; print(g.__file__)")
file(REMOVE_RECURSE ${dist} ${unpacked} ${WORK_DIR}/poisoned)
