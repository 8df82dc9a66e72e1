#!/usr/bin/env bash
# One call on a GPU machine: build with CUDA, run the CPU/CUDA parity tests (label gpu), then the
# GPU benchmark and (if torch/botorch are installed) the BoTorch peer. Logs go to ${OUT:-gpu-out}/.
# Nothing here has been run yet: the CUDA backend was written on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
build=${BUILD:-build-gpu}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1
cmake --build "$build" -j"$(nproc)" > "$out/build.log" 2>&1
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" || true
(cd "$build" && ctest -L gpu --output-on-failure --timeout 600) > "$out/ctest_gpu.log" 2>&1 \
  && echo "gpu parity tests: PASS" || echo "gpu parity tests: FAIL (see $out/ctest_gpu.log)"
"$build/bench/bench_cuda_posterior" --benchmark_out="$out/bench_cuda.json" \
  --benchmark_out_format=json > "$out/bench_cuda.txt" 2>&1 || echo "bench failed"
if python3 -c "import torch, botorch" 2>/dev/null; then
  python3 bench/peers/botorch_gp_ucb.py --n 10000 100000 1000000 > "$out/botorch.jsonl" 2>&1 || true
fi
tail -n 20 "$out/bench_cuda.txt"
