#!/usr/bin/env bash
# Short fuzz run for `make test` (ctest FuzzShort): builds the libFuzzer targets of tests/fuzz
# against the build in $1 and runs each for $2 seconds (default 8) from the committed corpus.
# New inputs go to a scratch copy; the committed corpus is only read. Exit 77 (ctest: skipped)
# with a message when clang++ or libFuzzer is missing.
set -euo pipefail
build=$(cd "$1" && pwd)
secs=${2:-8}
here=$(cd "$(dirname "$0")" && pwd)
cxx=${GPB_FUZZ_CXX:-clang++}
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "SKIPPED: $cxx not found (install Debian clang to fuzz)"; exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  >"$probe/p.cpp"
if ! "$cxx" -fsanitize=fuzzer,address "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1; then
  echo "SKIPPED: $cxx cannot link -fsanitize=fuzzer (libFuzzer missing)"; exit 77
fi
out="$build/fuzz"
CXX="$cxx" cmake -S "$here" -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGPB_BUILD_DIR="$build" >"$out.configure.log" 2>&1 || { cat "$out.configure.log"; exit 1; }
cmake --build "$out" -j2 >"$out.build.log" 2>&1 || { tail -50 "$out.build.log"; exit 1; }
status=0
for t in config csv cli; do
  scratch="$probe/$t"
  mkdir -p "$scratch"
  dict=()
  [ -f "$here/$t.dict" ] && dict=(-dict="$here/$t.dict")
  if "$out/fuzz_$t" "$scratch" "$here/corpus/$t" "${dict[@]}" -max_total_time="$secs" \
       -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$probe/" -print_final_stats=1 \
       >"$probe/$t.log" 2>&1; then
    echo "fuzz_$t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$probe/$t.log" |
      grep -o '[0-9]*$') executions, no crash"
  else
    echo "fuzz_$t: FAILED"; tail -40 "$probe/$t.log"; status=1
  fi
done
exit $status
