#include "daemon/systemd_notify.h"

#include <sys/socket.h>
#include <systemd/sd-daemon.h>

#include <cstdlib>

namespace edgemond::daemon {

SystemdNotifier::SystemdNotifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && *socket != '\0';
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(/*unset_environment=*/0, &usec) > 0 && usec > 0) {
    watchdog_ = std::chrono::microseconds(usec);
  }
}

Status SystemdNotifier::Send(const std::string& message) {
  if (!enabled_) return Status::Ok();
  const int r = sd_notify(/*unset_environment=*/0, message.c_str());
  if (r < 0) return Status::FromErrno(-r, "sd_notify");
  return Status::Ok();
}

Status SystemdNotifier::Ready(std::string_view status) {
  return Send("READY=1\nSTATUS=" + std::string(status));
}

Status SystemdNotifier::SetStatus(std::string_view status) {
  return Send("STATUS=" + std::string(status));
}

Status SystemdNotifier::Reloading(SteadyTime now, std::string_view status) {
  // std::chrono::steady_clock is CLOCK_MONOTONIC on Linux, the clock MONOTONIC_USEC is on.
  const auto usec =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  return Send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec) +
              "\nSTATUS=" + std::string(status));
}

Status SystemdNotifier::Stopping(std::string_view status) {
  return Send("STOPPING=1\nSTATUS=" + std::string(status));
}

Status SystemdNotifier::Watchdog() { return Send("WATCHDOG=1"); }

Result<UniqueFd> TakeActivationSocket() {
  const int n = sd_listen_fds(/*unset_environment=*/1);
  if (n < 0) return Status::FromErrno(-n, "reading the sockets systemd passed (LISTEN_FDS)");
  if (n == 0) return UniqueFd();
  if (n > 1) {
    return Status::InvalidArgument("systemd passed " + std::to_string(n) +
                                   " sockets; edgemond serves exactly one (one ListenStream= in "
                                   "edgemond.socket)");
  }
  const int fd = SD_LISTEN_FDS_START;
  if (sd_is_socket(fd, AF_UNSPEC, SOCK_STREAM, /*listening=*/1) <= 0) {
    return Status::InvalidArgument(
        "the socket systemd passed is not a listening stream socket (use ListenStream=)");
  }
  return UniqueFd(fd);
}

}  // namespace edgemond::daemon
