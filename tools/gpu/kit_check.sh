#!/usr/bin/env bash
# `make gpu-kit-check`: proves, on this machine, that the GPU kit builds from the carried .debs
# alone. As root, in a private mount namespace (unshare -m), empty folders and empty files are
# bind-mounted over every system copy of the kit's packages (their headers, libraries, CMake
# configs and pkg-config files, as `dpkg -L` lists them: tools/gpu/hidden_paths.py), so the
# system's Eigen, nlohmann-json, CLI11, LBFGSpp, GoogleTest and Google Benchmark are gone; then
# bench/run_gpu_checks.sh runs as on the GPU machine (unpack, configure with CUDA, build, ctest
# -L gpu). Without a GPU its honest last line must be "FAIL: gpu tests were skipped (…)"; this
# script checks that line, that no system copy stayed visible, and that CMake found every package
# under the kit's prefix. Exit 0 when all hold, 1 otherwise, 77 when it cannot run here (not root,
# no unshare, no nvcc). Build folder: build-kit-check (ccache used when installed).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/gpu/kit_packages.sh
source "$root/tools/gpu/kit_packages.sh"

if [[ ${1:-} != --inside ]]; then
  [[ $(id -u) == 0 ]] || { echo "gpu-kit-check: needs root (mount namespaces, bind mounts)"; exit 77; }
  command -v unshare >/dev/null || { echo "gpu-kit-check: unshare not found"; exit 77; }
  unshare -m true 2>/dev/null || { echo "gpu-kit-check: unshare -m is not permitted here"; exit 77; }
  command -v nvcc >/dev/null || ls /usr/local/cuda*/bin/nvcc >/dev/null 2>&1 ||
    { echo "gpu-kit-check: no nvcc here: the kit requires the CUDA backend"; exit 77; }
  "$root/tools/gpu/fetch_deps.sh" >/dev/null
  exec unshare -m --propagation private bash "$0" --inside
fi

# ---- inside the private mount namespace
fail() { echo "gpu-kit-check: FAIL: $*"; exit 1; }
empty_dir=$(mktemp -d)
empty_file=$(mktemp)
n=0
while read -r kind path; do
  if [[ $kind == dir ]]; then mount --bind "$empty_dir" "$path"; else mount --bind "$empty_file" "$path"; fi
  n=$((n + 1))
done < <(python3 "$root/tools/gpu/hidden_paths.py" "${GPB_KIT_PACKAGES[@]}")
# Nothing of the packages may remain readable: every listed file is gone or empty.
for p in "${GPB_KIT_PACKAGES[@]}"; do
  while read -r f; do
    [[ $f == /usr/share/doc* || $f == /. || -d $f ]] && continue
    if [[ -s $f ]]; then fail "$f ($p) is still visible"; fi
  done < <(dpkg -L "$p")
done
echo "gpu-kit-check: hid the system copies of ${#GPB_KIT_PACKAGES[@]} packages ($n bind mounts)"

build=$root/build-kit-check
out=$(mktemp -d)
launcher=""
command -v ccache >/dev/null && launcher=ccache
set +e
OUT=$out GPB_KIT_BUILD=$build GPB_KIT_PREFIX=/tmp/gpb-kit-check-prefix GPB_KIT_LAUNCHER=$launcher \
  GPB_KIT_DEADLINE_S=${GPB_KIT_CHECK_DEADLINE_S:-7200} GPB_KIT_BUILD_CAP_S=6600 \
  GPB_KIT_JOBS=${GPB_KIT_JOBS:-$(nproc)} \
  bash "$root/bench/run_gpu_checks.sh" | tee "$out/kit.txt"
set -e
last=$(tail -n1 "$out/kit.txt")
for v in Eigen3_DIR nlohmann_json_DIR CLI11_DIR GTest_DIR benchmark_DIR GPB_LBFGSPP_INCLUDE_DIR; do
  val=$(sed -n "s/^$v:[A-Z]*=//p" "$build/CMakeCache.txt")
  [[ $val == /tmp/gpb-kit-check-prefix/* ]] || fail "$v = '$val' is not under the kit's prefix"
done
echo "gpu-kit-check: every package found under the kit's prefix (CMakeCache.txt)"
[[ $last == "FAIL: gpu tests were skipped"* ]] ||
  fail "the kit's last line is '$last', expected 'FAIL: gpu tests were skipped (…)' (logs in $out)"
grep -q "^PASS: gpu tests" "$out/summary.txt" && fail "the kit claimed PASS for gpu tests on a machine without a GPU"
echo "gpu-kit-check: PASS (the kit built from .deps alone and reported: $last)"
