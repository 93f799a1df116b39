#include "http/connection_guard.h"

#include <sys/socket.h>

#include <algorithm>

namespace edgemond::http {

ConnectionGuard::ConnectionGuard(unsigned max_connections, unsigned max_per_address,
                                 std::chrono::milliseconds read_timeout,
                                 ConnectionCounters* counters)
    : max_connections_(max_connections),
      max_per_address_(max_per_address),
      read_timeout_(read_timeout),
      counters_(counters),
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

template <typename Among>
void ConnectionGuard::Evict(const void* added, Among among) {
  Connection* oldest = nullptr;
  for (auto& [key, c] : connections_) {
    if (c.shut_down || c.answering || key == added || !among(c)) continue;
    if (oldest == nullptr || c.waiting < oldest->waiting) oldest = &c;
  }
  ShutDown(oldest != nullptr ? *oldest : connections_.at(added));
  ++counts_.evicted;
  if (counters_ != nullptr) counters_->evicted.fetch_add(1, std::memory_order_relaxed);
}

void ConnectionGuard::Opened(const void* connection, int fd, std::string address) {
  std::lock_guard lock(mu_);
  Connection& added = connections_[connection];
  added = Connection{fd, std::move(address), false, SteadyClock::now(), false};
  // Connections already shut down are on their way out: they do not hold a slot.
  std::size_t open = 0, from_address = 0;
  for (const auto& [key, c] : connections_) {
    if (c.shut_down) continue;
    ++open;
    if (c.address == added.address) ++from_address;
  }
  if (from_address > max_per_address_) {
    Evict(connection, [&](const Connection& c) { return c.address == added.address; });
  } else if (open > max_connections_) {
    Evict(connection, [](const Connection&) { return true; });
  }
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
      if (counters_ != nullptr) counters_->timed_out.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

}  // namespace edgemond::http
