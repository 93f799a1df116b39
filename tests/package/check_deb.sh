#!/bin/sh
# Builds the .deb of a build tree (cpack) and installs it into a scratch root with
# `dpkg --root --force-script-chrootless`: dpkg unpacks into the root, records the package in the
# root's own dpkg database and runs the maintainer scripts with DPKG_ROOT set, which they honour
# (systemd-sysusers/-tmpfiles --root, no systemctl). Then checks what landed where, that the
# installed binary runs on the installed configuration, that an edited conffile survives a
# reinstall, and that remove and purge take away what they should.
#
# Why not debootstrap: it needs a Debian mirror (no network in the tests) and minutes; this needs
# neither. What it does not exercise: starting the unit under a real systemd (see
# tests/systemd/check_units.sh for `systemd-analyze verify`).
#
#   tests/package/check_deb.sh BUILD_DIR [ARCH]   exit 0 pass, 1 fail, 77 skip (tools missing)
#
# ARCH is the package's Debian architecture (default: this machine's). A foreign one (the arm64
# package of a cross build) is installed with --force-architecture, and its binary runs through
# qemu-user's binfmt_misc registration.
set -eu

build=$(cd "$1" && pwd)
arch=${2:-$(dpkg --print-architecture)}
for tool in cpack dpkg dpkg-deb; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool is not installed"; exit 77; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; fail "cpack"; }
deb=$(ls "$tmp"/pkg/edgemond_*.deb)
echo "package: $(basename "$deb")"

# Metadata.
[ "$(dpkg-deb -f "$deb" Package)" = edgemond ] || fail "Package"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "Architecture"
force_arch=""
[ "$arch" = "$(dpkg --print-architecture)" ] || force_arch="--force-architecture"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libsqlite3-0 libmicrohttpd12 libsystemd0 libstdc++6; do
  echo "$depends" | grep -q "$lib" || fail "Depends lacks $lib: $depends"
done
conffiles=$(dpkg-deb -I "$deb" conffiles)
for f in /etc/edgemond/edgemond.json /etc/edgemond/alerts.d/10-thermal.json; do
  echo "$conffiles" | grep -qx "$f" || fail "$f is not a conffile"
done

# A scratch root with an empty dpkg database.
root="$tmp/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/etc"
: >"$root/var/lib/dpkg/status"
: >"$root/var/lib/dpkg/available"
dpkg_root() {
  # shellcheck disable=SC2086
  dpkg --root="$root" --force-script-chrootless --force-depends --force-not-root \
    --force-confold $force_arch --log=/dev/null "$@"
}
dpkg_root -i "$deb" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "dpkg -i"; }

for f in usr/bin/edgemond usr/lib/systemd/system/edgemond.service \
  usr/lib/systemd/system/edgemond.socket usr/lib/sysusers.d/edgemond.conf \
  usr/lib/tmpfiles.d/edgemond.conf etc/edgemond/edgemond.json \
  etc/edgemond/alerts.d/10-thermal.json etc/edgemond/alerts.d/50-collectors.json \
  usr/share/doc/edgemond/README.md usr/share/doc/edgemond/alerts.md \
  usr/share/doc/edgemond/selfbench.md usr/share/edgemond/etc/conf.d/60-models.json.example; do
  [ -f "$root/$f" ] || fail "/$f was not installed"
done
[ -x "$root/usr/bin/edgemond" ] || fail "/usr/bin/edgemond is not executable"
dpkg --root="$root" -s edgemond | grep -q "Status: install ok installed" || fail "dpkg status"
grep -q '^ExecStart=/usr/bin/edgemond --config /etc/edgemond/edgemond.json' \
  "$root/usr/lib/systemd/system/edgemond.service" || fail "ExecStart does not name the installed paths"

# The maintainer scripts made the user and the state directory inside the root.
if command -v systemd-sysusers >/dev/null 2>&1; then
  grep -q '^edgemond:' "$root/etc/passwd" || fail "postinst did not create the edgemond user"
  [ -d "$root/var/lib/edgemond" ] || fail "postinst did not create /var/lib/edgemond"
fi

# The installed binary runs on the installed configuration and rules.
"$root/usr/bin/edgemond" --version | grep -q '^edgemond ' || fail "edgemond --version"
check=$("$root/usr/bin/edgemond" --config "$root/etc/edgemond/edgemond.json" --check-config)
echo "$check" | grep -q 'configuration OK (8 alert rules, 0 models to benchmark)' || fail "--check-config said: $check"

# Reinstalling (an upgrade to the same files) keeps an edited conffile.
echo '// edited by the administrator' >>"$root/etc/edgemond/alerts.d/10-thermal.json"
dpkg_root -i "$deb" >"$tmp/upgrade.log" 2>&1 || { cat "$tmp/upgrade.log"; fail "reinstall"; }
tail -n 1 "$root/etc/edgemond/alerts.d/10-thermal.json" | grep -q 'edited by the administrator' ||
  fail "the reinstall overwrote an edited conffile"

# Remove keeps the configuration; purge removes it and the data.
mkdir -p "$root/var/lib/edgemond" && : >"$root/var/lib/edgemond/edgemond.db"
dpkg_root -r edgemond >"$tmp/remove.log" 2>&1 || { cat "$tmp/remove.log"; fail "dpkg -r"; }
[ ! -e "$root/usr/bin/edgemond" ] || fail "remove left /usr/bin/edgemond"
[ -f "$root/etc/edgemond/edgemond.json" ] || fail "remove took the configuration"
dpkg_root -P edgemond >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log"; fail "dpkg -P"; }
[ ! -e "$root/etc/edgemond/edgemond.json" ] || fail "purge left the configuration"
[ ! -e "$root/var/lib/edgemond" ] || fail "purge left /var/lib/edgemond"
echo "PASS: installed, checked, reinstalled, removed and purged in a scratch root"
