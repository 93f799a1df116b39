#include "http/connection_guard.h"

#include <sys/socket.h>

#include <algorithm>

namespace edgemond::http {

ConnectionGuard::ConnectionGuard(unsigned max_connections, std::chrono::milliseconds read_timeout)
    : max_connections_(max_connections),
      read_timeout_(read_timeout),
      reaper_([this] { EnforceDeadlines(); }) {}

ConnectionGuard::~ConnectionGuard() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  reaper_.join();
}

void ConnectionGuard::ShutDown(Connection& connection) {
  if (connection.shut_down) return;
  connection.shut_down = true;
  (void)::shutdown(connection.fd, SHUT_RDWR);
}

void ConnectionGuard::Opened(const void* connection, int fd) {
  std::lock_guard lock(mu_);
  Connection& added = connections_[connection];
  added = Connection{fd, false, SteadyClock::now(), false};
  // Connections already shut down are on their way out: they do not hold a slot.
  std::size_t open = 0;
  for (const auto& [key, c] : connections_) open += c.shut_down ? 0 : 1;
  if (open <= max_connections_) return;
  Connection* oldest = nullptr;
  for (auto& [key, c] : connections_) {
    if (c.shut_down || c.answering || key == connection) continue;
    if (oldest == nullptr || c.waiting < oldest->waiting) oldest = &c;
  }
  ShutDown(oldest != nullptr ? *oldest : added);
  ++counts_.evicted;
}

void ConnectionGuard::RequestReceived(const void* connection) {
  std::lock_guard lock(mu_);
  const auto it = connections_.find(connection);
  if (it != connections_.end()) it->second.answering = true;
}

void ConnectionGuard::ResponseDone(const void* connection) {
  std::lock_guard lock(mu_);
  const auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  it->second.answering = false;
  it->second.waiting = SteadyClock::now();
}

void ConnectionGuard::Closed(const void* connection) {
  std::lock_guard lock(mu_);
  connections_.erase(connection);
}

ConnectionGuard::Counts ConnectionGuard::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

void ConnectionGuard::EnforceDeadlines() {
  // A deadline is met within a tenth of the timeout (at most 100 ms late).
  const auto period = std::clamp<std::chrono::milliseconds>(
      read_timeout_ / 10, std::chrono::milliseconds(10), std::chrono::milliseconds(100));
  std::unique_lock lock(mu_);
  while (!stopping_) {
    wake_.wait_for(lock, period);
    const auto now = SteadyClock::now();
    for (auto& [key, c] : connections_) {
      if (c.shut_down || c.answering || now - c.waiting < read_timeout_) continue;
      ShutDown(c);
      ++counts_.timed_out;
    }
  }
}

}  // namespace edgemond::http
