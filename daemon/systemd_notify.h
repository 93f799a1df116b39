// The systemd protocols the daemon speaks, after systemd-timesyncd: sd_notify (READY, STATUS,
// RELOADING, STOPPING, WATCHDOG) and socket activation (sd_listen_fds).
//
// Outside systemd (no NOTIFY_SOCKET) every notification is a no-op, so the daemon calls them
// unconditionally.
//
// Thread safety: call from the daemon's loop thread.

#ifndef EDGEMOND_DAEMON_SYSTEMD_NOTIFY_H_
#define EDGEMOND_DAEMON_SYSTEMD_NOTIFY_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/result.h"
#include "core/unique_fd.h"

namespace edgemond::daemon {

class SystemdNotifier {
 public:
  // Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID from the environment (and leaves them
  // there).
  SystemdNotifier();

  // Whether systemd listens (NOTIFY_SOCKET is set).
  bool enabled() const { return enabled_; }
  // WatchdogSec= of the unit when the watchdog is on for this process (WATCHDOG_PID unset or
  // ours): WATCHDOG=1 must arrive more often than this.
  std::optional<std::chrono::microseconds> watchdog() const { return watchdog_; }

  // "READY=1\nSTATUS=<status>": startup (or a reload) is complete.
  Status Ready(std::string_view status);
  // "STATUS=<status>", shown by `systemctl status`.
  Status SetStatus(std::string_view status);
  // "RELOADING=1\nMONOTONIC_USEC=<now>\nSTATUS=<status>"; Ready() ends the reload.
  Status Reloading(SteadyTime now, std::string_view status);
  // "STOPPING=1\nSTATUS=<status>".
  Status Stopping(std::string_view status);
  // "WATCHDOG=1".
  Status Watchdog();

 private:
  Status Send(const std::string& message);

  bool enabled_ = false;
  std::optional<std::chrono::microseconds> watchdog_;
};

// The listening socket systemd passed (socket activation: LISTEN_FDS=1 and LISTEN_PID ours), or
// an empty UniqueFd when there is none. More than one socket, or one that is not a listening
// stream socket, is kInvalidArgument. Unsets LISTEN_* so children do not inherit them.
Result<UniqueFd> TakeActivationSocket();

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_SYSTEMD_NOTIFY_H_
