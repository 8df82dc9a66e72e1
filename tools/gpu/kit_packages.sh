# The Debian 12 packages the GPU kit carries to the bare GPU machine (sourced by
# tools/gpu/fetch_deps.sh, tools/gpu/kit_lib.sh and tools/gpu/kit_check.sh). The image there has
# CUDA (nvcc, cuBLAS, cuSOLVER), g++, CMake, ninja and Python, and none of these.
GPB_KIT_PACKAGES=(
  libeigen3-dev        # Eigen3 (headers, CMake config)
  nlohmann-json3-dev   # nlohmann_json (header, CMake config)
  libcli11-dev         # CLI11 (header, CMake config)
  liblbfgspp-dev       # LBFGSpp (headers)
  libgtest-dev         # GoogleTest (static libraries, CMake config)
  libbenchmark-dev     # Google Benchmark (CMake config, libbenchmark.so link)
  libbenchmark1debian  # Google Benchmark (the shared library itself)
  googletest           # GoogleTest sources: built there if the static libgtest does not link
)
