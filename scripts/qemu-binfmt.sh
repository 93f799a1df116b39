# Sourced by scripts/cross-arm64 (POSIX sh).
#
# register_binfmt lets the kernel hand arm64 programs to qemu (package qemu-user-binfmt), so
# that tests can exec arm64 binaries (the daemon, edgemond-bench) as child processes. A
# container may not allow it: it then returns 1.
register_binfmt() {
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && return 0
  [ "$(id -u)" -eq 0 ] || return 1
  [ -e /proc/sys/fs/binfmt_misc/register ] ||
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || return 1
  /usr/lib/systemd/systemd-binfmt /usr/lib/binfmt.d/qemu-aarch64.conf 2>/dev/null || return 1
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]
}
