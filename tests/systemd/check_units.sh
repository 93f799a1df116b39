#!/bin/sh
# Checks the shipped units with systemd's own tools: `systemd-analyze verify` on edgemond.service
# (configured as `cmake --install --prefix /usr` would, ExecStart pointed at the built binary so
# that verify can check it) and edgemond.socket, and `systemd-analyze security --offline=yes`,
# which must rate the service OK (or better) with an exposure of at most 2.0 (docs/systemd.md
# records the figure).
#
#   tests/systemd/check_units.sh SOURCE_DIR BINARY   exit 0 pass, 1 fail, 77 skip
set -eu

src=$1
binary=$2
command -v systemd-analyze >/dev/null 2>&1 || { echo "SKIP: systemd-analyze is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

bindir=$(cd "$(dirname "$binary")" && pwd)
sed -e "s#@EDGEMOND_BINDIR@#$bindir#; s#@EDGEMOND_SYSCONFDIR@#/etc#; s#@EDGEMOND_DOCDIR@#/usr/share/doc/edgemond#" \
  "$src/systemd/edgemond.service.in" >"$tmp/edgemond.service"
cp "$src/systemd/edgemond.socket" "$tmp/"
grep -q '@EDGEMOND_' "$tmp/edgemond.service" && fail "a placeholder is left in edgemond.service"

if ! systemd-analyze verify "$tmp/edgemond.service" "$tmp/edgemond.socket" >"$tmp/verify.log" 2>&1; then
  cat "$tmp/verify.log"
  fail "systemd-analyze verify"
fi
# verify reports some problems without failing; none is acceptable.
if [ -s "$tmp/verify.log" ]; then
  cat "$tmp/verify.log"
  fail "systemd-analyze verify printed warnings"
fi
echo "systemd-analyze verify: clean"

if ! systemd-analyze security --help 2>/dev/null | grep -q -- '--offline'; then
  echo "SKIP: this systemd-analyze has no --offline (systemd < 250)"
  exit 77
fi
systemd-analyze security --offline=yes --no-pager "$tmp/edgemond.service" >"$tmp/security.log" 2>&1 ||
  { cat "$tmp/security.log"; fail "systemd-analyze security"; }
overall=$(grep 'Overall exposure level' "$tmp/security.log")
echo "$overall"
score=$(echo "$overall" | sed -n 's/.*: \([0-9.]*\) \([A-Z]*\).*/\1/p')
rating=$(echo "$overall" | sed -n 's/.*: \([0-9.]*\) \([A-Z]*\).*/\2/p')
case "$rating" in
  SAFE|OK) ;;
  *) fail "rated $rating ($score); the unit must rate OK or better" ;;
esac
awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || fail "exposure $score is above 2.0"
echo "PASS"
