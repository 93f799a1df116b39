#!/bin/bash
# Flash wear at the block layer: the database alone on a fresh file system in a loop device, and
# the bytes that reach that device per sample stored, beside what SQLite wrote (wchar) and the
# process's write_bytes. Needs root (losetup, mount). Results go to docs/storage.md with the
# command that produced them.
#
#   bench/flash_wear.sh                       # 14 simulated days, 200 series at 1 Hz, 60 s flushes
#   bench/flash_wear.sh --flush-seconds 120   # any option of the bench (bench/flash_wear.cc)
#   bench/flash_wear.sh --real-time --minutes 30   # the same samples at 1 Hz of wall time, with
#                                             # the kernel's own writeback (checks the model)
#   bench/flash_wear.sh --daemon 30           # edgemond itself on this machine's /proc and /sys,
#                                             # 30 minutes of wall time after a 2-minute warm-up
#
# Environment: FS=ext4 (default) or f2fs (when the kernel has it and f2fs-tools is installed);
# MOUNT_OPTIONS (e.g. lazytime; default: none);
# BUILD_DIR (default build-bench in the repository; Release); IMAGE_MIB (1024); PORT (18899,
# --daemon only).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench}
fs_type=${FS:-ext4}

if [[ $(id -u) != 0 ]]; then
  echo "flash_wear.sh: needs root, to make a loop device and mount it" >&2
  exit 1
fi
if ! grep -qw "$fs_type" /proc/filesystems; then
  echo "flash_wear.sh: this kernel has no $fs_type (/proc/filesystems)" >&2
  exit 1
fi

daemon_minutes=
if [[ "${1:-}" == --daemon ]]; then
  daemon_minutes=${2:?--daemon needs MINUTES}
  shift 2
fi

cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEMOND_BUILD_TESTS=OFF \
  > /dev/null
cmake --build "$build" -j2 --target edgemond_flash_wear_bench edgemond > /dev/null

work=$(mktemp -d /tmp/edgemond-flash-wear.XXXXXX)
dev=
daemon_pid=
cleanup() {
  if [[ -n "$daemon_pid" ]]; then kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" || true; fi
  if mountpoint -q "$work/mnt"; then umount "$work/mnt"; fi
  if [[ -n "$dev" ]]; then losetup -d "$dev"; fi
  rm -rf "$work"
}
trap cleanup EXIT

truncate -s "${IMAGE_MIB:-1024}M" "$work/image"
case "$fs_type" in
  # Inode tables and the journal are written out now, not by ext4lazyinit during the run.
  ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/image" ;;
  f2fs) mkfs.f2fs -q -f "$work/image" > /dev/null ;;
  *) echo "flash_wear.sh: FS must be ext4 or f2fs" >&2; exit 1 ;;
esac
dev=$(losetup --find --show "$work/image")
mkdir "$work/mnt"
mount ${MOUNT_OPTIONS:+-o "$MOUNT_OPTIONS"} "$dev" "$work/mnt"
name=$(basename "$dev")

echo "host: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "device: $dev, $fs_type, mounted $(awk -v d="$dev" '$1 == d { print $4 }' /proc/mounts)"
echo "writeback: dirty_expire $(cat /proc/sys/vm/dirty_expire_centisecs) cs, dirty_writeback $(cat /proc/sys/vm/dirty_writeback_centisecs) cs"

if [[ -z "$daemon_minutes" ]]; then
  echo "command: bench/flash_wear.sh $*"
  echo
  "$build/bench/edgemond_flash_wear_bench" --dir "$work/mnt" --block-device "$name" "$@"
  exit 0
fi

# --daemon: edgemond on its embedded defaults but for the database's path and the port.
sectors() { awk '{ print $7 }' "/sys/block/$name/stat"; }
io() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$daemon_pid/io"; }
port=${PORT:-18899}
echo "command: bench/flash_wear.sh --daemon $daemon_minutes $*"
"$build/daemon/edgemond" --db "$work/mnt/edgemond.db" --listen "127.0.0.1:$port" \
  --log-level warn "$@" &
daemon_pid=$!
sleep 120
sync -f "$work/mnt"
s0=$(sectors); w0=$(io wchar); b0=$(io write_bytes); t0=$(date +%s%3N)
sleep $((daemon_minutes * 60))
sync -f "$work/mnt"
s1=$(sectors); w1=$(io wchar); b1=$(io write_bytes); t1=$(date +%s%3N)
kill -TERM "$daemon_pid"
wait "$daemon_pid"
daemon_pid=
# The samples of the flushes inside the window: blocks whose last sample falls in it.
cp "$work/mnt/edgemond.db" "$work/copy.db"
samples=$(sqlite3 "$work/copy.db" \
  "SELECT sum(points) FROM blocks_raw WHERE t1 > $t0 AND t1 <= $t1")
series=$(sqlite3 "$work/copy.db" "SELECT count(*) FROM series")
echo
echo "| window | series | samples | device B/sample | SQLite writes (wchar) | write_bytes |"
echo "|---|---|---|---|---|---|"
awk -v m="$daemon_minutes" -v n="$series" -v s="$samples" -v d=$(((s1 - s0) * 512)) \
  -v w=$((w1 - w0)) -v b=$((b1 - b0)) 'BEGIN {
    printf "| %d min | %d | %d | **%.2f** | %.2f | %.2f |\n", m, n, s, d / s, w / s, b / s }'
