// The floor of edgemond's dependencies: a process that links exactly the shared libraries the
// daemon links (libmicrohttpd and the GnuTLS chain Debian builds it with, libsqlite3, libsystemd,
// libstdc++) and does the least each needs to be in use, the way the daemon uses it: an sd-event
// loop woken once a second, a WAL-mode SQLite database with one table written in one transaction
// every FLUSH_SECONDS (the daemon's storage.flush_interval_seconds, 60 by default), and an HTTP
// server on loopback answering every request with a fixed body. bench/daemon_cost.py runs it next
// to edgemond and reports its RSS, PSS and USS, and its CPU per second: what any daemon built on
// these libraries and woken once a second costs before it does anything of its own.
//
// Usage: edgemond_library_floor DB_FILE [FLUSH_SECONDS]
//        (prints "serving http://127.0.0.1:PORT"; SIGTERM stops)

#include <microhttpd.h>
#include <sqlite3.h>
#include <systemd/sd-event.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

MHD_Result Answer(void*, MHD_Connection* connection, const char*, const char*, const char*,
                  const char*, size_t*, void**) {
  static char body[] = "ok\n";
  MHD_Response* response =
      MHD_create_response_from_buffer(sizeof body - 1, body, MHD_RESPMEM_PERSISTENT);
  const MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return queued;
}

struct Loop {
  sqlite3* db = nullptr;
  sqlite3_stmt* insert = nullptr;
  std::uint64_t interval_us = 1000000;
  std::size_t ticks_per_flush = 60;
  std::vector<std::uint64_t> pending_us;  // Tick times waiting for the next flush.
};

void Flush(Loop& loop) {
  sqlite3_exec(loop.db, "BEGIN", nullptr, nullptr, nullptr);
  for (const std::uint64_t tick_us : loop.pending_us) {
    sqlite3_bind_int64(loop.insert, 1, static_cast<sqlite3_int64>(tick_us));
    sqlite3_step(loop.insert);
    sqlite3_reset(loop.insert);
  }
  sqlite3_exec(loop.db, "COMMIT", nullptr, nullptr, nullptr);
  loop.pending_us.clear();
}

int OnTick(sd_event_source* source, std::uint64_t now_us, void* data) {
  auto* loop = static_cast<Loop*>(data);
  loop->pending_us.push_back(now_us);
  if (loop->pending_us.size() >= loop->ticks_per_flush) Flush(*loop);
  // A time source is one-shot: fired, it is off until enabled again.
  const int r = sd_event_source_set_time(source, now_us + loop->interval_us);
  return r < 0 ? r : sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "edgemond_library_floor: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) return Fail("usage: edgemond_library_floor DB_FILE [FLUSH_SECONDS]");
  Loop loop;
  if (argc == 3) {
    char* end = nullptr;
    errno = 0;
    const long flush_seconds = std::strtol(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || errno != 0 || flush_seconds < 1 ||
        flush_seconds > 86400) {
      return Fail(
          std::string("FLUSH_SECONDS must be a whole number of seconds from 1 to 86400, not \"") +
          argv[2] + "\"");
    }
    loop.ticks_per_flush = static_cast<std::size_t>(flush_seconds);
  }
  loop.pending_us.reserve(loop.ticks_per_flush);
  if (sqlite3_open(argv[1], &loop.db) != SQLITE_OK) return Fail(sqlite3_errmsg(loop.db));
  if (sqlite3_exec(loop.db, "PRAGMA journal_mode=WAL; CREATE TABLE IF NOT EXISTS ticks(t INTEGER)",
                   nullptr, nullptr, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(loop.db, "INSERT INTO ticks VALUES (?)", -1, &loop.insert, nullptr) !=
          SQLITE_OK) {
    return Fail(sqlite3_errmsg(loop.db));
  }
  MHD_Daemon* http = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0,
                                      nullptr, nullptr, &Answer, nullptr, MHD_OPTION_END);
  if (http == nullptr) return Fail("MHD_start_daemon failed");
  const MHD_DaemonInfo* info = MHD_get_daemon_info(http, MHD_DAEMON_INFO_BIND_PORT);
  std::printf("serving http://127.0.0.1:%u\n", static_cast<unsigned>(info->port));
  std::fflush(stdout);

  sd_event* event = nullptr;
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigprocmask(SIG_BLOCK, &stop, nullptr);
  std::uint64_t now_us = 0;
  if (sd_event_default(&event) < 0 || sd_event_now(event, CLOCK_MONOTONIC, &now_us) < 0 ||
      sd_event_add_signal(event, nullptr, SIGTERM, nullptr, nullptr) < 0 ||
      sd_event_add_signal(event, nullptr, SIGINT, nullptr, nullptr) < 0 ||
      sd_event_add_time(event, nullptr, CLOCK_MONOTONIC, now_us + loop.interval_us, 0, &OnTick,
                        &loop) < 0) {
    return Fail("sd-event setup failed");
  }
  const int status = sd_event_loop(event);
  sd_event_unref(event);
  MHD_stop_daemon(http);
  sqlite3_finalize(loop.insert);
  sqlite3_close(loop.db);
  return status < 0 ? 1 : 0;
}
