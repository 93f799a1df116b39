#include "tests/testing/notify_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>
#include <sstream>

namespace edgemond::testing {

NotifySocket::NotifySocket(std::string path) : path_(std::move(path)) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (!fd || path_.size() >= sizeof(address.sun_path)) return;
  std::memcpy(address.sun_path, path_.c_str(), path_.size() + 1);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) return;
  fd_ = std::move(fd);
}

std::optional<std::string> NotifySocket::Receive(std::chrono::milliseconds timeout) {
  if (!fd_) return std::nullopt;
  pollfd p{fd_.get(), POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return std::nullopt;
  char buffer[4096];
  const ssize_t n = ::recv(fd_.get(), buffer, sizeof(buffer), 0);
  if (n < 0) return std::nullopt;
  return std::string(buffer, static_cast<std::size_t>(n));
}

std::optional<std::string> NotifySocket::WaitFor(
    const std::function<bool(const std::string&)>& predicate, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto message = Receive(left);
    if (!message) return std::nullopt;
    history_.push_back(*message);
    if (predicate(*message)) return message;
  }
}

bool HasLine(const std::string& message, const std::string& assignment) {
  std::istringstream in(message);
  for (std::string line; std::getline(in, line);) {
    if (assignment.back() == '=' ? line.rfind(assignment, 0) == 0 : line == assignment) {
      return true;
    }
  }
  return false;
}

}  // namespace edgemond::testing
