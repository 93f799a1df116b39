// EventLoop: RAII over sd-event, the loop the daemon runs in (as systemd-timesyncd does).
// Signals are loop events (no async handlers); timers are absolute CLOCK_MONOTONIC deadlines.
//
// Thread safety: single-threaded; every method and callback runs on the loop's thread.

#ifndef EDGEMOND_DAEMON_EVENT_LOOP_H_
#define EDGEMOND_DAEMON_EVENT_LOOP_H_

#include <functional>
#include <memory>
#include <vector>

#include "core/clock.h"
#include "core/result.h"

struct sd_event;
struct sd_event_source;

namespace edgemond::daemon {

class EventLoop final {
 public:
  static Result<std::unique_ptr<EventLoop>> Create();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Blocks `signal` for the process and delivers it to `callback` from the loop.
  Status AddSignal(int signal, std::function<void()> callback);

  // A one-shot timer; Arm() schedules it at an absolute monotonic time (re-arming replaces the
  // previous deadline). Returns an id for Arm().
  Result<int> AddTimer(std::function<void()> callback);
  Status ArmTimer(int timer_id, SteadyTime when);

  // Runs until Exit(). Returns the exit code given to Exit(), or an error from sd-event.
  Result<int> Run();
  void Exit(int code);

  sd_event* get() const { return event_; }

 private:
  struct Source;
  explicit EventLoop(sd_event* event);

  sd_event* event_;                               // Owned (one reference).
  std::vector<std::unique_ptr<Source>> sources_;  // Each owns its sd_event_source.
};

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_EVENT_LOOP_H_
