# Installation and the CMake package (included from the top-level CMakeLists.txt).
#
#   cmake --install build --prefix /opt/gpbandit
#
# installs
#   lib/libgpbandit.so.<soversion>      the library (SONAME libgpbandit.so.<soversion>), + symlinks
#   include/gpbandit/**.hpp             every public header, and the generated build_config.hpp
#   lib/cmake/gpbandit/                 gpbanditConfig.cmake, ...ConfigVersion.cmake, ...Targets.cmake
#   lib/pkgconfig/gpbandit.pc           for pkg-config
#   bin/gpbandit, share/gpbandit/       the CLI and its plot script
#
# so that a consumer writes `find_package(gpbandit 0.1 REQUIRED)` and
# `target_link_libraries(app PRIVATE gpbandit::gpbandit)` (examples/cpp-consumer).
# The rules name directories, not files: new sources or public headers need no change here.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(GPB_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpbandit)

target_include_directories(gpbandit PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# Consumers compile the public headers as C++17.
target_compile_features(gpbandit PUBLIC cxx_std_17)
# Keep non-system link directories (the CUDA toolkit's lib64 in CUDA builds) in the installed
# library's RUNPATH, so that both the dynamic loader and a consumer's linker find libcudart & co.
# The build tree's library gets the same RUNPATH at link time (BUILD_WITH_INSTALL_RPATH): otherwise
# CMake pads the build RUNPATH with empty entries to make room for the install-time rewrite, and an
# empty entry means "the current directory" to the dynamic loader (any libsvm.so.3 lying there
# would be loaded). The Python package copies this very file (python/CMakeLists.txt).
set_target_properties(gpbandit PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON BUILD_WITH_INSTALL_RPATH ON)
# The CLI finds the library through $ORIGIN/../lib once installed and through $ORIGIN in the build
# tree (build/gpbandit beside build/libgpbandit.so), with one RUNPATH for both: a build RUNPATH that
# CMake rewrites at install time would carry a trailing empty entry (the current directory).
set_target_properties(gpbandit_cli PROPERTIES
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR};$ORIGIN" BUILD_WITH_INSTALL_RPATH ON)

install(TARGETS gpbandit EXPORT gpbanditTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/gpbandit
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
install(FILES ${CMAKE_BINARY_DIR}/include/gpbandit/build_config.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpbandit COMPONENT dev)

install(TARGETS gpbandit_launcher gpbandit_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(FILES ${CMAKE_SOURCE_DIR}/tools/plot_regret.py
  DESTINATION ${CMAKE_INSTALL_DATADIR}/gpbandit COMPONENT runtime)

install(EXPORT gpbanditTargets NAMESPACE gpbandit:: DESTINATION ${GPB_INSTALL_CMAKEDIR}
  COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/gpbanditConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/gpbanditConfig.cmake INSTALL_DESTINATION ${GPB_INSTALL_CMAKEDIR})
# 0.y.z: any minor release may break the API (semver §4), so 0.1 accepts only 0.1.z.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_gpb_compat SameMinorVersion)
else()
  set(_gpb_compat SameMajorVersion)
endif()
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/gpbanditConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${_gpb_compat})
install(FILES ${CMAKE_BINARY_DIR}/cmake/gpbanditConfig.cmake
  ${CMAKE_BINARY_DIR}/cmake/gpbanditConfigVersion.cmake
  DESTINATION ${GPB_INSTALL_CMAKEDIR} COMPONENT dev)

# pkg-config: `pkg-config --cflags --libs gpbandit` (Requires eigen3: the public headers use it;
# C++17 is required).
file(RELATIVE_PATH GPB_PC_RELATIVE_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" GPB_PC_RELATIVE_PREFIX "${GPB_PC_RELATIVE_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/gpbandit.pc.in ${CMAKE_BINARY_DIR}/gpbandit.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/gpbandit.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
