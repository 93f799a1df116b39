#!/bin/bash
# Builds every libFuzzer target (clang, ASan+UBSan, the libraries instrumented for coverage) and
# fuzzes each for SECONDS, starting from a copy of its checked-in seeds (cmake/EdgemondFuzz.cmake).
# Prints one line per target: the inputs run, the corpus size reached, and the outcome. A finding
# (crash-*, leak-*, oom-* or timeout-*) is kept in OUT_DIR/<target>/ and the script exits 1.
#
# usage: bench/fuzz.sh [SECONDS] [TARGET...]    (TARGET: e.g. storage_block; default all)
# env:   BUILD_DIR (default build-fuzz), OUT_DIR (default $BUILD_DIR/fuzz-out), JOBS (parallel
#        targets, default 1: one fuzzer per core is what the figures in docs/reliability.md used)
# Needs clang and its sanitizer runtime (Debian: clang, libclang-rt-14-dev).
set -eu

seconds=${1:-60}
[ $# -gt 0 ] && shift
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-fuzz}
out=${OUT_DIR:-$build/fuzz-out}
jobs=${JOBS:-1}

launcher=""
command -v ccache >/dev/null 2>&1 &&
  launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
# shellcheck disable=SC2086
CC=clang CXX=clang++ cmake -S "$repo" -B "$build" -G Ninja -Wno-dev -DEDGEMOND_FUZZ=ON $launcher \
  -DEDGEMOND_SANITIZE=ON -DEDGEMOND_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DEDGEMOND_DEBUG_INFO=lines >/dev/null
targets=""
for name in "$@"; do targets="$targets ${name}_fuzzer"; done
[ -n "$targets" ] || targets=$(sed 's/=.*//' "$build/fuzzers.txt")
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" --target $targets

fuzz_one() {  # fuzz_one TARGET: fuzzes one target; prints its line; exit status 1 on a finding
  target=$1
  seeds=$(grep "^$target=" "$build/fuzzers.txt" | cut -d= -f2-)
  program=$(find "$build" -name "$target" -type f -perm -u+x | head -n 1)
  dir="$out/${target%_fuzzer}"
  rm -rf "$dir"
  mkdir -p "$dir/corpus"
  cp "$seeds"/* "$dir/corpus/"
  status=0
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$program" corpus -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
     -print_final_stats=1 >log 2>&1) || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
  if [ "$status" -eq 0 ]; then
    outcome="no finding"
  else
    outcome="FINDING: $(ls "$dir" | grep -E '^(crash|leak|oom|timeout|slow-unit)-' | head -n 1) (log: $dir/log)"
  fi
  printf '%-34s %4s s %10s inputs %6s in corpus  %s\n' "${target%_fuzzer}" "$seconds" \
    "${runs:-?}" "$(ls "$dir/corpus" | wc -l)" "$outcome"
  [ "$status" -eq 0 ]
}

echo "==> fuzzing each target for $seconds s, $jobs at a time ($(date -u +%Y-%m-%dT%H:%MZ)," \
  "commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) CPUs)"
failed=0
running=0
for target in $targets; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
