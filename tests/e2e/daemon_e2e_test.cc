// The real edgemond binary, started on fixture trees with a temporary database, queried over
// loopback exactly as a user would with curl.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/testing/child_process.h"
#include "tests/testing/edgemond_process.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/tools.h"

namespace edgemond {
namespace {

using nlohmann::json;
using testing::EdgemondProcess;
using testing::FixturePath;
using testing::TempDir;
using testing::UrlEncode;

class DaemonE2eTest : public ::testing::Test {
 protected:
  // Starts edgemond on a fixture board, collecting 10 times a second.
  void StartOn(const std::string& board, const std::string& config = "{}") {
    daemon_ = std::make_unique<EdgemondProcess>(
        dir_,
        std::vector<std::string>{"--root", FixturePath("devices/" + board), "--db",
                                 dir_.Join("edgemond.db"), "--interval", "0.1"},
        config);
    std::string why;
    ASSERT_TRUE(daemon_->WaitReady(why)) << why;
  }

  json GetJson(const std::string& target, int expected_status = 200) {
    const auto reply = daemon_->Get(target);
    EXPECT_EQ(reply.status, expected_status) << target << "\n" << reply.body;
    EXPECT_EQ(reply.headers.count("content-type") ? reply.headers.at("content-type") : "",
              "application/json; charset=utf-8")
        << target;
    return json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  }

  int StopAndWait() {
    EXPECT_TRUE(daemon_->process().Signal(SIGTERM));
    const auto status = daemon_->process().Wait(std::chrono::seconds(10));
    EXPECT_TRUE(status.has_value()) << "edgemond did not exit after SIGTERM";
    return status && WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
  }

  TempDir dir_;
  std::unique_ptr<EdgemondProcess> daemon_;
};

TEST_F(DaemonE2eTest, ServesMetricsFromTheJetsonFixture) {
  StartOn("jetson-orin-jp6");
  const auto reply = daemon_->Get("/metrics");
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& body = reply.body;
  EXPECT_NE(body.find("edgemond_memory_total_bytes 7990145024\n"), std::string::npos) << body;
  EXPECT_NE(body.find("edgemond_thermal_zone_celsius{zone=\"cpu-thermal\",type=\"cpu-thermal\"} "
                      "45.875\n"),
            std::string::npos);
  // The -256000 placeholder zones are absent, never 0.
  EXPECT_EQ(body.find("zone=\"cv0-thermal\",type=\"cv0-thermal\"}"), std::string::npos);
  EXPECT_NE(body.find("edgemond_collector_success{collector=\"cpu\"} 1\n"), std::string::npos);
  EXPECT_NE(body.find("edgemond_build_info{version=\""), std::string::npos);
  // The fixture's /proc/stat does not move, so utilization has no value (not 0).
  EXPECT_EQ(body.find("edgemond_cpu_utilization_ratio"), std::string::npos);

  if (!testing::Promtool().empty()) {
    const std::string file = dir_.Join("metrics.prom");
    std::ofstream(file) << daemon_->Get("/metrics").body;
    EXPECT_TRUE(testing::PromtoolAccepts(file));
  }
  EXPECT_EQ(StopAndWait(), 0);
}

TEST_F(DaemonE2eTest, ApiAnswersFromTheFixture) {
  StartOn("jetson-orin-jp6");
  const json device = GetJson("/api/v1/device");
  EXPECT_EQ(device["status"], "success");
  EXPECT_EQ(device["data"]["hostname"], "orin-nano");
  EXPECT_EQ(device["data"]["kernel"]["release"], "5.15.148-tegra");
  EXPECT_EQ(device["data"]["cpu"]["cores_present"], 6);
  EXPECT_EQ(device["data"]["cpu"]["cores_online"], 4);
  EXPECT_EQ(device["data"]["board"]["model"], "NVIDIA Jetson Orin Nano Developer Kit");
  EXPECT_EQ(device["data"]["board"]["compatible"], "nvidia,p3768-0000+p3767-0005");
  EXPECT_EQ(device["data"]["soc"], "nvidia,tegra234");
  EXPECT_EQ(device["data"]["jetson"]["l4t_release"], "36.4.0");
  EXPECT_EQ(device["data"]["jetson"]["jetpack_version"], "6.1");
  EXPECT_EQ(device["data"]["memory_total_bytes"], 7990145024);
  EXPECT_TRUE(device["data"]["edgemond_version"].is_string());

  const json latest = GetJson("/api/v1/latest?match=" + UrlEncode("edgemond_thermal_zone_celsius"));
  bool saw_placeholder = false;
  for (const json& item : latest["data"]) {
    if (item["labels"]["zone"] == "cv0-thermal") {
      saw_placeholder = true;
      EXPECT_TRUE(item["value"].is_null());
      EXPECT_NE(item["reason"].get<std::string>().find("-256000"), std::string::npos);
    }
    if (item["labels"]["zone"] == "cpu-thermal") {
      EXPECT_EQ(item["value"], 45.875);
    }
  }
  EXPECT_TRUE(saw_placeholder);

  const json series = GetJson("/api/v1/series?match=" + UrlEncode("edgemond_memory_total_bytes"));
  ASSERT_EQ(series["data"].size(), 1u);
  EXPECT_EQ(series["data"][0]["unit"], "bytes");

  // A query sees the samples of the current (unflushed) interval.
  const json query =
      GetJson("/api/v1/query?series=" + UrlEncode("edgemond_memory_total_bytes") + "&from=-60");
  ASSERT_EQ(query["data"]["series"].size(), 1u);
  const json& points = query["data"]["series"][0]["points"];
  ASSERT_GE(points.size(), 1u);
  EXPECT_EQ(points[0][1], 7990145024.0);

  const auto csv = daemon_->Get("/api/v1/query?series=" + UrlEncode("edgemond_memory_total_bytes") +
                                "&format=csv&step=1m");
  EXPECT_EQ(csv.status, 200);
  EXPECT_EQ(csv.body.rfind("series,timestamp,value\n", 0), 0u) << csv.body;

  // Bad parameters: a JSON 400 that names the parameter.
  const json bad = GetJson("/api/v1/query?series=x&step=fast", 400);
  EXPECT_EQ(bad["error"]["param"], "step");
  EXPECT_EQ(GetJson("/api/v1/nope", 404)["status"], "error");
  EXPECT_EQ(StopAndWait(), 0);
}

// /proc/stat advancing under a running daemon: utilization is computed from the deltas.
// A board without a GPU, RAPL or a Jetson's parts: those collectors found nothing, which is not
// a failure, and the daemon says which found what in one line, on /metrics and in the API.
TEST_F(DaemonE2eTest, CollectorsWithoutHardwareAreNotFailures) {
  StartOn("raspberry-pi-4");
  const std::string body = daemon_->Get("/metrics").body;
  // (nvidia_gpu does not run under --root: it would read this host's GPUs, not the tree's.)
  for (const char* absent : {"rapl", "amd_gpu", "jetson_gpu", "emc"}) {
    const std::string labels = std::string("{collector=\"") + absent + "\"} ";
    EXPECT_NE(body.find("edgemond_collector_success" + labels + "1\n"), std::string::npos)
        << absent;
    EXPECT_NE(body.find("edgemond_collector_hardware_present" + labels + "0\n"), std::string::npos)
        << absent;
    EXPECT_NE(body.find("edgemond_collector_failing" + labels + "0\n"), std::string::npos)
        << absent;
  }
  EXPECT_NE(body.find("edgemond_collector_hardware_present{collector=\"thermal\"} 1\n"),
            std::string::npos);

  const json collectors = GetJson("/api/v1/collectors");
  std::map<std::string, json> by_name;
  for (const json& entry : collectors["data"]["collectors"]) by_name[entry["collector"]] = entry;
  ASSERT_EQ(by_name.size(), 13u) << collectors.dump();
  EXPECT_EQ(by_name["cpu"]["state"], "ok");
  EXPECT_TRUE(by_name["cpu"]["reason"].is_null());
  EXPECT_EQ(by_name["thermal"]["state"], "ok");
  EXPECT_EQ(by_name["rapl"]["state"], "no_hardware");
  EXPECT_NE(by_name["rapl"]["reason"].get<std::string>().find("powercap"), std::string::npos);

  // One line sums the collectors up at start-up; none of them is reported as failing.
  const std::string log = daemon_->process().Output();
  const std::regex summary(
      "collectors: [a-z_, ]*cpu[a-z_, ]* read their hardware; [a-z_, ]*rapl"
      "[a-z_, ]* found none of theirs here(; disabled: nvidia_gpu)?\n");
  EXPECT_TRUE(std::regex_search(log, summary)) << log;
  EXPECT_EQ(log.find("failed"), std::string::npos) << log;
  EXPECT_EQ(StopAndWait(), 0);
}

TEST_F(DaemonE2eTest, ComputesUtilizationFromAdvancingCounters) {
  testing::FakeSysfs board;
  board.CopyTree(FixturePath("devices/x86-desktop"));
  daemon_ = std::make_unique<EdgemondProcess>(
      dir_, std::vector<std::string>{"--root", board.path(), "--db", dir_.Join("e.db"),
                                     "--interval", "0.1"});
  std::string why;
  ASSERT_TRUE(daemon_->WaitReady(why)) << why;
  // Rewrite the aggregate and per-core lines with 300 more busy and 100 more idle ticks each:
  // 75 % busy, on every core and in total.
  std::ifstream in(board.Join("proc/stat"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string advanced;
  for (std::string_view line : [&] {
         std::vector<std::string_view> lines;
         std::size_t start = 0;
         while (start < text.size()) {
           const std::size_t end = text.find('\n', start);
           lines.push_back(std::string_view(text).substr(start, end - start));
           start = end + 1;
         }
         return lines;
       }()) {
    std::string out(line);
    if (line.rfind("cpu", 0) == 0) {
      std::istringstream fields{std::string(line)};
      std::string name;
      unsigned long long user, nice, system, idle;
      fields >> name >> user >> nice >> system >> idle;
      std::string rest;
      std::getline(fields, rest);
      out = name + (name == "cpu" ? "  " : " ") + std::to_string(user + 300) + " " +
            std::to_string(nice) + " " + std::to_string(system) + " " + std::to_string(idle + 100) +
            rest;
    }
    advanced += out + "\n";
  }
  board.Write("proc/stat", advanced);
  json value;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const json latest = GetJson("/api/v1/latest?match=" +
                                    UrlEncode("edgemond_cpu_utilization_ratio{cpu=\"all\"}"));
        if (latest["data"].size() != 1 || latest["data"][0]["value"].is_null()) return false;
        value = latest["data"][0]["value"];
        return true;
      },
      std::chrono::seconds(10)));
  EXPECT_DOUBLE_EQ(value.get<double>(), 0.75);
  EXPECT_NE(daemon_->Get("/metrics").body.find("edgemond_cpu_utilization_ratio{cpu=\"0\"} 0.75\n"),
            std::string::npos);
  EXPECT_EQ(StopAndWait(), 0);
}

// A sensor file whose read blocks, as an I2C sensor that holds the bus does: a FIFO with no writer
// in place of coretemp's temp1_input. The hwmon collector times out and is reported so, every
// other collector goes on at every tick, and hwmon comes back once the read returns.
TEST_F(DaemonE2eTest, ASensorReadThatBlocksTimesOutAndTheTicksGoOn) {
  testing::FakeSysfs board;
  board.CopyTree(FixturePath("devices/x86-desktop"));
  const std::string sensor = board.Join("sys/devices/platform/coretemp.0/hwmon/hwmon2/temp1_input");
  ASSERT_EQ(::unlink(sensor.c_str()), 0);
  ASSERT_EQ(::mkfifo(sensor.c_str(), 0644), 0);
  daemon_ = std::make_unique<EdgemondProcess>(
      dir_,
      std::vector<std::string>{"--root", board.path(), "--db", dir_.Join("e.db"), "--interval",
                               "0.1"},
      R"({"collectors": {"timeout_seconds": 0.2}})");
  std::string why;
  ASSERT_TRUE(daemon_->WaitReady(why)) << why;

  const auto state_of = [&](const std::string& name) {
    const json collectors = GetJson("/api/v1/collectors");
    for (const json& entry : collectors["data"]["collectors"]) {
      if (entry["collector"] == name) return entry;
    }
    return json();
  };
  // The first tick waits for hwmon for 0.2 s before it publishes the collectors' health.
  ASSERT_TRUE(testing::WaitFor([&] { return state_of("hwmon")["state"] == "failing"; },
                               std::chrono::seconds(10)))
      << state_of("hwmon").dump();
  const json hwmon = state_of("hwmon");
  const std::string reason = hwmon["reason"].is_string() ? hwmon["reason"].get<std::string>() : "";
  EXPECT_TRUE(reason.find("timed out") != std::string::npos ||
              reason.find("still blocked") != std::string::npos)
      << reason;
  EXPECT_EQ(state_of("memory")["state"], "ok");
  EXPECT_NE(
      daemon_->Get("/metrics").body.find("edgemond_collector_success{collector=\"hwmon\"} 0\n"),
      std::string::npos);

  // The other collectors go on at 10 Hz: the memory series' timestamp moves on with the clock.
  const auto memory_at = [&] {
    const json latest = GetJson("/api/v1/latest?match=" + UrlEncode("edgemond_memory_total_bytes"));
    return latest["data"].size() == 1 ? latest["data"][0]["timestamp"].get<double>() : 0.0;
  };
  const double before = memory_at();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_GE(memory_at() - before, 1.5);

  // The read returns: a writer opens the FIFO, writes and closes it.
  const int fd = ::open(sensor.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "51000\n", 6), 6);
  ::close(fd);
  ASSERT_TRUE(testing::WaitFor([&] { return state_of("hwmon")["state"] == "ok"; },
                               std::chrono::seconds(10)))
      << state_of("hwmon").dump();
  EXPECT_EQ(StopAndWait(), 0);
  // One warning when it timed out and one line when it came back, not one per tick.
  const std::string log = daemon_->process().Output();
  std::size_t timed_out = 0;
  for (std::size_t at = log.find("timed out"); at != std::string::npos;
       at = log.find("timed out", at + 1)) {
    ++timed_out;
  }
  EXPECT_EQ(timed_out, 1u) << log;
}

// The bearer token never reaches a log line, at the most verbose level: not at start, not when a
// request brings a wrong one or the right one, not when a reload changes it, not at stop.
TEST_F(DaemonE2eTest, NoSecretReachesALogLine) {
  const std::string secret = "Tok3n-9f8e7d6c5b";
  const std::string next_secret = "N3xt-Tok3n-a1b2c3";
  const std::string guess = "Tok3n-9f8e7d6c5X";
  StartOn("jetson-orin-jp6",
          R"({"log_level": "trace", "http": {"bearer_token": ")" + secret + R"("}})");
  const auto post = [&](const std::vector<std::string>& headers) {
    return testing::HttpRequest("127.0.0.1", daemon_->port(), "POST",
                                "/api/v1/benchmarks/nothing/run", headers)
        .status;
  };
  EXPECT_EQ(post({}), 401);
  EXPECT_EQ(post({"Authorization: Bearer " + guess}), 401);
  EXPECT_EQ(post({"Authorization: Bearer " + secret}), 404);  // Authorized; no such model.

  std::ofstream(dir_.Join("edgemond.json"))
      << R"({"log_level": "trace", "http": {"bearer_token": ")" + next_secret + R"("}})";
  ASSERT_TRUE(daemon_->process().Signal(SIGHUP));
  // Until the old server has stopped, a connection may still reach it and its token: wait for
  // the reload to have replaced it.
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return daemon_->process().Output().find("HTTP settings applied") != std::string::npos;
      },
      std::chrono::seconds(10)));
  EXPECT_EQ(post({"Authorization: Bearer " + next_secret}), 404);
  EXPECT_EQ(post({"Authorization: Bearer " + secret}), 401);
  EXPECT_EQ(StopAndWait(), 0);

  const std::string log = daemon_->process().Output();
  EXPECT_NE(log.find(" debug "), std::string::npos) << "the log is not verbose:\n" << log;
  EXPECT_NE(log.find("HTTP settings applied"), std::string::npos) << "no reload:\n" << log;
  for (const std::string& never : {secret, next_secret, guess}) {
    EXPECT_EQ(log.find(never), std::string::npos) << never << " is in the log:\n" << log;
  }
}

// The Orin fixture's CPU is capped at 960 MHz of 1510.4: a throttle event starts at startup;
// lifting the cap (as jetson_clocks or a power-mode change would) ends it.
TEST_F(DaemonE2eTest, ThrottlingBecomesEvents) {
  testing::FakeSysfs board;
  board.CopyTree(FixturePath("devices/jetson-orin-jp6"));
  daemon_ = std::make_unique<EdgemondProcess>(
      dir_, std::vector<std::string>{"--root", board.path(), "--db", dir_.Join("e.db"),
                                     "--interval", "0.1"});
  std::string why;
  ASSERT_TRUE(daemon_->WaitReady(why)) << why;
  // Both the CPU and the GPU run below their hardware maximum on this fixture.
  const auto cpu_states = [&] {
    std::vector<std::string> states;
    const json events = GetJson("/api/v1/events?kind=throttle");
    for (const json& event : events["data"]) {
      if (event["labels"]["component"] == "cpu" && event["labels"]["reason"] == "frequency_cap") {
        states.push_back(event["state"]);
      }
    }
    return states;
  };
  EXPECT_EQ(cpu_states(), std::vector<std::string>{"started"});

  board.Write("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", "1510400\n");
  ASSERT_TRUE(testing::WaitFor([&] { return cpu_states().size() == 2; }, std::chrono::seconds(10)));
  EXPECT_EQ(cpu_states(), (std::vector<std::string>{"started", "ended"}));
  EXPECT_NE(daemon_->process().Output().find("throttling started: cpu (frequency_cap)"),
            std::string::npos);
  EXPECT_EQ(StopAndWait(), 0);
}

TEST_F(DaemonE2eTest, FlushesOnSigtermAndKeepsDataAcrossRestarts) {
  StartOn("x86-desktop");
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const json q = GetJson("/api/v1/query?series=" + UrlEncode("edgemond_memory_total_bytes") +
                               "&from=-60");
        return q["data"]["series"].size() == 1 && q["data"]["series"][0]["points"].size() >= 3;
      },
      std::chrono::seconds(10)));
  EXPECT_EQ(StopAndWait(), 0);

  // Restart on the same database: the samples of the first run were flushed at SIGTERM.
  StartOn("x86-desktop");
  const json q =
      GetJson("/api/v1/query?series=" + UrlEncode("edgemond_memory_total_bytes") + "&from=-120");
  ASSERT_EQ(q["data"]["series"].size(), 1u);
  EXPECT_GE(q["data"]["series"][0]["points"].size(), 3u);
  EXPECT_EQ(StopAndWait(), 0);
}

// Runs edgemond to completion and returns (exit status, output).
std::pair<int, std::string> RunToExit(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), testing::BuiltBinary("daemon/edgemond"));
  testing::ChildProcess process(std::move(args), dir.Join("run.log"));
  const auto status = process.Wait(std::chrono::seconds(20));
  return {status && WIFEXITED(*status) ? WEXITSTATUS(*status) : -1, process.Output()};
}

TEST(DaemonBadInputTest, MissingRootIsOneClearMessage) {
  TempDir dir;
  const auto [code, output] =
      RunToExit(dir, {"--config", dir.Join("none.json"), "--root", "/nonexistent/board"});
  EXPECT_EQ(code, 78) << output;  // The named config file does not exist.
  std::ofstream(dir.Join("e.json")) << "{}";
  const auto [code2, output2] =
      RunToExit(dir, {"--config", dir.Join("e.json"), "--root", "/nonexistent/board", "--db",
                      dir.Join("x.db"), "--listen", "127.0.0.1:0"});
  EXPECT_EQ(code2, 1);
  EXPECT_NE(output2.find("/nonexistent/board"), std::string::npos) << output2;
}

TEST(DaemonBadInputTest, ConfigErrorsNameFileLineAndKeyWithStatus78) {
  TempDir dir;
  std::ofstream(dir.Join("bad.json")) << "{\n  \"storage\": {\n    \"retention\": 7\n  }\n}\n";
  const auto [code, output] = RunToExit(dir, {"--config", dir.Join("bad.json")});
  EXPECT_EQ(code, 78);
  EXPECT_NE(output.find(dir.Join("bad.json") + ":3: storage.retention: unknown key"),
            std::string::npos)
      << output;
  std::ofstream(dir.Join("syntax.json")) << "{\n  \"root\": \"/\",,\n}\n";
  const auto [code2, output2] = RunToExit(dir, {"--config", dir.Join("syntax.json")});
  EXPECT_EQ(code2, 78);
  EXPECT_NE(output2.find(dir.Join("syntax.json") + ":2: syntax error"), std::string::npos)
      << output2;
  const auto [code3, output3] = RunToExit(dir, {"--interval", "soon"});
  EXPECT_EQ(code3, 78);
  EXPECT_NE(output3.find("--interval: expected a number"), std::string::npos) << output3;
  const auto [code4, output4] = RunToExit(dir, {"--no-such-flag"});
  EXPECT_EQ(code4, 64);
}

TEST(DaemonBadInputTest, UnwritableDatabaseAndPortInUse) {
  TempDir dir;
  std::ofstream(dir.Join("e.json")) << "{}";
  const std::string root = FixturePath("devices/x86-desktop");
  const auto [code, output] =
      RunToExit(dir, {"--config", dir.Join("e.json"), "--root", root, "--db",
                      "/nonexistent/dir/edgemond.db", "--listen", "127.0.0.1:0"});
  EXPECT_EQ(code, 1);
  EXPECT_NE(output.find("/nonexistent/dir/edgemond.db"), std::string::npos) << output;

  EdgemondProcess first(dir, {"--root", root, "--db", dir.Join("a.db")});
  std::string why;
  ASSERT_TRUE(first.WaitReady(why)) << why;
  const auto [code2, output2] =
      RunToExit(dir, {"--config", dir.Join("e.json"), "--root", root, "--db", dir.Join("b.db"),
                      "--listen", "127.0.0.1:" + std::to_string(first.port())});
  EXPECT_EQ(code2, 1);
  EXPECT_NE(output2.find("Address already in use"), std::string::npos) << output2;
}

TEST(DaemonCliTest, CheckAndPrintConfig) {
  TempDir dir;
  std::ofstream(dir.Join("e.json")) << "{\"http\": {\"threads\": 3}}";
  const auto [code, output] = RunToExit(dir, {"--config", dir.Join("e.json"), "--check-config"});
  EXPECT_EQ(code, 0) << output;
  const auto [code2, output2] =
      RunToExit(dir, {"--config", dir.Join("e.json"), "--print-config", "--db", "/tmp/other.db"});
  EXPECT_EQ(code2, 0);
  const json printed = json::parse(output2);
  EXPECT_EQ(printed["http"]["threads"], 3);
  EXPECT_EQ(printed["storage"]["path"], "/tmp/other.db");
  const auto [code3, output3] = RunToExit(dir, {"--version"});
  EXPECT_EQ(code3, 0);
  EXPECT_EQ(output3.rfind("edgemond ", 0), 0u);
}

}  // namespace
}  // namespace edgemond
