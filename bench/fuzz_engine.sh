#!/bin/sh
# Builds the ONNX loader's libFuzzer target (clang, ASan+UBSan) and fuzzes it, starting from the
# seeds in engine/fuzz/seeds, for SECONDS. A finding is written as crash-*, oom-* or timeout-*
# into BUILD_DIR and the script exits non-zero.
#
# usage: bench/fuzz_engine.sh [SECONDS] [BUILD_DIR]
# Needs clang and libclang-rt-dev (Debian: clang, libclang-rt-14-dev).
set -eu

seconds=${1:-180}
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$repo/build-fuzz}

CC=clang CXX=clang++ cmake -S "$repo" -B "$build" -G Ninja -DEDGEMOND_FUZZ=ON \
  -DEDGEMOND_SANITIZE=ON -DEDGEMOND_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target engine_onnx_loader_fuzzer

corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
cp "$repo"/engine/fuzz/seeds/*.onnx "$corpus"/
cd "$build"
./engine/engine_onnx_loader_fuzzer "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 \
  -timeout=10 -max_len=4096 -print_final_stats=1
