// Self-benchmarks end to end: the real edgemond binary on a copy of a fixture board whose power
// rail or energy counter a test thread keeps rewriting (tests/testing/sensor_writer.h), running
// the real edgemond-bench on real ONNX models (tests/e2e/selfbench_models.h) in a real child
// process, queried over loopback as a user would.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>

#include "tests/e2e/selfbench_models.h"
#include "tests/testing/child_process.h"
#include "tests/testing/edgemond_process.h"
#include "tests/testing/sensor_writer.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/tools.h"

namespace edgemond {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using testing::EdgemondProcess;
using testing::FakeSysfs;
using testing::FixturePath;
using testing::SensorWriter;

// The child edgemond-bench of a sanitizer build reserves terabytes of shadow memory: no address
// space limit there. GCC defines __SANITIZE_ADDRESS__; Clang answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define EDGEMOND_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EDGEMOND_TEST_ASAN 1
#endif
#endif
#if defined(EDGEMOND_TEST_ASAN)
constexpr int kMemoryLimitMb = 0;
#else
constexpr int kMemoryLimitMb = 1024;
#endif

// The input power the sensor writer plays: P(t) = kBase + kSwing sin(2 pi t / kPeriod), watts,
// t in seconds since the writer started.
constexpr double kBase = 6.0;
constexpr double kSwing = 2.0;
constexpr double kPeriod = 1.7;

double PowerAt(double t) { return kBase + kSwing * std::sin(2 * std::numbers::pi * t / kPeriod); }

// The integral of PowerAt over [a, b], joules.
double EnergyBetween(double a, double b) {
  const double w = 2 * std::numbers::pi / kPeriod;
  return kBase * (b - a) + kSwing / w * (std::cos(w * a) - std::cos(w * b));
}

// A JSON number, or NaN (which fails every comparison) when it is not one.
double Num(const json& value) {
  return value.is_number() ? value.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

double SecondsSince(WallTime origin, double unix_seconds) {
  return unix_seconds - std::chrono::duration<double>(origin.time_since_epoch()).count();
}

json Model(const std::string& name, const std::string& path, json extra = json::object()) {
  json model = {{"name", name},
                {"path", path},
                {"interval_seconds", 0},
                {"warmup_runs", 2},
                {"duration_seconds", 1.5},
                {"input_shapes", {{"x", {1, testing::kMlpInputs}}}},
                {"limits", {{"memory_mb", kMemoryLimitMb}, {"deadline_seconds", 60}}}};
  model.update(extra);
  return model;
}

class SelfbenchE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = dir_.Join("mlp.onnx");
    testing::WriteMlp(model_);
  }

  // Copies a fixture board into the tree the daemon reads.
  void CopyBoard(const std::string& board) { board_.CopyTree(FixturePath("devices/" + board)); }

  void Start(json models, json selfbench = json::object(), json extra = json::object()) {
    json config = {{"selfbench",
                    {{"bench_path", testing::BuiltBinary("engine/edgemond-bench")},
                     {"startup_delay_seconds", 0},
                     {"idle_power_seconds", 0.5},
                     {"power_sample_hz", 20},
                     {"baseline_min_runs", 3}}},
                   {"models", std::move(models)},
                   {"alerts", {{"sink", "stderr"}}}};
    config["selfbench"].update(selfbench);
    config.update(extra);
    daemon_ = std::make_unique<EdgemondProcess>(
        dir_,
        std::vector<std::string>{"--root", board_.path(), "--db", dir_.Join("edgemond.db"),
                                 "--interval", "0.1"},
        config.dump(2));
    std::string why;
    ASSERT_TRUE(daemon_->WaitReady(why)) << why;
  }

  json GetJson(const std::string& target, int expected_status = 200) {
    const auto reply = daemon_->Get(target);
    EXPECT_EQ(reply.status, expected_status) << target << "\n" << reply.body;
    return json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  }

  testing::HttpReply Post(const std::string& target, std::vector<std::string> headers = {}) {
    return testing::HttpRequest("127.0.0.1", daemon_->port(), "POST", target, headers);
  }

  // Asks for a run of `model` and waits until it has finished; returns the run.
  json RunNow(const std::string& model, std::vector<std::string> headers = {}) {
    const auto reply = Post("/api/v1/benchmarks/" + model + "/run", std::move(headers));
    EXPECT_EQ(reply.status, 202) << reply.body;
    const json accepted = json::parse(reply.body, nullptr, false);
    if (reply.status != 202) return json();
    EXPECT_EQ(accepted["data"]["run"]["status"], "running");
    return WaitFinished(accepted["data"]["poll"].get<std::string>());
  }

  json WaitFinished(const std::string& poll) {
    json run;
    const bool finished = testing::WaitFor(
        [&] {
          run = GetJson(poll)["data"]["run"];
          return run.is_object() && run["status"] != "running";
        },
        60s);
    EXPECT_TRUE(finished) << poll << " still running\n" << daemon_->process().Output();
    return run;
  }

  std::string Metrics() { return daemon_->Get("/metrics").body; }

  json Alert(const std::string& rule, const std::string& model) {
    const json alerts = GetJson("/api/v1/alerts");
    for (const json& alert : alerts["data"]["alerts"]) {
      if (alert["rule"] == rule && alert["labels"]["model"] == model) return alert;
    }
    return nullptr;
  }

  int StopAndWait() {
    EXPECT_TRUE(daemon_->process().Signal(SIGTERM));
    const auto status = daemon_->process().Wait(std::chrono::seconds(15));
    EXPECT_TRUE(status.has_value()) << "edgemond did not exit after SIGTERM";
    return status && WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
  }

  testing::TempDir dir_;
  FakeSysfs board_;
  std::string model_;
  std::unique_ptr<EdgemondProcess> daemon_;
};

// Jetson Orin: the board's input rail (INA3221 VDD_IN) has no energy counter, so the energy is
// the integral of its power over the timed window.
TEST_F(SelfbenchE2eTest, EnergyPerInferenceFromTheBoardInputRail) {
  CopyBoard("jetson-orin-jp6");
  const std::string ina = testing::ResolveInTree(board_.path(), "sys/class/hwmon/hwmon1");
  {
    std::ifstream name(ina + "/name");
    std::string text;
    std::getline(name, text);
    ASSERT_EQ(text, "ina3221") << ina;
  }
  SensorWriter writer(2ms);
  writer.Add(ina + "/in1_input", [](double) { return 5000; });  // VDD_IN at 5.000 V.
  writer.Add(ina + "/curr1_input", [](double t) {               // mA for P(t) at 5 V.
    return static_cast<std::int64_t>(std::llround(PowerAt(t) / 5.0 * 1000));
  });
  writer.Start();
  Start(json::array({Model("mlp", model_)}), json::object(),
        {{"http", {{"bearer_token", "t0ken"}}}});

  // POST needs the bearer token; the run is accepted at once, and a second one conflicts.
  EXPECT_EQ(Post("/api/v1/benchmarks/mlp/run").status, 401);
  const auto accepted = Post("/api/v1/benchmarks/mlp/run", {"Authorization: Bearer t0ken"});
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  EXPECT_EQ(accepted.headers.at("location").rfind("/api/v1/benchmarks/runs/", 0), 0u);
  const auto conflict = Post("/api/v1/benchmarks/mlp/run", {"Authorization: Bearer t0ken"});
  EXPECT_EQ(conflict.status, 409) << conflict.body;
  const json run = WaitFinished(json::parse(accepted.body)["data"]["poll"].get<std::string>());
  writer.Stop();
  SCOPED_TRACE("run: " + run.dump(2));

  ASSERT_EQ(run["status"], "succeeded");
  EXPECT_EQ(run["trigger"], "api");
  EXPECT_EQ(run["power"]["method"], "integrated");
  EXPECT_EQ(run["power"]["sources"][0]["kind"], "input");
  // Known power over the known window: the energy per inference within 2 %.
  const double from = SecondsSince(writer.start(), Num(run["timing"]["window"]["start"]));
  const double to = SecondsSince(writer.start(), Num(run["timing"]["window"]["end"]));
  const double runs = Num(run["timing"]["runs"]);
  ASSERT_GT(to - from, 1.0);
  ASSERT_GT(runs, 10);
  const double expected = EnergyBetween(from, to) / runs;
  const double measured = Num(run["power"]["energy_per_inference_joules"]);
  RecordProperty("energy_error_percent", std::to_string(100 * (measured / expected - 1)));
  EXPECT_NEAR(measured, expected, 0.02 * expected)
      << "window " << from << " .. " << to << " s, " << runs << " runs";
  EXPECT_NEAR(Num(run["power"]["average_watts"]), EnergyBetween(from, to) / (to - from),
              0.02 * kBase);
  EXPECT_LE(Num(run["power"]["peak_watts"]), kBase + kSwing + 0.01);
  EXPECT_GT(Num(run["power"]["peak_watts"]), Num(run["power"]["average_watts"]));
  EXPECT_NEAR(Num(run["power"]["idle_watts"]), kBase, kSwing + 0.01);
  EXPECT_NEAR(Num(run["power"]["inferences_per_joule"]) * measured, 1.0, 1e-9);
  EXPECT_TRUE(run["power"]["energy_above_idle_per_inference_joules"].is_number());
  // The other rails, from the fixture, at their constant power.
  bool rail = false;
  for (const json& source : run["power"]["sources"]) {
    if (source["name"] == "VDD_CPU_GPU_CV") {
      rail = true;
      EXPECT_NEAR(Num(source["average_watts"]), 5.040 * 0.086, 1e-6);
    }
  }
  EXPECT_TRUE(rail) << run["power"].dump(2);

  // The rest of the record.
  EXPECT_GT(Num(run["timing"]["latency_ms"]["p50"]), 0);
  EXPECT_GE(Num(run["timing"]["latency_ms"]["p99"]), Num(run["timing"]["latency_ms"]["p50"]));
  EXPECT_GT(Num(run["timing"]["throughput_per_second"]), 0);
  EXPECT_GT(Num(run["timing"]["load_ms"]), 0);
  EXPECT_GE(Num(run["timing"]["warmup_ms"]), 0);
  EXPECT_EQ(run["model_info"]["parameters"],
            testing::kMlpInputs * testing::kMlpHidden + testing::kMlpHidden * testing::kMlpOutputs);
  EXPECT_GT(Num(run["model_info"]["file_bytes"]), 0);
  EXPECT_EQ(run["model_info"]["precision"], "float32");
  EXPECT_GT(Num(run["memory"]["peak_rss_bytes"]), 1 << 20);
  EXPECT_GT(Num(run["memory"]["arena_bytes"]), 0);
  EXPECT_EQ(run["process"]["exit_code"], 0);
  EXPECT_GT(Num(run["process"]["cpu_seconds"]), 0.5);
  EXPECT_GT(Num(run["compute"]["gflops_per_second"]), 0);
  EXPECT_GT(Num(run["compute"]["gflops_per_watt"]), 0);
  EXPECT_EQ(run["device"]["power_mode"], "1 7W");
  EXPECT_TRUE(run["device"]["max_temperature_celsius"]["start"].is_number());
  EXPECT_TRUE(run["device"]["max_temperature_celsius"]["end"].is_number());
  EXPECT_TRUE(run["device"]["cpu_frequency_hertz"]["start"].is_number());
  EXPECT_TRUE(run["device"]["gpu_frequency_hertz"]["end"].is_number());
  EXPECT_FALSE(run["device"]["readings"].empty());

  // The API and /metrics show it.
  const json models = GetJson("/api/v1/benchmarks")["data"]["models"];
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0]["latest"]["id"], run["id"]);
  EXPECT_EQ(GetJson("/api/v1/benchmarks/mlp")["data"]["runs"][0]["id"], run["id"]);
  GetJson("/api/v1/benchmarks/nope", 404);
  // The series come with the next collection after the run.
  std::string metrics;
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        metrics = Metrics();
        return metrics.find("edgemond_model_benchmark_success{model=\"mlp\"} 1\n") !=
               std::string::npos;
      },
      5s));
  for (const char* series : {"edgemond_model_latency_seconds{model=\"mlp\",quantile=\"0.5\"} ",
                             "edgemond_model_latency_seconds{model=\"mlp\",quantile=\"0.99\"} ",
                             "edgemond_model_throughput_per_second{model=\"mlp\"} ",
                             "edgemond_model_energy_per_inference_joules{model=\"mlp\"} ",
                             "edgemond_model_power_watts{model=\"mlp\"} ",
                             "edgemond_model_peak_memory_bytes{model=\"mlp\"} ",
                             "edgemond_model_last_run_timestamp_seconds{model=\"mlp\"} ",
                             "edgemond_model_benchmark_success{model=\"mlp\"} 1\n"}) {
    EXPECT_NE(metrics.find(series), std::string::npos) << series;
  }
  // edgemond-bench --report turns the API's answer into the table, power and energy included.
  {
    const std::string answer = dir_.Join("benchmarks.json");
    std::ofstream(answer) << daemon_->Get("/api/v1/benchmarks").body;
    const std::string command =
        testing::BuiltBinary("engine/edgemond-bench") + " --report - < " + answer;
    std::FILE* pipe = ::popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string table;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) table.append(buffer, n);
    EXPECT_EQ(::pclose(pipe), 0) << table;
    const std::size_t row = table.find("\nmlp ");
    ASSERT_NE(row, std::string::npos) << table;
    char watts[32];
    std::snprintf(watts, sizeof(watts), " %.2f ", Num(run["power"]["average_watts"]));
    EXPECT_NE(table.find(watts, row), std::string::npos) << table;
  }
  if (!testing::Promtool().empty()) {
    const std::string file = dir_.Join("metrics.prom");
    std::ofstream(file) << metrics;
    EXPECT_TRUE(testing::PromtoolAccepts(file));
  }
  EXPECT_EQ(StopAndWait(), 0);
}

// x86 with RAPL: the CPU package's energy counter gives the energy by its increase over the
// window. The run is the scheduled one, not one asked for.
TEST_F(SelfbenchE2eTest, EnergyPerInferenceFromTheRaplCounter) {
  CopyBoard("x86-desktop");
  const std::string rapl =
      testing::ResolveInTree(board_.path(), "sys/class/powercap/intel-rapl:0/energy_uj");
  SensorWriter writer(2ms);
  constexpr std::int64_t kStartMicrojoules = 84736512305;
  writer.Add(rapl, [](double t) {
    return kStartMicrojoules + static_cast<std::int64_t>(std::llround(EnergyBetween(0, t) * 1e6));
  });
  writer.Start();
  Start(
      json::array({Model("mlp", model_, {{"interval_seconds", 3600}, {"only_when_idle", true}})}));
  json run;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        run = GetJson("/api/v1/benchmarks")["data"]["models"][0]["latest"];
        return run.is_object();
      },
      60s))
      << daemon_->process().Output();
  writer.Stop();
  SCOPED_TRACE("run: " + run.dump(2));
  ASSERT_EQ(run["status"], "succeeded");
  EXPECT_EQ(run["trigger"], "schedule");
  const double from = SecondsSince(writer.start(), Num(run["timing"]["window"]["start"]));
  const double to = SecondsSince(writer.start(), Num(run["timing"]["window"]["end"]));
  const double runs = Num(run["timing"]["runs"]);
  // The package's own energy, and the input: the package plus any GPU the board reports.
  double gpus = 0;
  bool package = false;
  for (const json& source : run["power"]["sources"]) {
    if (source["kind"] == "rapl" && source["name"] == "package-0") {
      package = true;
      EXPECT_EQ(source["method"], "counter");
      EXPECT_NEAR(Num(source["energy_joules"]), EnergyBetween(from, to),
                  0.02 * EnergyBetween(from, to));
    }
    if (source["kind"] == "gpu") gpus += Num(source["energy_joules"]);
  }
  EXPECT_TRUE(package) << run["power"].dump(2);
  const double expected = (EnergyBetween(from, to) + gpus) / runs;
  RecordProperty(
      "energy_error_percent",
      std::to_string(100 * (Num(run["power"]["energy_per_inference_joules"]) / expected - 1)));
  EXPECT_NEAR(Num(run["power"]["energy_per_inference_joules"]), expected, 0.02 * expected);
  EXPECT_NE(run["power"]["method"].get<std::string>().find("counter"), std::string::npos);
  EXPECT_EQ(StopAndWait(), 0);
}

// A model that cannot be loaded, one that is missing, one that runs past its deadline and a
// benchmark program that crashes: each is a failed run with its reason, and the daemon goes on.
TEST_F(SelfbenchE2eTest, FailedRunsLeaveTheDaemonRunning) {
  CopyBoard("jetson-orin-jp6");
  testing::WriteTruncatedMlp(dir_.Join("corrupt.onnx"), 100);
  testing::WriteMlpGoldenData(dir_.Join("wrong/test_data_set_0"), /*wrong=*/true);
  Start(json::array(
      {Model("corrupt", dir_.Join("corrupt.onnx")), Model("missing", dir_.Join("nope.onnx")),
       Model("runaway", model_,
             {{"runs", 10000000},
              {"limits", {{"memory_mb", kMemoryLimitMb}, {"deadline_seconds", 2}}}}),
       Model("wrong", model_, {{"golden_data", dir_.Join("wrong/test_data_set_0")}})}));

  json run = RunNow("corrupt");
  EXPECT_EQ(run["status"], "failed");
  EXPECT_NE(run["error"].get<std::string>().find("could not be loaded or run (corruption)"),
            std::string::npos)
      << run["error"];
  EXPECT_EQ(GetJson("/healthz")["data"]["alive"], true);

  run = RunNow("missing");
  EXPECT_EQ(run["status"], "failed");
  EXPECT_NE(run["error"].get<std::string>().find("nope.onnx"), std::string::npos) << run["error"];

  run = RunNow("runaway");
  EXPECT_EQ(run["status"], "failed");
  EXPECT_EQ(run["error"], "did not finish within its deadline of 2 s and was killed");
  EXPECT_EQ(run["process"]["signal"], SIGKILL);
  EXPECT_GT(Num(run["process"]["cpu_seconds"]), 0.5);
  EXPECT_EQ(GetJson("/healthz")["data"]["alive"], true);

  // Outputs that do not match the golden data: a run that succeeded, and an alert.
  run = RunNow("wrong");
  EXPECT_EQ(run["status"], "succeeded");
  EXPECT_EQ(run["check"]["outputs_match"], false);
  EXPECT_GE(Num(run["check"]["max_abs_error"]), 0.99);
  EXPECT_EQ(run["verdict"]["regressions"], json::array({"output"}));

  for (const char* model : {"corrupt", "missing", "runaway"}) {
    const json alert = Alert("model_benchmark_failed", model);
    ASSERT_TRUE(alert.is_object()) << model;
    EXPECT_EQ(alert["state"], "firing");
  }
  EXPECT_EQ(Alert("model_output_mismatch", "wrong")["severity"], "critical");
  std::string metrics;
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        metrics = Metrics();
        return metrics.find("edgemond_model_benchmark_success{model=\"wrong\"} 1\n") !=
               std::string::npos;
      },
      5s));
  EXPECT_NE(metrics.find("edgemond_model_benchmark_success{model=\"runaway\"} 0\n"),
            std::string::npos);
  EXPECT_NE(metrics.find(
                "edgemond_alert_firing{alert=\"model_benchmark_failed\",severity=\"warning\"} 3\n"),
            std::string::npos);
  // One line per alert on stderr (the configured sink).
  EXPECT_NE(
      daemon_->process().Output().find("alert model_benchmark_failed{model=\"runaway\"} FIRING"),
      std::string::npos);
  EXPECT_EQ(StopAndWait(), 0);

  // The alerts survive a restart without being logged again; those of the models that left the
  // configuration while edgemond was stopped resolve.
  Start(json::array({Model("corrupt", dir_.Join("corrupt.onnx"))}));
  EXPECT_TRUE(Alert("model_benchmark_failed", "corrupt").is_object());
  EXPECT_TRUE(Alert("model_benchmark_failed", "runaway").is_null());
  EXPECT_TRUE(Alert("model_output_mismatch", "wrong").is_null());
  EXPECT_EQ(StopAndWait(), 0);
  const std::string output = daemon_->process().Output();
  EXPECT_EQ(output.find("alert model_benchmark_failed{model=\"corrupt\"} FIRING"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("alert model_benchmark_failed{model=\"runaway\"} RESOLVED"),
            std::string::npos)
      << output;
}

TEST_F(SelfbenchE2eTest, ACrashingBenchmarkIsAFailedRun) {
  CopyBoard("jetson-orin-jp6");
  Start(json::array({Model("mlp", model_)}),
        {{"bench_path", testing::BuiltBinary("tests/edgemond_crashing_bench")}});
  const json run = RunNow("mlp");
  EXPECT_EQ(run["status"], "failed");
  EXPECT_EQ(run["process"]["signal"], SIGSEGV);
  EXPECT_NE(run["error"].get<std::string>().find("killed by SIGSEGV (segmentation fault)"),
            std::string::npos)
      << run["error"];
  EXPECT_NE(run["error"].get<std::string>().find("loading the model"), std::string::npos);
  EXPECT_EQ(GetJson("/healthz")["data"]["alive"], true);
  EXPECT_TRUE(Alert("model_benchmark_failed", "mlp").is_object());
  EXPECT_EQ(StopAndWait(), 0);
}

// Three good runs make a baseline; a run on a 16 times bigger input is a regression, with the
// change of settings among its likely causes; going back resolves it. The input is 16 times
// bigger and the run about as many times slower, so margins of 3x hold on a machine loaded by
// other tests (ASan builds, parallel ctest) where the default 1.2x would catch its noise.
TEST_F(SelfbenchE2eTest, ARegressionAlertFiresOnASlowedDownRun) {
  CopyBoard("jetson-orin-jp6");
  testing::WriteMlpGoldenData(dir_.Join("golden/test_data_set_0"));
  const json fast = Model("mlp", model_,
                          {{"duration_seconds", 0.5},
                           {"golden_data", dir_.Join("golden/test_data_set_0")},
                           {"tolerance", 0.0001},
                           {"regression_margin", {{"latency_ratio", 2}, {"energy_ratio", 2}}}});
  Start(json::array({fast}));
  for (int i = 0; i < 3; ++i) {
    const json run = RunNow("mlp");
    ASSERT_EQ(run["status"], "succeeded") << run.dump(2);
    EXPECT_EQ(run["check"]["outputs_match"], true);
    EXPECT_TRUE(run["verdict"]["regressions"].empty()) << run["verdict"];
  }
  EXPECT_EQ(GetJson("/api/v1/benchmarks")["data"]["models"][0]["baselines"][0]["runs"], 3);

  // Reload with a bigger input (the golden data fixes batch 1, so it goes too).
  json slow = fast;
  slow["input_shapes"]["x"] = {16, testing::kMlpInputs};
  slow["golden_data"] = "";
  std::filesystem::create_directories(dir_.Join("conf.d"));
  std::ofstream(dir_.Join("conf.d/60-models.json")) << json{{"models", {slow}}}.dump();
  ASSERT_TRUE(daemon_->process().Signal(SIGHUP));
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return GetJson("/api/v1/benchmarks")["data"]["models"][0]["settings"]
                   .get<std::string>()
                   .find("16x256") != std::string::npos;
      },
      10s));
  const json run = RunNow("mlp");
  ASSERT_EQ(run["status"], "succeeded") << run.dump(2);
  // 16 times the work at the same board power: slower, and hungrier for energy per inference.
  EXPECT_EQ(run["verdict"]["regressions"], json::array({"latency", "energy"})) << run["verdict"];
  EXPECT_EQ(run["verdict"]["baseline"]["runs"], 3);
  bool settings_hint = false;
  for (const json& hint : run["verdict"]["hints"]) {
    settings_hint =
        settings_hint || hint.get<std::string>().find("settings changed") != std::string::npos;
  }
  EXPECT_TRUE(settings_hint) << run["verdict"];

  const json alert = Alert("model_latency_regression", "mlp");
  ASSERT_TRUE(alert.is_object()) << GetJson("/api/v1/alerts").dump(2);
  EXPECT_EQ(alert["state"], "firing");
  EXPECT_GT(Num(alert["value"]), 3);
  EXPECT_EQ(alert["threshold"], 3);
  EXPECT_NE(alert["annotations"]["hints"].get<std::string>().find("settings changed"),
            std::string::npos);
  EXPECT_EQ(alert["annotations"]["run"],
            "/api/v1/benchmarks/runs/" + std::to_string(run["id"].get<int>()));
  const json history = GetJson("/api/v1/alerts/history?rule=model_latency_regression");
  ASSERT_EQ(history["data"]["transitions"].size(), 1u);
  EXPECT_EQ(history["data"]["transitions"][0]["state"], "firing");
  // /metrics has it from the next collection on.
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        return Metrics().find(
                   "edgemond_alert_firing{alert=\"model_latency_regression\",severity="
                   "\"warning\"} 1\n") != std::string::npos;
      },
      5s));
  EXPECT_NE(
      daemon_->process().Output().find("alert model_latency_regression{model=\"mlp\"} FIRING"),
      std::string::npos);

  // Back to the small input: the run matches the baseline again and the alert resolves.
  std::ofstream(dir_.Join("conf.d/60-models.json")) << json{{"models", {fast}}}.dump();
  ASSERT_TRUE(daemon_->process().Signal(SIGHUP));
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return GetJson("/api/v1/benchmarks")["data"]["models"][0]["settings"]
                   .get<std::string>()
                   .find("16x256") == std::string::npos;
      },
      10s));
  EXPECT_TRUE(RunNow("mlp")["verdict"]["regressions"].empty());
  EXPECT_TRUE(Alert("model_latency_regression", "mlp").is_null());
  EXPECT_EQ(GetJson("/api/v1/alerts/history?rule=model_latency_regression")["data"]["transitions"]
                                                                           [0]["state"],
            "resolved");
  EXPECT_EQ(StopAndWait(), 0);
}

}  // namespace
}  // namespace edgemond
