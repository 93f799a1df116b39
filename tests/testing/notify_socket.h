// NotifySocket: systemd's side of the sd_notify protocol, for tests. A datagram socket bound in a
// temp dir; a child started with NOTIFY_SOCKET=<path>() sends its READY=1, STATUS=..., WATCHDOG=1,
// RELOADING=1, STOPPING=1 messages here, and the test reads them in order.

#ifndef EDGEMOND_TESTS_TESTING_NOTIFY_SOCKET_H_
#define EDGEMOND_TESTS_TESTING_NOTIFY_SOCKET_H_

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/unique_fd.h"

namespace edgemond::testing {

class NotifySocket {
 public:
  // Binds `path` (which must not exist).
  explicit NotifySocket(std::string path);

  const std::string& path() const { return path_; }
  bool ok() const { return static_cast<bool>(fd_); }
  // "NOTIFY_SOCKET=<path>" for the child's environment.
  std::string EnvEntry() const { return "NOTIFY_SOCKET=" + path_; }

  // The next message, waiting up to `timeout`; nullopt when none came.
  std::optional<std::string> Receive(std::chrono::milliseconds timeout);

  // Receives messages until one satisfies `predicate` (returned) or `timeout` passes (nullopt).
  // Every message received on the way, the matching one included, is appended to history().
  std::optional<std::string> WaitFor(const std::function<bool(const std::string&)>& predicate,
                                     std::chrono::milliseconds timeout);

  // Every message received so far, in order.
  const std::vector<std::string>& history() const { return history_; }

 private:
  std::string path_;
  UniqueFd fd_;
  std::vector<std::string> history_;
};

// Whether a notify message has the line `assignment` ("READY=1"), or a line starting with
// `assignment` when it ends in '=' ("STATUS=").
bool HasLine(const std::string& message, const std::string& assignment);

}  // namespace edgemond::testing

#endif  // EDGEMOND_TESTS_TESTING_NOTIFY_SOCKET_H_
