# Functions of the GPU kit, sourced by bench/run_gpu_checks.sh, bench/run_gpu_sanitizers.sh and
# tools/gpu/kit_check.sh. Every stage prints one honest line, "PASS: …" or "FAIL: …", into the
# summary; nothing here hides a failure behind a zero exit code.
#
# Settings (environment): OUT (output folder; default gpu-out), GPB_KIT_BUILD (build folder;
# default build-gpu), GPB_KIT_DEPS (the .deb folder; default .deps), GPB_KIT_PREFIX (where the
# .debs are unpacked; default /tmp/gpb-kit-prefix), GPB_KIT_JOBS (build jobs; default nproc),
# GPB_KIT_LAUNCHER (compiler launcher such as ccache; default none), GPB_KIT_DEADLINE_S (seconds
# the whole script may take; default 540), GPB_KIT_BUILD_CAP_S (seconds the build may take;
# default 480).

# shellcheck source=tools/gpu/kit_packages.sh
source "$(dirname "${BASH_SOURCE[0]}")/kit_packages.sh"

KIT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KIT_OUT=${OUT:-$KIT_ROOT/gpu-out}
KIT_BUILD=${GPB_KIT_BUILD:-$KIT_ROOT/build-gpu}
KIT_DEPS=${GPB_KIT_DEPS:-$KIT_ROOT/.deps}
KIT_PREFIX=${GPB_KIT_PREFIX:-/tmp/gpb-kit-prefix}
KIT_JOBS=${GPB_KIT_JOBS:-$(nproc)}
KIT_DEADLINE=$((SECONDS + ${GPB_KIT_DEADLINE_S:-540}))
KIT_FIRST_FAIL=""
KIT_SUMMARY=""

# kit_start NAME: opens $KIT_OUT/NAME as the summary (one PASS/FAIL line per stage).
kit_start() {
  mkdir -p "$KIT_OUT"
  KIT_SUMMARY="$KIT_OUT/$1"
  : >"$KIT_SUMMARY"
}

# kit_say LINE: prints LINE and appends it to the summary.
kit_say() {
  echo "$*" | tee -a "$KIT_SUMMARY"
}

# kit_verdict LINE: a PASS/FAIL line; the first FAIL becomes the script's final line.
kit_verdict() {
  kit_say "$1"
  if [[ $1 == FAIL:* && -z $KIT_FIRST_FAIL ]]; then KIT_FIRST_FAIL=$1; fi
}

# kit_finish: prints the final line (the first FAIL, or "PASS: <what>") and exits 0 or 1.
kit_finish() {
  kit_say "---- $(date -u +%FT%TZ), $((SECONDS))s"
  if [[ -n $KIT_FIRST_FAIL ]]; then
    kit_say "$KIT_FIRST_FAIL"
    exit 1
  fi
  kit_say "PASS: $1"
  exit 0
}

# kit_left: seconds left before the deadline.
kit_left() {
  echo $((KIT_DEADLINE - SECONDS))
}

# kit_budget CAP: the timeout for a stage: min(CAP, time left − 20 s), at least 1.
kit_budget() {
  local left=$(($(kit_left) - 20))
  ((left > $1)) && left=$1
  ((left < 1)) && left=1
  echo "$left"
}

# kit_unpack_deb DEB DIR: `dpkg -x DEB DIR`, or `ar` + `tar` where there is no dpkg.
kit_unpack_deb() {
  if command -v dpkg >/dev/null 2>&1; then
    dpkg -x "$1" "$2"
    return
  fi
  local tmp member rc
  tmp=$(mktemp -d)
  member=$(cd "$tmp" && ar t "$1" | grep '^data\.tar')
  (cd "$tmp" && ar x "$1" "$member") && tar -xf "$tmp/$member" -C "$2"
  rc=$?
  rm -rf "$tmp"
  return $rc
}

# kit_unpack: checks .deps against its MANIFEST and unpacks every .deb into $KIT_PREFIX.
kit_unpack() {
  local p f
  if [[ ! -f $KIT_DEPS/MANIFEST ]]; then
    kit_verdict "FAIL: no $KIT_DEPS/MANIFEST: run tools/gpu/fetch_deps.sh where apt works and carry .deps"
    return 1
  fi
  (cd "$KIT_DEPS" && while read -r p _ sum f; do
    echo "$sum  $f"
  done <MANIFEST | sha256sum --quiet -c -) || {
    kit_verdict "FAIL: .deps does not match its MANIFEST (re-run tools/gpu/fetch_deps.sh)"
    return 1
  }
  for p in "${GPB_KIT_PACKAGES[@]}"; do
    grep -q "^$p " "$KIT_DEPS/MANIFEST" || {
      kit_verdict "FAIL: .deps lacks $p (re-run tools/gpu/fetch_deps.sh)"
      return 1
    }
  done
  rm -rf "$KIT_PREFIX"
  mkdir -p "$KIT_PREFIX"
  for f in "$KIT_DEPS"/*.deb; do kit_unpack_deb "$f" "$KIT_PREFIX" || {
    kit_verdict "FAIL: unpacking $(basename "$f") failed"
    return 1
  }; done
  kit_verdict "PASS: unpacked ${#GPB_KIT_PACKAGES[@]} packages into $KIT_PREFIX"
}

# kit_nvcc: puts the CUDA toolkit's bin folder on PATH when nvcc is not there already (CMake looks
# for nvcc only on PATH, CUDACXX and CUDA_PATH).
kit_nvcc() {
  local d
  if ! command -v nvcc >/dev/null 2>&1; then
    for d in $(ls -d /usr/local/cuda*/bin /usr/local/cuda/bin 2>/dev/null | sort -rV); do
      if [[ -x $d/nvcc ]]; then
        export PATH="$d:$PATH"
        break
      fi
    done
  fi
  if command -v nvcc >/dev/null 2>&1; then
    kit_verdict "PASS: nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') at $(command -v nvcc)"
  else
    kit_verdict "FAIL: nvcc not found on PATH nor in /usr/local/cuda*/bin"
    return 1
  fi
}

# kit_gtest: the CMake prefix path for GoogleTest: the unpacked libgtest-dev when a test program
# links against it with this machine's compiler, else GoogleTest built from the unpacked sources.
# Prints the prefix path to use (stdout); logs to $1.
kit_gtest() {
  local log=$1 usr=$KIT_PREFIX/usr lib tmp
  lib=$(dirname "$(ls "$usr"/lib/*/libgtest.a 2>/dev/null | head -n1)")
  tmp=$(mktemp -d)
  printf '#include <gtest/gtest.h>\nTEST(Kit, Links) { EXPECT_EQ(1, 1); }\n' >"$tmp/t.cpp"
  if g++ -std=c++17 -I"$usr/include" "$tmp/t.cpp" "$lib/libgtest_main.a" "$lib/libgtest.a" \
    -pthread -o "$tmp/t" >>"$log" 2>&1 && "$tmp/t" >>"$log" 2>&1; then
    rm -rf "$tmp"
    echo "$usr"
    return 0
  fi
  echo "kit: the packaged static GoogleTest does not link here; building it from source" >>"$log"
  local src=$usr/src/googletest gt=$KIT_PREFIX/gtest
  cmake -S "$src" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=OFF \
    -DCMAKE_INSTALL_PREFIX="$gt" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 >>"$log" 2>&1 &&
    cmake --build "$tmp/build" -j "$KIT_JOBS" >>"$log" 2>&1 &&
    cmake --install "$tmp/build" >>"$log" 2>&1 || {
    rm -rf "$tmp"
    return 1
  }
  rm -rf "$tmp"
  echo "$gt;$usr"
}

# kit_configure LOG: configures $KIT_BUILD from the unpacked packages (Ninja; Python module, MPI
# and fuzzing off) and requires the CUDA backend to be enabled.
kit_configure() {
  local log=$1 prefix launcher=()
  prefix=$(kit_gtest "$log") || {
    kit_verdict "FAIL: GoogleTest neither links from libgtest-dev nor builds from googletest (see $(basename "$log"))"
    return 1
  }
  if [[ -n ${GPB_KIT_LAUNCHER:-} ]]; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$GPB_KIT_LAUNCHER" -DCMAKE_CUDA_COMPILER_LAUNCHER="$GPB_KIT_LAUNCHER")
  fi
  if ! cmake -S "$KIT_ROOT" -B "$KIT_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    -DGPB_BUILD_PYTHON=OFF -DGPB_ENABLE_MPI=OFF -DGPB_FUZZ_SHORT=OFF -DGPB_BUILD_TESTS=ON \
    -DGPB_BUILD_BENCH=ON -DGPB_ENABLE_CUDA=ON -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    "${launcher[@]}" >>"$log" 2>&1; then
    kit_verdict "FAIL: configure failed (see $(basename "$log"))"
    return 1
  fi
  if ! grep -q "gpbandit: CUDA backend enabled" "$log"; then
    kit_verdict "FAIL: configure did not enable the CUDA backend (no nvcc found by CMake; see $(basename "$log"))"
    return 1
  fi
  if ! grep -q "define GPB_HAS_CUDA 1" "$KIT_BUILD/include/gpbandit/build_config.hpp"; then
    kit_verdict "FAIL: build_config.hpp says GPB_HAS_CUDA 0"
    return 1
  fi
  kit_verdict "PASS: configured with the CUDA backend ($(sed -n 's/.*CUDA backend enabled (\(.*\))/\1/p' "$log" | tail -n1)), GoogleTest from ${prefix%%;*}"
}

# kit_targets EXTRA...: the library, the CLI (and its launcher), every test_cuda_* test and the EXTRA targets.
kit_targets() {
  local f
  echo gpbandit gpbandit_cli gpbandit_launcher
  for f in "$KIT_ROOT"/tests/test_cuda_*.cpp; do basename "$f" .cpp; done
  echo "$@"
}

# kit_one_runtime: PASS when the built libgpbandit.so depends on the shared libstdc++ (one C++
# runtime per process), FAIL when it carries a static copy: the GPU image's default compiler
# (/opt/gcc/bin/g++, 2026-11-27) linked libstdc++.a into every shared object, and the Python
# module then crashed in its first std::ofstream (cmake/shared_libstdcxx.cmake is the fix).
kit_one_runtime() {
  local lib=$KIT_BUILD/libgpbandit.so compiler
  compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$KIT_BUILD/CMakeCache.txt" 2>/dev/null)
  if objdump -p "$lib" 2>/dev/null | grep -q 'NEEDED *libstdc++\.so'; then
    kit_verdict "PASS: libgpbandit.so links the shared libstdc++ (compiler $compiler)"
  else
    kit_verdict "FAIL: libgpbandit.so carries its own libstdc++ (compiler $compiler; see cmake/shared_libstdcxx.cmake)"
    return 1
  fi
}

# kit_build LOG TARGETS...: builds only those targets.
kit_build() {
  local log=$1
  shift
  local t0=$SECONDS
  if ! timeout "$(kit_budget "${GPB_KIT_BUILD_CAP_S:-480}")" cmake --build "$KIT_BUILD" -j "$KIT_JOBS" --target "$@" >>"$log" 2>&1; then
    kit_verdict "FAIL: build failed or timed out (see $(basename "$log"))"
    return 1
  fi
  kit_verdict "PASS: built $# targets in $((SECONDS - t0)) s"
}

# kit_ctest_verdict LOG RC: the verdict of `ctest -L gpu` from its output: FAIL when any test
# failed, was skipped or did not run, or when none ran; PASS only when every test passed.
kit_ctest_verdict() {
  local log=$1 rc=$2 total failed skipped notrun
  if grep -q "No tests were found" "$log"; then
    echo "FAIL: no gpu tests ran (ctest found none)"
    return 1
  fi
  total=$(sed -n 's/.*tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\).*/\2/p' "$log" | tail -n1)
  failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\).*/\1/p' "$log" | tail -n1)
  if [[ -z $total ]]; then
    # CMake 4 drops ", 0 tests failed" when none failed: "100% tests passed out of 50".
    total=$(sed -n 's/.*100% tests passed out of \([0-9]*\).*/\1/p' "$log" | tail -n1)
    failed=0
  fi
  if [[ -z $total ]]; then
    echo "FAIL: gpu tests: no ctest summary (ctest exit code $rc)"
    return 1
  fi
  skipped=$(grep -Ec '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$log" || true)
  notrun=$(grep -Ec '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Not Run' "$log" || true)
  if ((total == 0)); then
    echo "FAIL: no gpu tests ran (0 tests)"
    return 1
  fi
  if ((failed > 0)); then
    echo "FAIL: gpu tests failed ($failed of $total failed, $skipped skipped)"
    return 1
  fi
  if ((skipped > 0)); then
    echo "FAIL: gpu tests were skipped ($skipped of $total skipped)"
    return 1
  fi
  if ((notrun > 0)); then
    echo "FAIL: gpu tests did not run ($notrun of $total not run)"
    return 1
  fi
  if ((rc != 0)); then
    echo "FAIL: gpu tests: ctest exit code $rc"
    return 1
  fi
  echo "PASS: gpu tests ($total of $total passed)"
}

# kit_source_digest: sha256 over the sources that make the build (the device copy has no .git).
kit_source_digest() {
  (cd "$KIT_ROOT" && find CMakeLists.txt cmake include src kernels tests bench tools -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.txt' \
    -o -name '*.cmake' -o -name '*.in' -o -name '*.sh' -o -name '*.py' \) -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
}

# kit_find_tool NAME: NAME on PATH, else under the CUDA toolkits and /opt/nvidia.
kit_find_tool() {
  local f
  if command -v "$1" >/dev/null 2>&1; then
    command -v "$1"
    return 0
  fi
  for f in $(ls -d /usr/local/cuda*/bin/"$1" /usr/local/cuda*/*/bin/"$1" /opt/nvidia/*/*/"$1" \
    /opt/nvidia/*/"$1" 2>/dev/null | sort -rV); do
    [[ -x $f ]] && {
      echo "$f"
      return 0
    }
  done
  return 1
}

# kit_python_module LOG: adds the Python module to $KIT_BUILD (reconfigure with GPB_BUILD_PYTHON=ON
# for the python3 on PATH, pybind11 from that Python) and builds it. An extra stage: it says
# "SKIP: …" (never FAIL) when that Python has no headers or pybind11, and switches the module
# off again when the configure fails, so the build folder stays as the gpu tests used it.
kit_python_module() {
  local log=$1 py t0=$SECONDS
  py=$(command -v python3) || {
    kit_say "SKIP: Python module: no python3 on PATH"
    return 1
  }
  if ! "$py" -c 'import os, sysconfig, pybind11; assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' >>"$log" 2>&1; then
    kit_say "SKIP: Python module: $py lacks pybind11 or its C headers (Python.h)"
    return 1
  fi
  if ! cmake -S "$KIT_ROOT" -B "$KIT_BUILD" -DGPB_BUILD_PYTHON=ON -DPython_EXECUTABLE="$py" >>"$log" 2>&1; then
    cmake -S "$KIT_ROOT" -B "$KIT_BUILD" -DGPB_BUILD_PYTHON=OFF >>"$log" 2>&1
    kit_say "SKIP: Python module: configure failed (see $(basename "$log"))"
    return 1
  fi
  if ! timeout "$(kit_budget 120)" cmake --build "$KIT_BUILD" -j "$KIT_JOBS" --target _gpbandit >>"$log" 2>&1; then
    kit_say "SKIP: Python module: build failed or timed out (see $(basename "$log"))"
    return 1
  fi
  kit_say "PASS: Python module built in $((SECONDS - t0)) s"
}
