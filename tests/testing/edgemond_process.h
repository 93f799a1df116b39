// EdgemondProcess: the real edgemond binary started as a child process, for end-to-end tests.
// It listens on an ephemeral port (127.0.0.1:0); the port is read from the daemon's own log line.

#ifndef EDGEMOND_TESTS_TESTING_EDGEMOND_PROCESS_H_
#define EDGEMOND_TESTS_TESTING_EDGEMOND_PROCESS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/testing/child_process.h"
#include "tests/testing/http_client.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::testing {

struct EdgemondOptions {
  std::vector<std::string> env;  // Extra "NAME=value" environment entries.
  ChildOptions child;            // Pid variables and a socket for fd 3.
  bool listen_flag = true;       // Pass --listen 127.0.0.1:0 (off: the config or fd 3 decides).
  // A command that runs edgemond, its arguments following (e.g. unshare to give it a mount
  // namespace of its own). It must exec edgemond in the end, so that the child's pid is the
  // daemon's. Empty: edgemond is started directly.
  std::vector<std::string> wrapper;
};

class EdgemondProcess {
 public:
  // Starts `edgemond --config <dir>/edgemond.json --listen 127.0.0.1:0 <args...>`, where the
  // config file holds `config_json` ("{}" for the defaults). Logs go to <dir>/edgemond.log.
  EdgemondProcess(const TempDir& dir, std::vector<std::string> args,
                  const std::string& config_json = "{}", EdgemondOptions options = {});

  // Waits for the "serving http://..." log line and then for /readyz to answer 200.
  // Returns false (with the log in `why`) if the daemon exited or did not get ready in time.
  bool WaitReady(std::string& why);

  std::uint16_t port() const { return port_; }
  HttpReply Get(const std::string& target) const { return HttpGet(port_, target); }
  // The value of the /metrics line `series` ("name" or "name{labels}"); nullopt when the line
  // is absent or /metrics does not answer.
  std::optional<double> Metric(const std::string& series) const;
  // edgemond_storage_newest_sample_timestamp_seconds in ms: the newest sample the daemon has
  // written to its database (which it holds against other processes); -1 before the first write.
  std::int64_t NewestStoredMs() const;
  ChildProcess& process() { return *process_; }

 private:
  std::unique_ptr<ChildProcess> process_;
  std::uint16_t port_ = 0;
};

}  // namespace edgemond::testing

#endif  // EDGEMOND_TESTS_TESTING_EDGEMOND_PROCESS_H_
