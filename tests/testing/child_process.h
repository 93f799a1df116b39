// ChildProcess: a real child process for tests (the edgemond binary, prometheus, ...), with its
// stdout and stderr captured to a file. The destructor kills what is still running.

#ifndef EDGEMOND_TESTS_TESTING_CHILD_PROCESS_H_
#define EDGEMOND_TESTS_TESTING_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace edgemond::testing {

// What a child gets beyond its arguments and environment, for playing systemd's side of socket
// activation and the watchdog.
struct ChildOptions {
  // Variables set to the child's own pid in the child ("LISTEN_PID", "WATCHDOG_PID"): systemd
  // sets them after fork, and sd_listen_fds() ignores LISTEN_FDS without a matching LISTEN_PID.
  std::vector<std::string> pid_env;
  // A descriptor passed to the child as fd 3 (SD_LISTEN_FDS_START); -1 for none. Borrowed.
  int pass_fd = -1;
};

class ChildProcess {
 public:
  // Starts argv[0] (a path) with the given arguments and extra "NAME=value" environment entries.
  // Output goes to `log_path` (created).
  ChildProcess(std::vector<std::string> argv, std::string log_path,
               std::vector<std::string> extra_env = {}, ChildOptions options = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool started() const { return pid_ > 0; }

  // Sends a signal. Returns false if the process is gone.
  bool Signal(int signal);

  // Waits up to `timeout` for the process to exit. Returns the wait status, or nullopt on timeout.
  std::optional<int> Wait(std::chrono::milliseconds timeout);

  // Whether it is still running (reaps it if it exited).
  bool Running();

  // The captured output so far.
  std::string Output() const;

 private:
  pid_t pid_ = -1;
  std::string log_path_;
  std::optional<int> status_;
};

// Waits until `predicate` returns true, polling every 20 ms, for at most `timeout`.
template <typename Predicate>
bool WaitFor(Predicate predicate, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (predicate()) return true;
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, nullptr);
  }
  return predicate();
}

// Path of a binary built by this build tree (EDGEMOND_BINARY_DIR + relative).
std::string BuiltBinary(const std::string& relative);
// The fake libnvidia-ml.so of tests/fake_nvml, which the NVML tests dlopen.
std::string FakeNvmlPath();

// A TCP port on 127.0.0.1 that was free a moment ago (for programs that cannot report the port
// they bound, such as prometheus).
int FreeLoopbackPort();

}  // namespace edgemond::testing

#endif  // EDGEMOND_TESTS_TESTING_CHILD_PROCESS_H_
