#!/usr/bin/env bash
# The second call of the GPU kit, on the same warm machine (bench/README.md, "GPU kit"): under
# CUDA_LAUNCH_BLOCKING=1, compute-sanitizer memcheck with leak checking on every test_cuda_*
# binary, racecheck and synccheck on the kernel tests (kernel matrix and derivatives, UCB argmax,
# posterior kernels), then an Nsight Compute profile of one incremental GP-UCB round at N = 10^6.
# Reuses the build of bench/run_gpu_checks.sh when it is there (the machine stayed warm), else
# unpacks .deps and builds the targets it needs first. One PASS/FAIL line per check; the last
# line is the verdict. Ends within GPB_KIT_DEADLINE_S (default 540 s).
#
# Files under $OUT (≤ 7): sanitizers.txt, memcheck.log, racecheck.log, synccheck.log,
# ncu_round.ncu-rep, ncu_round.txt, build.log (only when it had to build).
set -uo pipefail
# shellcheck source=tools/gpu/kit_lib.sh
source "$(dirname "$0")/../tools/gpu/kit_lib.sh"
cd "$KIT_ROOT" || exit 2
kit_start sanitizers.txt
out=$KIT_OUT
export CUDA_LAUNCH_BLOCKING=1

mapfile -t tests < <(kit_targets | tr ' ' '\n' | grep '^test_cuda_')
need_build=0
for t in "${tests[@]}"; do [[ -x $KIT_BUILD/tests/$t ]] || need_build=1; done
[[ -x $KIT_BUILD/bench/cuda_one_round ]] || need_build=1
if ((need_build)); then
  log=$out/build.log
  : >"$log"
  kit_unpack && kit_nvcc && kit_configure "$log" &&
    kit_build "$log" $(kit_targets cuda_one_round) || kit_finish "sanitizers"
else
  kit_nvcc >/dev/null
  kit_say "PASS: reusing the build in $KIT_BUILD"
fi

san=$(kit_find_tool compute-sanitizer) || {
  kit_verdict "FAIL: compute-sanitizer not found"
  san=""
}
# Tests that fill the device on purpose leave the sanitizer no room: not run under it.
exclude='-*NearlyFull*'

# run_san TOOL LOG BINARY CAP [ARGS...]: one binary under one tool; PASS only with 0 errors.
run_san() {
  local tool=$1 log=$2 bin=$3 cap=$4
  shift 4
  local t0=$SECONDS budget rc summary
  budget=$(kit_budget "$cap")
  if ((budget < 10)); then
    kit_verdict "FAIL: $tool $bin not run: no time left"
    return
  fi
  echo "==== $tool $bin $*" >>"$log"
  timeout "$budget" "$san" --tool "$tool" --error-exitcode 86 "$@" \
    "$KIT_BUILD/tests/$bin" --gtest_filter="$exclude" >>"$log" 2>&1
  rc=$?
  summary=$(grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY" "$log" | tail -n1)
  if ((rc == 0)); then
    kit_verdict "PASS: $tool $bin ($((SECONDS - t0)) s; ${summary:-no summary line})"
  elif ((rc == 124)); then
    kit_verdict "FAIL: $tool $bin timed out after $budget s"
  elif ((rc == 86)); then
    kit_verdict "FAIL: $tool $bin found errors: ${summary:-see $(basename "$log")}"
  else
    kit_verdict "FAIL: $tool $bin exited with $rc (a test failed under the tool; see $(basename "$log"))"
  fi
}

if [[ -n $san ]]; then
  : >"$out/memcheck.log"
  for t in "${tests[@]}"; do
    run_san memcheck "$out/memcheck.log" "$t" 120 --leak-check full
  done
  : >"$out/racecheck.log"
  : >"$out/synccheck.log"
  for t in test_cuda_ops test_cuda_kernel_derivative test_cuda_posterior; do
    run_san racecheck "$out/racecheck.log" "$t" 90 --racecheck-report all
    run_san synccheck "$out/synccheck.log" "$t" 60
  done
fi

# Nsight Compute: every kernel of one incremental round (argmax, gather, append) at N = 10^6,
# t = 100, between cudaProfilerStart/Stop in bench/cuda_one_round.
ncu=$(kit_find_tool ncu) || ncu=""
if [[ -z $ncu ]]; then
  kit_verdict "FAIL: ncu (Nsight Compute) not found"
else
  t0=$SECONDS
  unset CUDA_LAUNCH_BLOCKING
  if timeout "$(kit_budget 180)" "$ncu" --profile-from-start off --set full --force-overwrite \
    -o "$out/ncu_round" "$KIT_BUILD/bench/cuda_one_round" --n 1000000 --t 100 \
    >"$out/ncu_round.txt" 2>&1 &&
    "$ncu" --import "$out/ncu_round.ncu-rep" --page details >>"$out/ncu_round.txt" 2>&1; then
    kernels=$(grep -c "^  [a-z_].*(.*)x(.*)" "$out/ncu_round.txt" || true)
    kit_verdict "PASS: ncu profile of one round at N = 10^6 ($kernels kernels, $((SECONDS - t0)) s; ncu_round.ncu-rep)"
  else
    kit_verdict "FAIL: ncu profile failed (see ncu_round.txt)"
  fi
fi
kit_finish "sanitizers"
