// Daemon: owns every part of a running edgemond and the loop that drives them.
//
// Parts are built in dependency order in Create() and destroyed in reverse (members are declared
// in build order): the device root, the event loop (first, so that it blocks the signals it
// handles before any thread exists), the collectors, the store, the HTTP API.
// Create() fails with one clear Status (root missing, database unusable, port in use) before
// anything runs. Run() collects on a fixed monotonic grid, publishes each tick to the API, appends
// to the store, flushes every flush interval, and on SIGTERM/SIGINT flushes and returns 0.
//
// Logging: the daemon is the only part that logs. A collector or the store failing is logged when
// it breaks and when it recovers, never once per tick.

#ifndef EDGEMOND_DAEMON_DAEMON_H_
#define EDGEMOND_DAEMON_DAEMON_H_

#include <memory>
#include <optional>
#include <string>

#include "collectors/collector_runner.h"
#include "collectors/throttle_events.h"
#include "core/clock.h"
#include "core/result.h"
#include "core/rooted_fs.h"
#include "daemon/api_backend_impl.h"
#include "daemon/config.h"
#include "daemon/event_loop.h"
#include "daemon/scheduler.h"
#include "http/api.h"
#include "http/router.h"
#include "http/server.h"
#include "storage/store.h"

namespace edgemond::daemon {

inline constexpr std::string_view kVersion = EDGEMOND_VERSION;

class Daemon final {
 public:
  // `clock` is borrowed and must outlive the daemon.
  static Result<std::unique_ptr<Daemon>> Create(Config config, const Clock& clock);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Runs until SIGTERM or SIGINT. Returns the process exit code.
  int Run();

  // Where the API is served ("http://127.0.0.1:8867").
  std::string url() const { return server_->url(); }

 private:
  explicit Daemon(Config config, const Clock& clock, RootedFs fs);

  Status Start();
  void Tick();
  void FlushStore(bool final_flush);
  // Turns throttling transitions into log lines and API events.
  void PublishThrottleEvents(const std::vector<Sample>& samples);
  void Shutdown(int signal);

  // Constant after construction.
  const Config config_;
  const Clock& clock_;
  const RootedFs fs_;

  // Built in Start(), in this order; destroyed in reverse.
  std::unique_ptr<EventLoop> loop_;
  int tick_timer_ = -1;
  std::unique_ptr<collectors::CollectorRunner> runner_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ApiBackendImpl> backend_;
  std::unique_ptr<http::Router> router_;
  std::unique_ptr<http::ApiContext> api_context_;
  std::unique_ptr<http::MhdServer> server_;

  // Loop-thread state.
  TickScheduler scheduler_;
  SteadyTime next_flush_;
  std::optional<Status> store_error_;  // Set while the store fails; logged on change only.
  std::uint64_t ticks_ = 0;
  collectors::ThrottleEventTracker throttle_events_;
};

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_DAEMON_H_
