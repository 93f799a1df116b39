#include "tests/testing/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "core/unique_fd.h"

namespace edgemond::testing {

HttpReply HttpRequest(std::string_view host, std::uint16_t port, std::string_view method,
                      std::string_view target, const std::vector<std::string>& headers,
                      std::string_view body) {
  HttpReply reply;
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  ::inet_pton(AF_INET, std::string(host).c_str(), &address.sin_addr);
  timeval timeout{10, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    reply.error = std::string("connect: ") + std::strerror(errno);
    return reply;
  }
  std::string request = std::string(method) + " " + std::string(target) +
                        " HTTP/1.1\r\nHost: " + std::string(host) + "\r\nConnection: close\r\n";
  for (const std::string& header : headers) request += header + "\r\n";
  if (!body.empty() || method == "POST") {
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n";
  request += body;
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // The server may answer (e.g. 413) before reading everything.
    sent += static_cast<std::size_t>(n);
  }
  std::string raw;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::recv(fd.get(), buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    raw.append(buffer, static_cast<std::size_t>(n));
  }
  const std::size_t header_end = raw.find("\r\n\r\n");
  if (header_end == std::string::npos || raw.compare(0, 5, "HTTP/") != 0) {
    reply.error = "malformed response: " + raw.substr(0, 200);
    return reply;
  }
  reply.status = std::atoi(raw.c_str() + raw.find(' ') + 1);
  std::size_t line_start = raw.find("\r\n") + 2;
  while (line_start < header_end) {
    const std::size_t line_end = raw.find("\r\n", line_start);
    const std::string line = raw.substr(line_start, line_end - line_start);
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::size_t value_start = colon + 1;
      while (value_start < line.size() && line[value_start] == ' ') ++value_start;
      reply.headers[name] = line.substr(value_start);
    }
    line_start = line_end + 2;
  }
  std::string payload = raw.substr(header_end + 4);
  if (reply.headers["transfer-encoding"] == "chunked") {
    std::string decoded;
    std::size_t pos = 0;
    while (pos < payload.size()) {
      const std::size_t line_end = payload.find("\r\n", pos);
      if (line_end == std::string::npos) break;
      const std::size_t size = std::strtoul(payload.c_str() + pos, nullptr, 16);
      if (size == 0) break;
      decoded += payload.substr(line_end + 2, size);
      pos = line_end + 2 + size + 2;
    }
    payload = std::move(decoded);
  }
  reply.body = std::move(payload);
  return reply;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

}  // namespace edgemond::testing
