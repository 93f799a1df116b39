// The real edgemond binary under a test that plays systemd's side: the notify protocol (a
// NOTIFY_SOCKET datagram socket, WATCHDOG_USEC/WATCHDOG_PID), SIGHUP reloads, socket activation
// (LISTEN_FDS/LISTEN_PID with the socket as fd 3), and a collector that hangs on a device file.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/unique_fd.h"
#include "tests/testing/child_process.h"
#include "tests/testing/edgemond_process.h"
#include "tests/testing/notify_socket.h"
#include "tests/testing/temp_dir.h"

namespace edgemond {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::EdgemondOptions;
using testing::EdgemondProcess;
using testing::FakeSysfs;
using testing::FixturePath;
using testing::HasLine;
using testing::NotifySocket;
using testing::TempDir;

constexpr const char* kBoard = "jetson-orin-jp6";
constexpr const char* kZone = "sys/devices/virtual/thermal/thermal_zone0";

bool Is(const std::string& assignment, const std::string& message) {
  return HasLine(message, assignment);
}

// A listening TCP socket on 127.0.0.1 with an ephemeral port.
UniqueFd ListeningSocket(std::uint16_t& port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) return {};
  if (::listen(fd.get(), 16) != 0) return {};
  socklen_t length = sizeof(address);
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length);
  port = ntohs(address.sin_port);
  return fd;
}

class SystemdE2eTest : public ::testing::Test {
 protected:
  SystemdE2eTest() : notify_(dir_.Join("notify.sock")) {}

  // Starts edgemond on a copy of the Orin fixture (so a test may change its files), collecting
  // 10 times a second, with NOTIFY_SOCKET and a watchdog of `watchdog`.
  void Start(const std::string& config = R"({"alerts": {"sink": "stderr"}})",
             milliseconds watchdog = milliseconds(1000), EdgemondOptions options = {}) {
    ASSERT_TRUE(notify_.ok());
    if (!copied_) {
      root_.CopyTree(FixturePath(std::string("devices/") + kBoard));
      copied_ = true;
    }
    options.env.push_back(notify_.EnvEntry());
    options.env.push_back("WATCHDOG_USEC=" + std::to_string(watchdog.count() * 1000));
    options.child.pid_env.push_back("WATCHDOG_PID");
    daemon_ = std::make_unique<EdgemondProcess>(
        dir_,
        std::vector<std::string>{"--root", root_.path(), "--db", dir_.Join("edgemond.db"),
                                 "--interval", "0.1"},
        config, std::move(options));
    std::string why;
    ASSERT_TRUE(daemon_->WaitReady(why)) << why;
  }

  std::optional<std::string> WaitFor(const std::string& assignment,
                                     milliseconds timeout = milliseconds(10000)) {
    return notify_.WaitFor([&](const std::string& m) { return Is(assignment, m); }, timeout);
  }

  void Reload() {
    ASSERT_TRUE(daemon_->process().Signal(SIGHUP));
    ASSERT_TRUE(WaitFor("RELOADING=1")) << daemon_->process().Output();
    ASSERT_TRUE(WaitFor("READY=1")) << daemon_->process().Output();
  }

  void WriteConfig(const std::string& text) { std::ofstream(dir_.Join("edgemond.json")) << text; }

  json GetJson(const std::string& target) {
    const auto reply = daemon_->Get(target);
    EXPECT_EQ(reply.status, 200) << target << ": " << reply.body;
    return json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  }

  std::vector<std::string> RuleNames() {
    std::vector<std::string> names;
    const json reply = GetJson("/api/v1/alerts/rules");
    for (const json& rule : reply["data"]["rules"]) {
      names.push_back(rule["name"]);
    }
    return names;
  }

  int Stop() {
    EXPECT_TRUE(daemon_->process().Signal(SIGTERM));
    const auto status = daemon_->process().Wait(seconds(10));
    EXPECT_TRUE(status.has_value()) << "edgemond did not exit after SIGTERM";
    return status && WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
  }

  TempDir dir_;
  FakeSysfs root_;
  bool copied_ = false;
  NotifySocket notify_;
  std::unique_ptr<EdgemondProcess> daemon_;
};

TEST_F(SystemdE2eTest, NotifiesReadyStatusWatchdogReloadingAndStoppingInOrder) {
  Start();
  // WaitReady saw /readyz answer; READY=1 came before that, once the first collection was done.
  auto ready = WaitFor("READY=1", milliseconds(5000));
  ASSERT_TRUE(ready) << daemon_->process().Output();
  EXPECT_TRUE(Is("STATUS=", *ready));
  EXPECT_NE(ready->find("STATUS=Collecting "), std::string::npos) << *ready;
  EXPECT_NE(ready->find("serving http://127.0.0.1:"), std::string::npos) << *ready;
  EXPECT_TRUE(std::filesystem::exists(dir_.Join("edgemond.db")));
  // Nothing before READY=1 claimed readiness, and the first message said it was starting.
  ASSERT_FALSE(notify_.history().empty());
  EXPECT_NE(notify_.history().front().find("STATUS=Starting"), std::string::npos);
  for (std::size_t i = 0; i + 1 < notify_.history().size(); ++i) {
    EXPECT_FALSE(Is("READY=1", notify_.history()[i])) << notify_.history()[i];
    EXPECT_FALSE(Is("WATCHDOG=1", notify_.history()[i])) << "a ping before READY=1";
  }

  // WATCHDOG=1 keeps coming, at most every WatchdogSec/4 (250 ms) and well within WatchdogSec.
  std::vector<std::chrono::steady_clock::time_point> pings;
  while (pings.size() < 5) {
    ASSERT_TRUE(WaitFor("WATCHDOG=1", milliseconds(1000))) << "no WATCHDOG=1 within WatchdogSec";
    pings.push_back(std::chrono::steady_clock::now());
  }
  for (std::size_t i = 1; i < pings.size(); ++i) {
    EXPECT_GE(pings[i] - pings[i - 1], milliseconds(150));
    EXPECT_LE(pings[i] - pings[i - 1], milliseconds(800));
  }

  ASSERT_TRUE(daemon_->process().Signal(SIGHUP));
  auto reloading = WaitFor("RELOADING=1");
  ASSERT_TRUE(reloading) << daemon_->process().Output();
  EXPECT_TRUE(Is("MONOTONIC_USEC=", *reloading)) << *reloading;
  struct timespec now {};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const long long usec = std::stoll(reloading->substr(reloading->find("MONOTONIC_USEC=") + 15));
  EXPECT_LE(usec, now.tv_sec * 1000000LL + now.tv_nsec / 1000);
  EXPECT_GT(usec, now.tv_sec * 1000000LL + now.tv_nsec / 1000 - 10'000'000LL);
  ASSERT_TRUE(WaitFor("READY=1")) << "a reload must end with READY=1";
  ASSERT_TRUE(WaitFor("WATCHDOG=1", milliseconds(1000)));

  ASSERT_TRUE(daemon_->process().Signal(SIGTERM));
  ASSERT_TRUE(WaitFor("STOPPING=1")) << daemon_->process().Output();
  const auto status = daemon_->process().Wait(seconds(10));
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
}

// A sensor file that blocks on open(), as a stuck I2C read does: a FIFO without a writer where a
// thermal trip point file was. The thermal collector reads trip points when it rescans its zones,
// and from then on the tick never completes: WATCHDOG=1 must stop (systemd would restart the
// service) although the process, its loop and its HTTP threads are all still there.
// A sensor read that hangs (a FIFO without a writer in place of a thermal trip point) stalls one
// collector, not the loop: the collector is reported as timed out and the watchdog pings go on.
TEST_F(SystemdE2eTest, AHungSensorReadKeepsTheWatchdogFed) {
  Start();
  ASSERT_TRUE(WaitFor("READY=1", milliseconds(5000)));
  ASSERT_TRUE(WaitFor("WATCHDOG=1", milliseconds(1000)));
  const std::string trip = root_.Join(std::string(kZone) + "/trip_point_0_temp");
  ASSERT_EQ(::unlink(trip.c_str()), 0);
  ASSERT_EQ(::mkfifo(trip.c_str(), 0644), 0);

  // The thermal collector reads trip points at its rescans, every 60 ticks (6 s here, longer on
  // a loaded machine or under an emulator).
  const auto thermal = [&] {
    const nlohmann::json collectors =
        nlohmann::json::parse(daemon_->Get("/api/v1/collectors").body, nullptr, false);
    if (!collectors.is_object()) return nlohmann::json();
    for (const nlohmann::json& entry : collectors["data"]["collectors"]) {
      if (entry["collector"] == "thermal") return entry;
    }
    return nlohmann::json();
  };
  // Until it blocks, and for three watchdog periods (1 s here) after, every period has its ping.
  // (Reading the pings also keeps the notification socket's queue from filling up.)
  const auto deadline = std::chrono::steady_clock::now() + seconds(60);
  while (thermal()["state"] != "failing" && std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(WaitFor("WATCHDOG=1", milliseconds(1000))) << daemon_->process().Output();
  }
  ASSERT_EQ(thermal()["state"], "failing") << thermal().dump();
  EXPECT_NE(thermal()["reason"].get<std::string>().find("deadline_exceeded"), std::string::npos)
      << thermal().dump();
  for (int period = 0; period < 3; ++period) {
    EXPECT_TRUE(WaitFor("WATCHDOG=1", milliseconds(1000))) << daemon_->process().Output();
  }
  // Stopping does not wait for the hung read.
  EXPECT_EQ(Stop(), 0);
}

TEST_F(SystemdE2eTest, SighupAppliesAGoodConfigAndRejectsABadOne) {
  const std::string rule_a =
      R"({"name": "a", "metric": "edgemond_thermal_zone_celsius", "op": ">", "trigger": 90,
          "clear": 85})";
  const std::string rule_b =
      R"({"name": "b", "metric": "edgemond_memory_available_ratio", "op": "<", "trigger": 0.05,
          "clear": 0.1})";
  Start(R"({"alerts": {"sink": "stderr", "rules": [)" + rule_a + "]}}");
  ASSERT_TRUE(WaitFor("READY=1", milliseconds(5000)));
  EXPECT_EQ(RuleNames(), std::vector<std::string>{"a"});

  // A good change: one more rule, a rule from alerts.d, a new log level, a new HTTP limit.
  std::filesystem::create_directories(dir_.Join("alerts.d"));
  std::ofstream(dir_.Join("alerts.d/50-extra.json"))
      << R"({"rules": [{"name": "c", "metric": "edgemond_collector_failing", "op": ">",
                        "trigger": 0.5, "clear": 0.5, "for": "3m"}]})";
  WriteConfig(R"({"log_level": "debug", "http": {"max_query_points": 20},
                  "alerts": {"sink": "stderr", "rules": [)" +
              rule_a + "," + rule_b + "]}}");
  Reload();
  EXPECT_EQ(RuleNames(), (std::vector<std::string>{"a", "b", "c"}));
  const std::string output = daemon_->process().Output();
  EXPECT_NE(output.find("3 alert rules loaded (2 added, 0 changed, 0 removed)"), std::string::npos)
      << output;
  EXPECT_NE(output.find("log_level is now debug"), std::string::npos);
  // The new HTTP limit is in force on the same port: 21 points are refused.
  const auto limited =
      daemon_->Get("/api/v1/query?series=edgemond_memory_total_bytes&from=-21&to=now&step=1s");
  EXPECT_EQ(limited.status, 400) << limited.body;

  // A bad change: a syntax error. Rejected, logged, and the running configuration stays.
  WriteConfig(R"({"alerts": {"rules": [)" + rule_a + ",]}}");
  Reload();
  EXPECT_EQ(RuleNames(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_NE(daemon_->process().Output().find(
                "the new configuration was rejected, the running one stays in force: " +
                dir_.Join("edgemond.json") + ":2: syntax error"),
            std::string::npos)
      << daemon_->process().Output();
  // A change that takes a restart is said so, and the rest still applies.
  WriteConfig(R"({"storage": {"retention_days": 30, "max_size_megabytes": 128}, )"
              R"("alerts": {"sink": "stderr"}})");
  Reload();
  EXPECT_EQ(RuleNames(), std::vector<std::string>{"c"});
  for (const char* line : {"storage.retention_days changed from 7 to 30: this takes a restart",
                           "storage.max_size_megabytes changed from 256 to 128: this takes a "
                           "restart"}) {
    EXPECT_NE(daemon_->process().Output().find(line), std::string::npos)
        << daemon_->process().Output();
  }
  EXPECT_EQ(daemon_->Get("/healthz").status, 200);
  EXPECT_EQ(Stop(), 0);
}

TEST_F(SystemdE2eTest, SighupMovesTheListenAddressOrKeepsTheOldOneIfItCannot) {
  std::uint16_t first_port = 0;
  UniqueFd probe = ListeningSocket(first_port);  // Find a free port, then release it.
  probe.reset();
  EdgemondOptions options;
  options.listen_flag = false;
  const auto config = [](std::uint16_t port) {
    return R"({"http": {"listen": "127.0.0.1:)" + std::to_string(port) +
           R"("}, "alerts": {"sink": "stderr"}})";
  };
  Start(config(first_port), milliseconds(1000), std::move(options));
  ASSERT_EQ(daemon_->port(), first_port);

  std::uint16_t busy_port = 0;
  UniqueFd busy = ListeningSocket(busy_port);
  WriteConfig(config(busy_port));
  Reload();
  EXPECT_NE(daemon_->process().Output().find("the new HTTP settings cannot be served"),
            std::string::npos)
      << daemon_->process().Output();
  EXPECT_EQ(testing::HttpGet(first_port, "/healthz").status, 200);

  std::uint16_t second_port = 0;
  UniqueFd second = ListeningSocket(second_port);
  second.reset();
  WriteConfig(config(second_port));
  Reload();
  EXPECT_EQ(testing::HttpGet(second_port, "/healthz").status, 200) << daemon_->process().Output();
  EXPECT_EQ(testing::HttpGet(first_port, "/healthz").status, 0);
  EXPECT_EQ(Stop(), 0);
}

TEST_F(SystemdE2eTest, ServesTheSocketSystemdPasses) {
  std::uint16_t port = 0;
  UniqueFd socket = ListeningSocket(port);
  ASSERT_TRUE(socket);
  EdgemondOptions options;
  options.listen_flag = false;
  options.env.push_back("LISTEN_FDS=1");
  options.env.push_back("LISTEN_FDNAMES=edgemond.socket");
  options.child.pid_env.push_back("LISTEN_PID");
  options.child.pass_fd = socket.get();
  Start(R"({"alerts": {"sink": "stderr"}})", milliseconds(1000), std::move(options));
  EXPECT_EQ(daemon_->port(), port);
  EXPECT_NE(daemon_->process().Output().find("on the socket systemd passed"), std::string::npos);
  socket.reset();  // Only the daemon holds it now.
  EXPECT_EQ(testing::HttpGet(port, "/healthz").status, 200);

  // A reload that changes HTTP settings keeps serving the same socket.
  WriteConfig(R"({"http": {"max_query_points": 50}, "alerts": {"sink": "stderr"}})");
  Reload();
  EXPECT_EQ(testing::HttpGet(port, "/healthz").status, 200) << daemon_->process().Output();
  EXPECT_EQ(Stop(), 0);
}

// Alert rules end to end: the test heats and cools a zone by rewriting its temperature file; the
// transitions appear in /api/v1/alerts, the history, /metrics, and as one stderr line each.
std::size_t Occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

TEST_F(SystemdE2eTest, AlertsFireAndResolveOnceEachEverywhere) {
  Start(R"({"alerts": {"sink": "stderr", "rules": [
    {"name": "cpu_hot", "metric": "edgemond_thermal_zone_celsius",
     "match": {"zone": "cpu-thermal"}, "op": ">", "trigger": 80, "clear": 70, "for": "300ms",
     "severity": "critical", "annotations": {"summary": "{labels.zone} at {value} C"}}]}})");
  const std::string temp = root_.Join(std::string(kZone) + "/temp");
  const auto write_temp = [&](const char* millicelsius) {
    // Rewritten in place: the collector keeps the file open and reads it again every tick.
    std::ofstream(temp, std::ios::trunc) << millicelsius << "\n";
  };
  const auto alerts = [&] {
    const json reply = GetJson("/api/v1/alerts");
    return reply["data"]["alerts"];
  };
  const auto firing_metric = [&] {
    const std::string body = daemon_->Get("/metrics").body;
    const std::string prefix = "edgemond_alert_firing{alert=\"cpu_hot\",severity=\"critical\"} ";
    const std::size_t at = body.find(prefix);
    return at == std::string::npos
               ? std::string("absent")
               : body.substr(at + prefix.size(), body.find('\n', at) - at - prefix.size());
  };
  EXPECT_TRUE(alerts().empty());
  EXPECT_EQ(firing_metric(), "0");

  write_temp("85500");
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const json a = alerts();
        return a.size() == 1 && a[0]["state"] == "firing";
      },
      seconds(10)))
      << daemon_->process().Output();
  json alert = alerts()[0];
  EXPECT_EQ(alert["rule"], "cpu_hot");
  EXPECT_EQ(alert["severity"], "critical");
  EXPECT_EQ(alert["value"], 85.5);
  EXPECT_EQ(alert["labels"]["zone"], "cpu-thermal");
  EXPECT_EQ(alert["annotations"]["summary"], "cpu-thermal at 85.5 C");
  EXPECT_TRUE(alert["active_since"].is_number());
  EXPECT_EQ(firing_metric(), "1");

  write_temp("75000");  // Under the trigger, above the clear threshold: still firing.
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(alerts().size(), 1u);
  write_temp("60000");
  ASSERT_TRUE(testing::WaitFor([&] { return alerts().empty(); }, seconds(10)));
  EXPECT_EQ(firing_metric(), "0");                 // Published with the alerts, never behind them.
  std::this_thread::sleep_for(milliseconds(500));  // More ticks: nothing more to say.

  const json history = GetJson("/api/v1/alerts/history?rule=cpu_hot");
  const json& transitions = history["data"]["transitions"];
  ASSERT_EQ(transitions.size(), 2u) << history.dump(2);
  EXPECT_EQ(transitions[0]["state"], "resolved");
  EXPECT_EQ(transitions[0]["reason"], "cleared");
  EXPECT_EQ(transitions[0]["value"], 60);
  EXPECT_EQ(transitions[1]["state"], "firing");
  EXPECT_EQ(transitions[1]["value"], 85.5);
  EXPECT_EQ(transitions[0]["active_since"], transitions[1]["active_since"]);

  const std::string output = daemon_->process().Output();
  EXPECT_EQ(Occurrences(output, "alert cpu_hot{"), 2u) << output;
  EXPECT_EQ(Occurrences(output, "FIRING (critical): value 85.5 > 80"), 1u) << output;
  EXPECT_EQ(Occurrences(output, "RESOLVED (critical): value 60 no longer > 70"), 1u) << output;
  EXPECT_EQ(Stop(), 0);
}

// A restart keeps a firing alert firing, with its start time, and does not log it again.
TEST_F(SystemdE2eTest, AFiringAlertSurvivesARestart) {
  const std::string config = R"({"alerts": {"sink": "stderr", "rules": [
    {"name": "cpu_hot", "metric": "edgemond_thermal_zone_celsius",
     "match": {"zone": "cpu-thermal"}, "op": ">", "trigger": 80, "clear": 70}]}})";
  root_.CopyTree(FixturePath(std::string("devices/") + kBoard));
  copied_ = true;
  std::ofstream(root_.Join(std::string(kZone) + "/temp"), std::ios::trunc) << "90000\n";
  Start(config);
  const auto alerts = [&] {
    const json reply = GetJson("/api/v1/alerts");
    return reply["data"]["alerts"];
  };
  ASSERT_TRUE(testing::WaitFor([&] { return alerts().size() == 1; }, seconds(10)));
  const json since = alerts()[0]["active_since"];
  EXPECT_EQ(Stop(), 0);

  Start(config);
  ASSERT_EQ(alerts().size(), 1u);
  EXPECT_EQ(alerts()[0]["state"], "firing");
  EXPECT_EQ(alerts()[0]["active_since"], since);
  const std::string output = daemon_->process().Output();
  EXPECT_EQ(Occurrences(output, "FIRING"), 0u) << output;
  EXPECT_NE(output.find("restored 1 alert that was firing"), std::string::npos) << output;
  EXPECT_EQ(Stop(), 0);
}

}  // namespace
}  // namespace edgemond
