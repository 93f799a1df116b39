#include "daemon/event_loop.h"

#include <signal.h>
#include <systemd/sd-event.h>

#include <cerrno>
#include <ctime>

namespace edgemond::daemon {

struct EventLoop::Source {
  sd_event_source* source = nullptr;
  std::function<void()> callback;
  ~Source() { sd_event_source_unref(source); }
};

namespace {

int OnSignal(sd_event_source* /*source*/, const signalfd_siginfo* /*info*/, void* userdata) {
  static_cast<std::function<void()>*>(userdata)->operator()();
  return 0;
}

int OnTimer(sd_event_source* /*source*/, uint64_t /*usec*/, void* userdata) {
  static_cast<std::function<void()>*>(userdata)->operator()();
  return 0;
}

std::uint64_t ToMonotonicMicros(SteadyTime when) {
  // std::chrono::steady_clock is CLOCK_MONOTONIC on Linux (libstdc++).
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(when.time_since_epoch()).count();
  return micros < 0 ? 0 : static_cast<std::uint64_t>(micros);
}

}  // namespace

Result<std::unique_ptr<EventLoop>> EventLoop::Create() {
  sd_event* event = nullptr;
  const int r = sd_event_new(&event);
  if (r < 0) return Status::FromErrno(-r, "sd_event_new");
  return std::unique_ptr<EventLoop>(new EventLoop(event));
}

EventLoop::EventLoop(sd_event* event) : event_(event) {}

EventLoop::~EventLoop() {
  sources_.clear();  // Sources hold references to the loop; drop them first.
  sd_event_unref(event_);
}

Status EventLoop::AddSignal(int signal, std::function<void()> callback) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, signal);
  if (sigprocmask(SIG_BLOCK, &mask, nullptr) != 0) {
    return Status::FromErrno(errno, "sigprocmask");
  }
  auto source = std::make_unique<Source>();
  source->callback = std::move(callback);
  const int r = sd_event_add_signal(event_, &source->source, signal, &OnSignal, &source->callback);
  if (r < 0) return Status::FromErrno(-r, "sd_event_add_signal");
  sources_.push_back(std::move(source));
  return Status::Ok();
}

Result<int> EventLoop::AddTimer(std::function<void()> callback) {
  auto source = std::make_unique<Source>();
  source->callback = std::move(callback);
  const int r = sd_event_add_time(event_, &source->source, CLOCK_MONOTONIC, UINT64_MAX,
                                  /*accuracy_usec=*/1000, &OnTimer, &source->callback);
  if (r < 0) return Status::FromErrno(-r, "sd_event_add_time");
  (void)sd_event_source_set_enabled(source->source, SD_EVENT_OFF);
  sources_.push_back(std::move(source));
  return static_cast<int>(sources_.size() - 1);
}

Status EventLoop::ArmTimer(int timer_id, SteadyTime when) {
  sd_event_source* source = sources_.at(static_cast<std::size_t>(timer_id))->source;
  int r = sd_event_source_set_time(source, ToMonotonicMicros(when));
  if (r >= 0) r = sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
  if (r < 0) return Status::FromErrno(-r, "arming timer");
  return Status::Ok();
}

Result<int> EventLoop::Run() {
  const int r = sd_event_loop(event_);
  if (r < 0) return Status::FromErrno(-r, "event loop");
  return r;
}

void EventLoop::Exit(int code) { (void)sd_event_exit(event_, code); }

}  // namespace edgemond::daemon
