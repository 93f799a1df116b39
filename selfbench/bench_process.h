// BenchProcess: edgemond-bench (or any program) run as a child process that cannot take the
// daemon down with it: its own process group, resource limits, no inherited descriptors, its output
// captured through pipes the owner drains without blocking.
//
// The owner polls (Poll()) from its loop; nothing here blocks, sleeps or uses signals, so a child
// that hangs costs nothing until its owner decides it has run too long and calls Kill(). A child
// that crashes, is killed by a limit or exits with an error is an exit like any other: how it ended
// is in ChildExit, and what it printed is kept.
//
// In the child, before exec: a new process group (so Kill() reaches anything it started), death
// with the parent (PR_SET_PDEATHSIG), no ambient capabilities, every signal unblocked and SIGPIPE
// at its default, stdin from /dev/null, descriptors above 2 closed, the working directory "/", and
// the limits:
//   RLIMIT_AS      address space, when memory_bytes > 0 (what the allocator can map: a model too
//   big
//                  for the device fails to allocate instead of pushing the device into swap)
//   RLIMIT_CPU     CPU seconds, when cpu_seconds > 0 (SIGXCPU, then SIGKILL 5 s later)
//   RLIMIT_CORE 0  no core dumps of crashing models
//   RLIMIT_FSIZE 0 the benchmark writes no files (its output goes to pipes)
// and, where the kernel has Landlock, a ruleset that denies every file change and TCP
// (selfbench/landlock.h).
// Limits are set with prlimit(), which systemd's @system-service filter allows (setrlimit is in
// @resources).
//
// Thread safety: not thread-safe; one owner thread. Start() may be called while other threads
// run (only async-signal-safe calls happen between fork and exec).

#ifndef EDGEMOND_SELFBENCH_BENCH_PROCESS_H_
#define EDGEMOND_SELFBENCH_BENCH_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"

namespace edgemond::selfbench {

struct BenchLimits {
  std::uint64_t memory_bytes = 0;  // RLIMIT_AS; 0: inherited.
  std::uint32_t cpu_seconds = 0;   // RLIMIT_CPU; 0: inherited.
};

// How the child ended, from wait4().
struct ChildExit {
  std::optional<int> exit_code;  // Set when it exited.
  std::optional<int> signal;     // Set when a signal ended it.
  double user_cpu_seconds = 0;
  double system_cpu_seconds = 0;
  std::int64_t max_rss_bytes = 0;  // Peak resident set of the child (ru_maxrss).

  // "exit status 1", "killed by SIGSEGV (segmentation fault)".
  std::string Describe() const;
};

// What confines a child here beyond its rlimits, in one line for the log: "Landlock ABI 7: no
// file changes, no TCP", or that this kernel has no Landlock.
std::string ChildConfinement();

class BenchProcess final {
 public:
  // Starts argv[0] (an absolute path) with `argv`. kNotFound / kPermissionDenied / kIoError when
  // it cannot be executed (the message names the program).
  static Result<std::unique_ptr<BenchProcess>> Start(const std::vector<std::string>& argv,
                                                     const BenchLimits& limits);

  // Kills and reaps a child that is still running.
  ~BenchProcess();
  BenchProcess(const BenchProcess&) = delete;
  BenchProcess& operator=(const BenchProcess&) = delete;

  // Reads what the child printed so far and reaps it if it has ended. Returns how it ended once it
  // has (and from then on).
  std::optional<ChildExit> Poll();

  // Sends SIGKILL to the child's process group. Poll() then reports the exit.
  void Kill();

  pid_t pid() const { return pid_; }
  const std::string& stdout_text() const { return out_; }
  const std::string& stderr_text() const { return err_; }
  bool output_truncated() const { return truncated_; }

  // Most bytes kept of each stream; more is read and dropped.
  static constexpr std::size_t kMaxStdoutBytes = 8 << 20;
  static constexpr std::size_t kMaxStderrBytes = 64 << 10;

 private:
  BenchProcess(pid_t pid, UniqueFd out, UniqueFd err)
      : pid_(pid), out_fd_(std::move(out)), err_fd_(std::move(err)) {}
  void Drain();

  pid_t pid_;
  UniqueFd out_fd_;
  UniqueFd err_fd_;
  std::string out_;
  std::string err_;
  bool truncated_ = false;
  std::optional<ChildExit> exit_;
};

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_BENCH_PROCESS_H_
