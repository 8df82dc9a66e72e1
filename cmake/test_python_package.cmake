# CTest `PythonPackage`: the Python module cannot be made to load a library from the current
# directory, in the build tree (PYTHONPATH=build/python) and as installed by the component
# `python` (the files and rules that `pip install .` puts into the wheel).
#   1. RUNPATH of the build tree's library, CLI and extension: no empty or relative entry;
#   2. `cmake --install BUILD_DIR --component python` into WORK_DIR/site: the package holds the
#      extension and one copy of the library under its SONAME, with the same RUNPATH rules;
#   3. the CLI and `import gpbandit` (both trees) run in a folder holding a garbage file under every
#      library name they need, under LD_DEBUG=libs: they must work and never try a relative path;
#   4. the installed package's CLI (gpbandit/bin/gpbandit, RUNPATH $ORIGIN/..) runs through
#      `python3 -m gpbandit` (the console script's code) and links no libsvm.
# Usage: cmake -DBUILD_DIR=... -DWORK_DIR=... -DPYTHON=... -DSOVERSION=...
#        -P cmake/test_python_package.cmake
include(${CMAKE_CURRENT_LIST_DIR}/runpath_check.cmake)
gpb_require_defined(test_python_package.cmake BUILD_DIR WORK_DIR PYTHON SOVERSION)
file(REMOVE_RECURSE ${WORK_DIR})

# A short session that exercises the engine through the package found on PYTHONPATH; it prints
# where the package was loaded from so the check below can tell the trees apart.
set(smoke "import numpy as np, gpbandit as g; \
ctx = g.Context('cpu', threads=1); d = g.Domain.grid([0.0], [1.0], [11]); \
p = g.FinitePosterior(ctx, g.Kernel.se(0.3), d); p.observe(np.array([3], np.int32), [1.0]); \
assert p.rows == 1; print(g.__file__)")

function(check_tree label pkg_parent files)
  gpb_check_files(needed ${files})
  gpb_run_in_poisoned_dir(${WORK_DIR}/poisoned-${label} EXPECT "^${pkg_parent}/gpbandit/__init__.py"
                          NAMES ${needed}
                          COMMAND PYTHONPATH=${pkg_parent} ${PYTHON} -c "${smoke}")
endfunction()

# 1. Build tree.
file(GLOB ext_build ${BUILD_DIR}/python/gpbandit/_gpbandit*.so)
set(lib_build ${BUILD_DIR}/libgpbandit.so.${SOVERSION})
if(NOT ext_build OR NOT EXISTS ${lib_build})
  message(FATAL_ERROR "build tree: no extension under ${BUILD_DIR}/python/gpbandit or no ${lib_build}")
endif()
gpb_check_runpath(${BUILD_DIR}/gpbandit)
gpb_check_runpath(${BUILD_DIR}/gpbandit-main)
gpb_needed(${BUILD_DIR}/gpbandit-main cli_needed)
gpb_run_in_poisoned_dir(${WORK_DIR}/poisoned-cli NAMES ${cli_needed}
                        COMMAND ${BUILD_DIR}/gpbandit list kernels)
check_tree(build ${BUILD_DIR}/python "${ext_build};${lib_build}")

# 2. The component `python`, as scikit-build-core installs it.
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --component python
                        --prefix ${WORK_DIR}/site
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install --component python failed (${rc}):\n${out}\n${err}")
endif()
set(pkg ${WORK_DIR}/site/gpbandit)
file(GLOB ext_site ${pkg}/_gpbandit*.so)
foreach(f ${pkg}/__init__.py ${pkg}/libgpbandit.so.${SOVERSION} ${ext_site})
  if(NOT EXISTS ${f} OR IS_SYMLINK ${f})
    message(FATAL_ERROR "component python: ${f} missing or a symlink (a wheel holds plain files)")
  endif()
endforeach()
check_tree(site ${WORK_DIR}/site "${ext_site};${pkg}/libgpbandit.so.${SOVERSION}")
# The console script's program: `python3 -m gpbandit list` runs gpbandit/bin/gpbandit, which runs
# gpbandit-main beside it.
gpb_check_package_cli(${pkg})
gpb_needed(${pkg}/bin/gpbandit-main cli_site_needed)
gpb_run_in_poisoned_dir(${WORK_DIR}/poisoned-site-cli EXPECT "^kernels:" NAMES ${cli_site_needed}
                        COMMAND PYTHONPATH=${WORK_DIR}/site ${PYTHON} -m gpbandit list kernels)
file(REMOVE_RECURSE ${WORK_DIR})
