#!/usr/bin/env bash
# Checks kit_ctest_verdict (tools/gpu/kit_lib.sh), the honest reading of `ctest -L gpu` in the GPU
# kit, on ctest outputs of each kind: PASS only when every test ran and passed. Run by ctest
# (GpuKitVerdict, label cpu).
set -uo pipefail
# shellcheck source=tools/gpu/kit_lib.sh
source "$(dirname "$0")/kit_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

expect() {  # NAME RC EXPECTED-PREFIX  (ctest output on stdin)
  cat >"$tmp/$1.log"
  local got
  got=$(kit_ctest_verdict "$tmp/$1.log" "$2")
  local rc=$?
  if [[ $got != "$3"* ]]; then
    echo "FAILED $1: got '$got', expected '$3…'"
    bad=1
  elif [[ $3 == PASS* && $rc -ne 0 ]] || [[ $3 == FAIL* && $rc -eq 0 ]]; then
    echo "FAILED $1: exit code $rc does not match '$got'"
    bad=1
  else
    echo "ok $1: $got"
  fi
}

expect all_skipped 0 "FAIL: gpu tests were skipped (2 of 2 skipped" <<'EOF2'
Test project /b
      Start 1: CudaOps.A
 1/2 Test #1: CudaOps.A ..............................***Skipped   0.69 sec
      Start 2: CudaOps.B
 2/2 Test #2: CudaOps.B ..............................***Skipped   0.70 sec

100% tests passed, 0 tests failed out of 2

Label Time Summary:
gpu    =   1.39 sec*proc (2 tests)

The following tests did not run:
	  1 - CudaOps.A (Skipped)
	  2 - CudaOps.B (Skipped)
EOF2

expect some_skipped 0 "FAIL: gpu tests were skipped (1 of 3 skipped" <<'EOF2'
 1/3 Test #1: CudaOps.A ..............................   Passed    0.69 sec
 2/3 Test #2: CudaOps.B ..............................***Skipped   0.70 sec
 3/3 Test #3: CudaOps.C ..............................   Passed    0.70 sec

100% tests passed, 0 tests failed out of 3
EOF2

expect all_passed 0 "PASS: gpu tests (3 of 3 passed)" <<'EOF2'
 1/3 Test #1: CudaOps.A ..............................   Passed    0.69 sec
 2/3 Test #2: CudaOps.B ..............................   Passed    0.70 sec
 3/3 Test #3: CudaOps.C ..............................   Passed    0.70 sec

100% tests passed, 0 tests failed out of 3
EOF2

# CMake 4 (the GPU image's 4.4.3, 2026-11-27) drops ", 0 tests failed" when none failed.
expect cmake4_all_passed 0 "PASS: gpu tests (50 of 50 passed)" <<'EOF2'
49/50 Test #17: CudaFeatures.ApproxPosteriorStreamsWhenDeviceIsNearlyFull .....   Passed    3.16 sec
50/50 Test #18: CudaFeatures.EmptyDictionary ..................................   Passed    0.46 sec

100% tests passed out of 50

Label Time Summary:
gpu    =  40.76 sec*proc (50 tests)
EOF2

expect cmake4_some_skipped 0 "FAIL: gpu tests were skipped (1 of 2 skipped" <<'EOF2'
 1/2 Test #1: CudaOps.A ..............................   Passed    0.69 sec
 2/2 Test #2: CudaOps.B ..............................***Skipped   0.70 sec

100% tests passed out of 2
EOF2

expect one_failed 8 "FAIL: gpu tests failed (1 of 3 failed, 1 skipped)" <<'EOF2'
 1/3 Test #1: CudaOps.A ..............................***Failed    0.69 sec
 2/3 Test #2: CudaOps.B ..............................***Skipped   0.70 sec
 3/3 Test #3: CudaOps.C ..............................   Passed    0.70 sec

67% tests passed, 1 tests failed out of 3
EOF2

expect timeout 8 "FAIL: gpu tests failed (1 of 1 failed" <<'EOF2'
 1/1 Test #1: CudaOps.A ..............................***Timeout 180.01 sec

0% tests passed, 1 tests failed out of 1
EOF2

expect none_found 8 "FAIL: no gpu tests ran" <<'EOF2'
Test project /b
No tests were found!!!
EOF2

expect not_run 8 "FAIL: gpu tests" <<'EOF2'
 1/2 Test #1: CudaOps.A ..............................***Not Run   0.00 sec
 2/2 Test #2: CudaOps.B ..............................   Passed    0.70 sec

50% tests passed, 1 tests failed out of 2
EOF2

expect not_run_only 0 "FAIL: gpu tests did not run (1 of 2 not run)" <<'EOF2'
 1/2 Test #1: CudaOps.A ..............................***Not Run (Disabled)   0.00 sec
 2/2 Test #2: CudaOps.B ..............................   Passed    0.70 sec

100% tests passed, 0 tests failed out of 2
EOF2

expect crashed 124 "FAIL: gpu tests: no ctest summary (ctest exit code 124)" <<'EOF2'
 1/2 Test #1: CudaOps.A ..............................   Passed    0.69 sec
EOF2

expect passed_but_rc 1 "FAIL: gpu tests: ctest exit code 1" <<'EOF2'
 1/1 Test #1: CudaOps.A ..............................   Passed    0.69 sec

100% tests passed, 0 tests failed out of 1
EOF2

exit $bad
