#!/usr/bin/env bash
# Storage benchmark: a simulated Jetson-class device (~150 series at 1 Hz) through the store and,
# in the same run, through storage v1's one-row-per-sample layout; then a simulated month through
# the store with its default retention and size cap. Prints Markdown tables; results are
# recorded in docs/storage.md with the command that produced them.
#
#   bench/storage.sh                             # a day (store and v1) and a month (store)
#   bench/storage.sh --days 0                    # the day only (~1 minute)
#   bench/storage.sh --hours 0 --days 90         # three months of the store
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
cmake --build "$build" -j2 --target edgemond_storage_bench > /dev/null

mkdir -p "$dir"
echo "host: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "file system of $dir: $(stat -f -c %T "$dir")"
echo "command: bench/storage.sh $*"
"$build/bench/edgemond_storage_bench" --dir "$dir" "$@"
if [[ "${KEEP:-0}" != 1 ]]; then rm -rf "$dir"; fi
