// Landlock confinement for benchmark children: once applied, a process and everything it execs
// can change no file anywhere (create, write, truncate, remove, rename, link, make directories or
// nodes) and, where the kernel's Landlock has network rules (ABI 4, Linux 6.7), bind or connect no
// TCP socket; from ABI 6 (Linux 6.12) it can also neither signal processes outside its domain nor
// connect to abstract Unix sockets. Reading and executing stay allowed: the benchmark loads its
// model and libraries. Descriptors already open (its output pipes) are unaffected.
//
// Landlock is unprivileged and stacks with systemd's sandbox; a kernel without it (before 5.13,
// or built without it, as JetPack 4 and 5 are) leaves the child with the rlimits and the unit's
// sandbox only (docs/security.md).
//
// Both functions are async-signal-safe (raw system calls only), for use between fork and exec.

#ifndef EDGEMOND_SELFBENCH_LANDLOCK_H_
#define EDGEMOND_SELFBENCH_LANDLOCK_H_

namespace edgemond::selfbench {

// The kernel's Landlock ABI version; 0 when it has none or has it disabled.
int LandlockAbi();

// Confines the calling process as described above, using what ABI `abi` (> 0) offers. Sets
// no_new_privs, which Landlock requires. Returns 0, or the errno of the call that failed.
int ConfineToReadOnly(int abi);

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_LANDLOCK_H_
