#!/usr/bin/env bash
# The GPU kit, for ONE call on a bare GPU machine (bench/README.md, "GPU kit", gives the exact
# device call): unpacks the carried Debian packages (.deps/, from tools/gpu/fetch_deps.sh) with
# dpkg -x, configures with the CUDA backend required, builds only the library, the CLI, the
# test_cuda_* tests and the GPU benchmarks, runs `ctest -L gpu` (FAIL if any test failed, was
# skipped or did not run, or if none ran), then — only when every gpu test passed — the GPU
# benchmark and the BoTorch peer, each under `timeout`, and turns their output into the
# bench/RESULTS.md table. Every stage prints one PASS/FAIL line; the last line is the verdict (the
# first FAIL, else "PASS: gpu kit"). Exit code 0 only on PASS. Ends within GPB_KIT_DEADLINE_S
# (default 540 s) on a 16-core machine: later stages shrink their timeouts to what is left.
#
# Files under $OUT (≤ 15): summary.txt, env.txt, build.log, ctest_gpu.log, bench_round.json,
# bench_batch.json, bench.log, botorch.jsonl, pool_scale.log, pool_scale_cuda_{1000000,10000000}.json,
# pool_scale_cuda_mixed_1000000.json, space_baybe.log, space_baybe_cuda.json,
# optimizer_backends.jsonl.
set -uo pipefail
# shellcheck source=tools/gpu/kit_lib.sh
source "$(dirname "$0")/../tools/gpu/kit_lib.sh"
cd "$KIT_ROOT" || exit 2
kit_start summary.txt
out=$KIT_OUT
log=$out/build.log
: >"$log"

{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: ${GPB_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  echo "source_digest: $(kit_source_digest)"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "cxx: $(g++ --version | head -n1)"
  echo "cmake: $(cmake --version | head -n1)"
  nvidia-smi --query-gpu=name,memory.total,driver_version \
    --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
} >"$out/env.txt"

kit_unpack && kit_nvcc && kit_configure "$log" &&
  kit_build "$log" $(kit_targets bench_cuda_posterior cuda_one_round) || kit_finish "gpu kit"
kit_one_runtime
echo "nvcc: $(nvcc --version | tail -n1)" >>"$out/env.txt"

# The gpu tests: every one must run and pass.
t0=$SECONDS
(cd "$KIT_BUILD" && timeout "$(kit_budget 240)" ctest -L gpu --no-tests=error -j 4 \
  --timeout 180 --output-on-failure) >"$out/ctest_gpu.log" 2>&1
rc=$?
line=$(kit_ctest_verdict "$out/ctest_gpu.log" "$rc")
kit_verdict "$line ($((SECONDS - t0)) s)"
if [[ $line != PASS:* ]]; then
  kit_say "SKIP: benchmarks and the BoTorch peer (the gpu tests did not all pass)"
  kit_finish "gpu kit"
fi

# The benchmark: per-round time at N = 10^5..10^7 (t = 100, 1000; double, mixed) against the
# copy floor measured in the same process, then 64 batched vs 64 sequential runs.
bench=$KIT_BUILD/bench/bench_cuda_posterior
run_bench() {  # name filter cap
  local t0=$SECONDS budget
  budget=$(kit_budget "$3")
  timeout "$budget" "$bench" --benchmark_filter="$2" --benchmark_out="$out/bench_$1.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true >>"$out/bench.log" 2>&1
  local rc=$?
  if ((rc == 124)); then
    kit_verdict "FAIL: benchmark $1 timed out after $budget s (see bench.log)"
  elif ((rc != 0)); then
    kit_verdict "FAIL: benchmark $1 exited with $rc (see bench.log)"
  elif grep -q '"error_occurred": true' "$out/bench_$1.json"; then
    kit_verdict "PASS: benchmark $1 in $((SECONDS - t0)) s (some cells skipped, see bench.log)"
  else
    kit_verdict "PASS: benchmark $1 in $((SECONDS - t0)) s"
  fi
}
: >"$out/bench.log"
run_bench round 'BM_CudaRound/' 150
run_bench batch 'BM_Cuda(Batched|Sequential)Runs/' 60

# The Python module (needed by the choice comparison and the pool stage): an extra build, SKIP
# (never FAIL) when this Python cannot build it or under 150 s are left.
: >"$out/pool_scale.log"
module=0
if ((SECONDS + 150 >= KIT_DEADLINE)); then
  kit_say "SKIP: Python module (only $(kit_left) s left)"
elif kit_python_module "$out/pool_scale.log"; then
  module=1
fi

# BoTorch/GPyTorch exact GP-UCB with optimize_acqf_discrete on the same GPU; with the module, the
# same rounds played by gpbandit too, and the choices compared (same model: same choices).
t0=$SECONDS
if ! python3 -c "import torch, gpytorch, botorch; assert torch.cuda.is_available()" >>"$out/bench.log" 2>&1; then
  kit_verdict "FAIL: BoTorch peer: python3 lacks torch (with CUDA), gpytorch or botorch"
else
  budget=$(kit_budget 150)
  compare=()
  ((module)) && compare=(--compare-gpbandit "$KIT_BUILD")
  PYTHONUNBUFFERED=1 timeout "$budget" python3 bench/peers/botorch_gp_ucb.py --n 100000 1000000 \
    --t 100 1000 --rounds 5 --budget-s $((budget - 15)) "${compare[@]}" >"$out/botorch.jsonl" \
    2>>"$out/bench.log"
  rc=$?
  cells=$(grep -c '"ms_per_round"' "$out/botorch.jsonl" || true)
  differ=$(python3 -c 'import json, sys
n = sum(1 for l in open(sys.argv[1]) if l.startswith("{")
        and "same_choices" in (d := json.loads(l)) and d["same_choices"] < d["rounds_played"])
print(n)' "$out/botorch.jsonl" 2>>"$out/bench.log" || echo "?")
  if ((rc != 0)); then
    kit_verdict "FAIL: BoTorch peer exited with $rc after $cells cells (124 = timeout; see bench.log)"
  elif [[ $differ != 0 ]]; then
    kit_verdict "FAIL: BoTorch peer: gpbandit chose differently in $differ of $cells cells (botorch.jsonl)"
  elif ((module)); then
    kit_verdict "PASS: BoTorch peer, $cells cells in $((SECONDS - t0)) s, the same choices as gpbandit in each"
  else
    kit_verdict "PASS: BoTorch peer, $cells cells in $((SECONDS - t0)) s (choices not compared: no module)"
  fi
fi

# The fingerprint pool of bench/pool_scale.py on the CUDA path (issue #31 item 3): Tanimoto kernel,
# block updates and a 1 % batch ask at N = 10^6, then 10^7; an extra stage (SKIP, never FAIL,
# when the Python module cannot be built here or the time is gone).
pool_scale() {  # N T STEP CAP NAME [EXTRA ARGS...]
  local t0=$SECONDS budget n=$1 t=$2 step=$3 cap=$4 name=$5
  shift 5
  budget=$(kit_budget "$cap")
  if ((budget < 30)); then
    kit_say "SKIP: pool scale N = $n, t = $t (only $(kit_left) s left)"
    return 1
  fi
  PYTHONUNBUFFERED=1 timeout "$budget" python3 bench/pool_scale.py --build "$KIT_BUILD" \
    --backend cuda --n "$n" --t "$t" --step "$step" --generator bytes "$@" \
    --out "$out/$name" >>"$out/pool_scale.log" 2>&1
  local rc=$?
  if ((rc == 0)); then
    kit_verdict "PASS: pool scale N = $n, t = $t in $((SECONDS - t0)) s ($name)"
  else
    kit_verdict "FAIL: pool scale N = $n, t = $t exited with $rc (124 = timeout; see pool_scale.log)"
  fi
}
# A constrained product space of 1.06e8 combinations (1.5e7 feasible) (issue #32 item 5, bench/space_baybe.py):
# gpbandit's Optimizer tells 20 measurements and asks a batch of 5 by exact EI over every
# feasible combination, on the CUDA backend and on this machine's CPU, each in a child process
# under a per-size limit; an extra stage (SKIP without the module or the time, never FAIL for a
# size that runs out of its limit: the table says "failed" there).
spaces() {
  local t0=$SECONDS budget
  budget=$(kit_budget 240)
  if ((budget < 40)); then
    kit_say "SKIP: spaces on CUDA (only $(kit_left) s left)"
    return
  fi
  PYTHONUNBUFFERED=1 timeout "$budget" python3 bench/space_baybe.py --build "$KIT_BUILD" \
    --tools gpbandit --backend cuda cpu --labels 8 11 --timeout 110 \
    --out "$out/space_baybe_cuda.json" >"$out/space_baybe.log" 2>&1
  local rc=$? ok
  ok=$(grep -c '"asked_backend": "cuda".*"recommend_s"\|"recommend_s".*"asked_backend": "cuda"' \
    "$out/space_baybe.log" || true)
  if ((rc != 0)); then
    kit_verdict "FAIL: spaces on CUDA exited with $rc after $ok CUDA sizes (124 = timeout; space_baybe.log)"
  elif ((ok == 0)); then
    kit_verdict "FAIL: spaces on CUDA: no size ran on CUDA (space_baybe.log)"
  else
    kit_verdict "PASS: spaces on CUDA, $ok of 2 sizes in $((SECONDS - t0)) s (space_baybe_cuda.json)"
  fi
}

if ((module)); then
  # N = 10^6 and 10^7 with the recompute-mode ask; then the spaces; then issue #31's t = 10^4 at
  # N = 10^6 with V in float (37 GB: an H100 holds it), block updates of 2 500 rows.
  pool_scale 1000000 2000 500 90 pool_scale_cuda_1000000.json --recompute &&
    pool_scale 10000000 400 200 120 pool_scale_cuda_10000000.json --recompute
  spaces
  pool_scale 1000000 10000 2500 200 pool_scale_cuda_mixed_1000000.json --precision mixed
else
  kit_say "SKIP: pool scale and spaces (no Python module)"
fi

# minimize on the CPU and on CUDA (Backend::Auto now picks CUDA): seconds per call of a small
# problem on each, the same best value or not (bench/optimizer_backends.py).
if ((module)); then
  t0=$SECONDS
  budget=$(kit_budget 90)
  if ((budget < 30)); then
    kit_say "SKIP: minimize on both backends (only $(kit_left) s left)"
  elif PYTHONUNBUFFERED=1 timeout "$budget" python3 bench/optimizer_backends.py --build "$KIT_BUILD" \
    >"$out/optimizer_backends.jsonl" 2>>"$out/bench.log"; then
    kit_verdict "PASS: minimize on both backends in $((SECONDS - t0)) s ($(python3 bench/optimizer_backends.py --summary "$out/optimizer_backends.jsonl" 2>&1))"
  else
    kit_verdict "FAIL: minimize on both backends exited with $? (see bench.log)"
  fi
fi

table=$(mktemp)
if python3 bench/gpu_results_table.py --dir "$out" >"$table" 2>>"$out/bench.log"; then
  tee -a "$KIT_SUMMARY" <"$table"
  kit_verdict "PASS: results table (above; bench/gpu_results_table.py --dir OUT --write bench/RESULTS.md)"
else
  kit_verdict "FAIL: bench/gpu_results_table.py could not read the results (see bench.log)"
fi
cat "$out/env.txt"
kit_finish "gpu kit"
