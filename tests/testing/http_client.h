// A deliberately tiny HTTP/1.1 client for tests: one request per connection, blocking, loopback.

#ifndef EDGEMOND_TESTS_TESTING_HTTP_CLIENT_H_
#define EDGEMOND_TESTS_TESTING_HTTP_CLIENT_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace edgemond::testing {

struct HttpReply {
  int status = 0;  // 0 when the request failed at the socket level (see error).
  std::map<std::string, std::string> headers;  // Lower-case names.
  std::string body;
  std::string error;
};

// Sends `method target` to host:port with the extra header lines given ("Name: value") and body.
HttpReply HttpRequest(std::string_view host, std::uint16_t port, std::string_view method,
                      std::string_view target, const std::vector<std::string>& headers = {},
                      std::string_view body = {});

inline HttpReply HttpGet(std::uint16_t port, std::string_view target) {
  return HttpRequest("127.0.0.1", port, "GET", target);
}

// Percent-encodes a query parameter value.
std::string UrlEncode(std::string_view text);

}  // namespace edgemond::testing

#endif  // EDGEMOND_TESTS_TESTING_HTTP_CLIENT_H_
