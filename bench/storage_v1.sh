#!/usr/bin/env bash
# Storage v1 benchmark: a simulated day of ~150 series at 1 Hz, flushed every 10 s, written
# through the real SqliteStore and through the two candidate one-row-per-sample layouts
# (time-major and series-major keys) in the same run. Prints a Markdown table; results are
# recorded in docs/storage.md with the command that produced them.
#
#   bench/storage_v1.sh                          # 24 h, 150 series, no retention
#   bench/storage_v1.sh --retention-hours 12     # second half of the day also expires data
#   bench/storage_v1.sh --hours 1 --layouts store   # quick look
#
# Arguments are passed to the bench binary (see its --help). Environment:
#   BUILD_DIR  build directory (default: build-bench in the repository; Release)
#   BENCH_DIR  where the databases are written (default: $BUILD_DIR/bench-storage). Use the
#              file system you care about: on tmpfs nothing reaches a disk.
#   KEEP=1     keep the databases afterwards.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench}
dir=${BENCH_DIR:-$build/bench-storage}

cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEMOND_BUILD_TESTS=OFF \
  > /dev/null
cmake --build "$build" -j2 --target edgemond_storage_v1_bench > /dev/null

mkdir -p "$dir"
echo "host: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "file system of $dir: $(stat -f -c %T "$dir")"
echo "command: bench/storage_v1.sh $*"
"$build/bench/edgemond_storage_v1_bench" --dir "$dir" "$@"
if [[ "${KEEP:-0}" != 1 ]]; then rm -rf "$dir"; fi
