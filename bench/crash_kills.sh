#!/bin/bash
# Crash consistency at scale: SIGKILL the storage writer and the real daemon N times each (100 by
# default) at random moments of their writes, flushes, rollups, checkpoints and retention, and sum
# up what each kill cost. Runs the two crash tests of the suite with EDGEMOND_CRASH_KILLS=N:
#   SqliteStoreCrashTest.KillNineNeverLosesAnAcknowledgedFlush  (a child appending 40 series and
#     flushing every 5 ticks; after each kill: integrity_check, every acknowledged flush whole in
#     every tier)
#   StorageE2eTest.KillNineLoopLosesAtMostTheUnflushedWindow  (edgemond on a fixture, 0.05 s
#     interval, 1 s flushes; after each kill: integrity_check, nothing committed lost, what the API
#     answered lost for at most the unflushed window; at the end a daemon serves every survivor)
#
# Usage: bench/crash_kills.sh [N] [BUILD_DIR]   (BUILD_DIR defaults to build)
set -euo pipefail
kills=${1:-100}
build=${2:-build}
log=$(mktemp -d /tmp/edgemond-crash-kills.XXXXXX)

run() {  # NAME TEST_BINARY FILTER
  local name=$1 binary=$2 filter=$3 start end
  start=$(date +%s)
  if ! EDGEMOND_CRASH_KILLS=$kills "$build/$binary" --gtest_filter="$filter" >"$log/$name.txt" 2>&1
  then
    tail -40 "$log/$name.txt"
    echo "$name: FAILED (full output in $log/$name.txt)"
    exit 1
  fi
  end=$(date +%s)
  echo "$name: $kills kills, passed, $((end - start)) s"
}

run store storage/sqlite_store_test 'SqliteStoreCrashTest.KillNineNeverLosesAnAcknowledgedFlush'
grep -o '([0-9]* unacknowledged)' "$log/store.txt" | tr -d '()' | sort -n | uniq -c |
  awk '{printf "  %4d kills left %s ticks past the last acknowledged flush\n", $1, $2}'

run daemon tests/e2e_test 'StorageE2eTest.KillNineLoopLosesAtMostTheUnflushedWindow'
grep -E '^kill [0-9]+:' "$log/daemon.txt" | awk '{print $3, $(NF-1)}' >"$log/daemon.lost"
sort -n -k2 "$log/daemon.lost" | awk '{n++; lost += $1; if ($1 > 0) hit++; span[n] = $2}
  END {printf "  %d kills, %d of which lost answered points (%d in all); lost span median %d ms, " \
    "max %d ms\n", n, hit, lost, span[int((n + 1) / 2)], span[n]}'
echo "logs: $log"
