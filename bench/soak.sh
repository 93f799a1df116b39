#!/bin/bash
# A day of 10 Hz collections in simulated time on a copy of the Orin fixture, with two clients
# querying the API over loopback all along (bench/soak.cc says what it measures). Exits non-zero
# when the database outgrew its cap or a query failed.
#
# Usage: bench/soak.sh [HOURS] [BUILD_DIR]   (24 and build by default; CAP_MIB=32, INTERVAL=0.1)
set -euo pipefail
hours=${1:-24}
build=${2:-build}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/edgemond-soak.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -a "$repo/tests/fixtures/devices/jetson-orin-jp6" "$work/root"
"$build/bench/edgemond_soak" --root "$work/root" --db "$work/edgemond.db" --hours "$hours" \
  --interval "${INTERVAL:-0.1}" --cap-mib "${CAP_MIB:-32}"
