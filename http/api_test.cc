// Handler tests: each handler is called directly with a Request. The backend here is a small
// in-test implementation of ApiBackend that records the query it was asked and answers from
// fixed data; the real backend (the daemon over SQLite) is covered by the end-to-end tests.

#include "http/api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/testing/fake_clock.h"

namespace edgemond::http {
namespace {

constexpr MetricDesc kUtil{"edgemond_cpu_utilization_ratio", "CPU utilization", MetricType::kGauge,
                           "ratio"};
constexpr MetricDesc kTemp{"edgemond_thermal_zone_celsius", "Zone temperature", MetricType::kGauge,
                           "celsius"};

class FixedBackend : public ApiBackend {
 public:
  std::shared_ptr<const std::vector<Sample>> Latest() const override { return latest; }
  nlohmann::json Device() const override { return {{"hostname", "test-host"}}; }
  Result<std::vector<SeriesInfo>> ListSeries(
      const std::optional<SeriesSelector>& selector) const override {
    std::vector<SeriesInfo> out;
    for (const SeriesInfo& info : catalog) {
      if (!selector || selector->Matches(info.name, info.labels)) out.push_back(info);
    }
    return out;
  }
  Result<QueryResult> Query(const RangeQuery& query) const override {
    last_query = query;
    if (!query_error.ok()) return query_error;
    QueryResult result;
    result.step_ms = query.step_ms;
    result.series.push_back({catalog[0], {{1000, 0.5}, {2000, std::nullopt}, {3000, 0.25}}});
    return result;
  }
  Health GetHealth() const override { return health; }
  StorageState Storage() const override { return storage; }
  std::vector<ActiveAlert> ActiveAlerts() const override { return active; }
  Result<std::vector<AlertTransition>> AlertHistory(const AlertHistoryQuery& query) const override {
    last_history_query = query;
    return history;
  }
  nlohmann::json AlertRules() const override { return nlohmann::json::array({{{"name", "r"}}}); }
  nlohmann::json Collectors() const override {
    return nlohmann::json::array({{{"collector", "cpu"}, {"state", "ok"}, {"reason", nullptr}}});
  }
  std::vector<ApiEvent> Events() const override { return events; }
  Result<std::vector<ModelBenchmarkState>> Benchmarks() const override { return models; }
  Result<std::vector<BenchmarkRun>> BenchmarkHistory(
      const BenchmarkHistoryQuery& query) const override {
    last_benchmark_query = query;
    if (query.model != "m") return Status::NotFound("no model \"" + query.model + "\"");
    return runs;
  }
  Result<BenchmarkRun> BenchmarkRunById(std::int64_t id) const override {
    for (const BenchmarkRun& run : runs) {
      if (run.id == id) return run;
    }
    return Status::NotFound("no benchmark run " + std::to_string(id));
  }
  Result<BenchmarkRun> StartBenchmark(const std::string& model) const override {
    if (model != "m") return Status::NotFound("no model \"" + model + "\" is configured");
    if (running) return Status::FailedPrecondition("run 7 of model m is under way");
    running = true;
    BenchmarkRun run;
    run.id = 8;
    run.model = model;
    run.trigger = "api";
    return run;
  }

  std::shared_ptr<const std::vector<Sample>> latest = std::make_shared<const std::vector<Sample>>();
  std::vector<SeriesInfo> catalog = {
      {"edgemond_cpu_utilization_ratio", {{"cpu", "all"}}, "ratio", MetricType::kGauge, 1000, 3000},
      {"edgemond_thermal_zone_celsius",
       {{"zone", "thermal_zone0"}, {"type", "cpu-thermal"}},
       "celsius",
       MetricType::kGauge,
       1000,
       3000}};
  mutable std::optional<RangeQuery> last_query;
  Status query_error;
  Health health{true, true, ""};
  std::vector<ActiveAlert> active;
  std::vector<AlertTransition> history;
  mutable std::optional<AlertHistoryQuery> last_history_query;
  std::vector<ApiEvent> events;
  std::vector<ModelBenchmarkState> models;
  std::vector<BenchmarkRun> runs;
  mutable std::optional<BenchmarkHistoryQuery> last_benchmark_query;
  mutable bool running = false;
  StorageState storage;
};

class ApiTest : public ::testing::Test {
 protected:
  ApiTest() : router_({}), context_{backend_, clock_, router_, {}, "1.2.3"} {}

  Response Get(std::string path, std::vector<std::pair<std::string, std::string>> query = {}) {
    Request request;
    request.method = "GET";
    request.path = std::move(path);
    request.query = std::move(query);
    return router_.Dispatch(request);
  }
  void SetUp() override { RegisterApiRoutes(router_, context_); }

  FixedBackend backend_;
  testing::FakeClock clock_;
  Router router_;
  ApiContext context_;
};

TEST_F(ApiTest, HealthzAndReadyz) {
  EXPECT_EQ(Get("/healthz").status, 200);
  backend_.health = {true, false, "waiting for the first collection"};
  EXPECT_EQ(Get("/healthz").status, 200);
  const Response ready = Get("/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(nlohmann::json::parse(ready.body)["error"]["message"],
            "waiting for the first collection");
}

TEST_F(ApiTest, MetricsServesLatestSamplesAndSelfMetrics) {
  auto latest = std::make_shared<std::vector<Sample>>();
  latest->push_back(Sample{&kUtil, {{"cpu", "all"}}, 0.5, "", clock_.WallNow()});
  latest->push_back(Sample{&kTemp, {{"zone", "z1"}}, std::nullopt, "EAGAIN", clock_.WallNow()});
  backend_.latest = latest;
  const Response response = Get("/metrics");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.content_type, kPrometheusContentType);
  EXPECT_NE(response.body.find("edgemond_cpu_utilization_ratio{cpu=\"all\"} 0.5\n"),
            std::string::npos);
  EXPECT_EQ(response.body.find("edgemond_thermal_zone_celsius"), std::string::npos);
  EXPECT_NE(response.body.find("edgemond_build_info{version=\"1.2.3\"} 1\n"), std::string::npos);
  EXPECT_NE(response.body.find("edgemond_http_requests_total{handler=\"metrics\"}"),
            std::string::npos);
  // No connection counters given: none reported.
  EXPECT_EQ(response.body.find("edgemond_http_connections_closed_total"), std::string::npos);

  ConnectionCounters counters;
  counters.timed_out = 3;
  counters.evicted = 7;
  context_.connections = &counters;
  const std::string body = Get("/metrics").body;
  context_.connections = nullptr;
  EXPECT_NE(body.find("# TYPE edgemond_http_connections_closed_total counter\n"), std::string::npos)
      << body;
  EXPECT_NE(body.find("edgemond_http_connections_closed_total{reason=\"read_timeout\"} 3\n"),
            std::string::npos);
  EXPECT_NE(body.find("edgemond_http_connections_closed_total{reason=\"evicted\"} 7\n"),
            std::string::npos);
}

TEST_F(ApiTest, MetricsTellWhatTheDatabaseHolds) {
  // Before the first write: no newest sample, the rest as they are.
  backend_.storage.pending_samples = 12;
  std::string body = Get("/metrics").body;
  EXPECT_EQ(body.find("edgemond_storage_newest_sample_timestamp_seconds"), std::string::npos);
  EXPECT_NE(body.find("edgemond_storage_pending_samples 12\n"), std::string::npos) << body;
  EXPECT_NE(body.find("edgemond_storage_disk_full 0\n"), std::string::npos) << body;

  backend_.storage = {1767225600123, 3, 4096 * 1000, 4120 * 7, true};
  body = Get("/metrics").body;
  EXPECT_NE(body.find("# TYPE edgemond_storage_newest_sample_timestamp_seconds gauge\n"
                      "edgemond_storage_newest_sample_timestamp_seconds 1767225600.123\n"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("edgemond_storage_pending_samples 3\n"), std::string::npos);
  EXPECT_NE(body.find("edgemond_storage_database_bytes 4096000\n"), std::string::npos);
  EXPECT_NE(body.find("edgemond_storage_wal_bytes 28840\n"), std::string::npos);
  EXPECT_NE(body.find("edgemond_storage_disk_full 1\n"), std::string::npos);
}

TEST_F(ApiTest, LatestShowsMissingValuesAsNullWithReason) {
  auto latest = std::make_shared<std::vector<Sample>>();
  latest->push_back(Sample{&kUtil, {{"cpu", "all"}}, 0.5, "", clock_.WallNow()});
  latest->push_back(Sample{&kTemp, {{"zone", "z1"}}, std::nullopt, "EAGAIN", clock_.WallNow()});
  backend_.latest = latest;
  auto body = nlohmann::json::parse(Get("/api/v1/latest").body);
  ASSERT_EQ(body["data"].size(), 2u);
  EXPECT_EQ(body["data"][1]["value"], nullptr);
  EXPECT_EQ(body["data"][1]["reason"], "EAGAIN");
  EXPECT_EQ(body["data"][0]["timestamp"], 1767225600);
  body = nlohmann::json::parse(
      Get("/api/v1/latest", {{"match", "edgemond_thermal_zone_celsius"}}).body);
  ASSERT_EQ(body["data"].size(), 1u);
  EXPECT_EQ(Get("/api/v1/latest", {{"match", "bad{"}}).status, 400);
}

TEST_F(ApiTest, LatestIsRenderedOncePerCollectionAndFollowsEachNewOne) {
  auto first = std::make_shared<std::vector<Sample>>();
  first->push_back(Sample{&kUtil, {{"cpu", "all"}}, 0.5, "", clock_.WallNow()});
  backend_.latest = first;
  const auto once = Get("/api/v1/latest");
  EXPECT_EQ(Get("/api/v1/latest").body, once.body);
  EXPECT_EQ(once.content_type, kJsonContentType);
  EXPECT_EQ(once.headers,
            (std::vector<std::pair<std::string, std::string>>{{"Cache-Control", "no-store"}}));
  // The next collection is rendered anew.
  auto second = std::make_shared<std::vector<Sample>>();
  second->push_back(Sample{&kUtil, {{"cpu", "all"}}, 0.75, "", clock_.WallNow()});
  backend_.latest = second;
  auto body = nlohmann::json::parse(Get("/api/v1/latest").body);
  EXPECT_EQ(body["data"][0]["value"], 0.75);
  // A filtered request is rendered for itself, and leaves the unfiltered body as it is.
  body = nlohmann::json::parse(Get("/api/v1/latest", {{"match", "nothing_matches"}}).body);
  EXPECT_TRUE(body["data"].empty());
  body = nlohmann::json::parse(Get("/api/v1/latest").body);
  EXPECT_EQ(body["data"].size(), 1u);
}

TEST_F(ApiTest, SeriesFiltersByMatch) {
  auto body = nlohmann::json::parse(
      Get("/api/v1/series", {{"match", "edgemond_thermal_zone_celsius{type=\"cpu-thermal\"}"}})
          .body);
  ASSERT_EQ(body["data"].size(), 1u);
  EXPECT_EQ(body["data"][0]["labels"]["zone"], "thermal_zone0");
  EXPECT_EQ(body["data"][0]["unit"], "celsius");
  EXPECT_EQ(body["data"][0]["first"], 1);
}

TEST_F(ApiTest, QueryParsesParametersAndServesJsonAndCsv) {
  const Response json = Get("/api/v1/query", {{"series", "edgemond_cpu_utilization_ratio"},
                                              {"from", "-3600"},
                                              {"step", "1m"},
                                              {"agg", "max"}});
  ASSERT_EQ(json.status, 200) << json.body;
  ASSERT_TRUE(backend_.last_query.has_value());
  EXPECT_EQ(backend_.last_query->step_ms, 60000);
  EXPECT_EQ(backend_.last_query->aggregation, Aggregation::kMax);
  EXPECT_EQ(backend_.last_query->to_ms, ToUnixMillis(clock_.WallNow()));
  EXPECT_EQ(backend_.last_query->from_ms, ToUnixMillis(clock_.WallNow()) - 3600000);
  const auto body = nlohmann::json::parse(json.body);
  EXPECT_EQ(body["data"]["series"][0]["points"][1][1], nullptr);
  EXPECT_EQ(body["data"]["series"][0]["points"][0][0], 1);

  const Response csv =
      Get("/api/v1/query", {{"series", "edgemond_cpu_utilization_ratio"}, {"format", "csv"}});
  EXPECT_EQ(csv.content_type, "text/csv; charset=utf-8");
  EXPECT_EQ(csv.body,
            "series,timestamp,value\n"
            "\"edgemond_cpu_utilization_ratio{cpu=\"\"all\"\"}\",1,0.5\n"
            "\"edgemond_cpu_utilization_ratio{cpu=\"\"all\"\"}\",2,\n"
            "\"edgemond_cpu_utilization_ratio{cpu=\"\"all\"\"}\",3,0.25\n");
}

TEST_F(ApiTest, QueryRejectsBadParametersWithTheParameterName) {
  const struct {
    std::vector<std::pair<std::string, std::string>> query;
    std::string param;
  } cases[] = {
      {{}, "series"},
      {{{"series", "x{"}}, "series"},
      {{{"series", "x"}, {"from", "yesterday"}}, "from"},
      {{{"series", "x"}, {"to", "soon"}}, "to"},
      {{{"series", "x"}, {"from", "-10"}, {"to", "-20"}}, "from"},
      {{{"series", "x"}, {"step", "0s"}}, "step"},
      {{{"series", "x"}, {"from", "-86400"}, {"step", "1s"}}, "step"},  // 86401 points.
      {{{"series", "x"}, {"agg", "median"}}, "agg"},
      {{{"series", "x"}, {"format", "xml"}}, "format"},
  };
  for (const auto& c : cases) {
    const Response response = Get("/api/v1/query", c.query);
    EXPECT_EQ(response.status, 400) << c.param << ": " << response.body;
    EXPECT_EQ(nlohmann::json::parse(response.body)["error"]["param"], c.param) << response.body;
  }
}

TEST_F(ApiTest, BackendErrorsMapToHttpStatuses) {
  backend_.query_error = Status::NotFound("no series matches x");
  EXPECT_EQ(Get("/api/v1/query", {{"series", "x"}}).status, 404);
  backend_.query_error = Status::ResourceExhausted("too many points");
  EXPECT_EQ(Get("/api/v1/query", {{"series", "x"}}).status, 422);
  backend_.query_error = Status::Unavailable("database busy");
  EXPECT_EQ(Get("/api/v1/query", {{"series", "x"}}).status, 503);
}

TEST_F(ApiTest, EventsFilterByKindAndTime) {
  const WallTime now = clock_.WallNow();
  backend_.events = {
      {now - std::chrono::hours(2), "throttle", "started", {{"component", "cpu"}}},
      {now - std::chrono::minutes(5), "throttle", "ended", {{"component", "cpu"}}},
      {now - std::chrono::minutes(1), "other", "started", {}},
  };
  auto body = nlohmann::json::parse(Get("/api/v1/events").body);
  EXPECT_EQ(body["data"].size(), 3u);
  body =
      nlohmann::json::parse(Get("/api/v1/events", {{"kind", "throttle"}, {"from", "-3600"}}).body);
  ASSERT_EQ(body["data"].size(), 1u);
  EXPECT_EQ(body["data"][0]["state"], "ended");
  EXPECT_EQ(body["data"][0]["labels"]["component"], "cpu");
  EXPECT_EQ(Get("/api/v1/events", {{"from", "never"}}).status, 400);
}

TEST_F(ApiTest, DeviceAddsTheVersion) {
  const auto body = nlohmann::json::parse(Get("/api/v1/device").body);
  EXPECT_EQ(body["data"]["hostname"], "test-host");
  EXPECT_EQ(body["data"]["edgemond_version"], "1.2.3");
}

TEST_F(ApiTest, CollectorsListsTheBackendsHealth) {
  const Response response = Get("/api/v1/collectors");
  EXPECT_EQ(response.status, 200);
  const auto body = nlohmann::json::parse(response.body);
  ASSERT_EQ(body["data"]["collectors"].size(), 1u);
  EXPECT_EQ(body["data"]["collectors"][0]["state"], "ok");
}

TEST_F(ApiTest, AlertsListsActiveAlertsWithTheirTimes) {
  ActiveAlert alert;
  alert.rule = "zone_hot";
  alert.state = AlertState::kFiring;
  alert.severity = AlertSeverity::kCritical;
  alert.labels = {{"zone", "cpu"}};
  alert.value = 96.5;
  alert.op = ">";
  alert.threshold = 95;
  alert.clear_threshold = 90;
  alert.active_since = FromUnixMillis(1767225600000);
  alert.firing_since = FromUnixMillis(1767225660500);
  alert.annotations = {{"summary", "hot"}};
  backend_.active = {alert};
  const Response response = Get("/api/v1/alerts");
  ASSERT_EQ(response.status, 200);
  const auto body = nlohmann::json::parse(response.body);
  const auto& item = body["data"]["alerts"][0];
  EXPECT_EQ(item["rule"], "zone_hot");
  EXPECT_EQ(item["state"], "firing");
  EXPECT_EQ(item["severity"], "critical");
  EXPECT_EQ(item["labels"]["zone"], "cpu");
  EXPECT_EQ(item["value"], 96.5);
  EXPECT_EQ(item["threshold"], 95);
  EXPECT_EQ(item["clear_threshold"], 90);
  EXPECT_EQ(item["active_since"], 1767225600);
  EXPECT_EQ(item["firing_since"], 1767225660.5);
  EXPECT_TRUE(item["missing_since"].is_null());
  EXPECT_EQ(item["annotations"]["summary"], "hot");
}

TEST_F(ApiTest, AlertHistoryPassesTheRangeAndChecksParameters) {
  AlertTransition t;
  t.rule = "zone_hot";
  t.state = AlertState::kResolved;
  t.reason = "cleared";
  t.at = FromUnixMillis(1767225600000);
  backend_.history = {t};
  const Response response =
      Get("/api/v1/alerts/history", {{"from", "-3600"}, {"rule", "zone_hot"}, {"limit", "5"}});
  ASSERT_EQ(response.status, 200) << response.body;
  const auto body = nlohmann::json::parse(response.body);
  EXPECT_EQ(body["data"]["transitions"][0]["state"], "resolved");
  EXPECT_EQ(body["data"]["transitions"][0]["reason"], "cleared");
  EXPECT_TRUE(body["data"]["transitions"][0]["value"].is_null());
  ASSERT_TRUE(backend_.last_history_query.has_value());
  const std::int64_t now_ms = ToUnixMillis(clock_.WallNow());
  EXPECT_EQ(backend_.last_history_query->from_ms, now_ms - 3600 * 1000);
  EXPECT_EQ(backend_.last_history_query->to_ms, now_ms);
  EXPECT_EQ(backend_.last_history_query->rule, "zone_hot");
  EXPECT_EQ(backend_.last_history_query->limit, 5u);
  EXPECT_EQ(Get("/api/v1/alerts/history", {{"limit", "0"}}).status, 400);
  EXPECT_EQ(Get("/api/v1/alerts/history", {{"from", "soon"}}).status, 400);
  EXPECT_EQ(Get("/api/v1/alerts/history", {{"from", "-10"}, {"to", "-20"}}).status, 400);
  EXPECT_EQ(Get("/api/v1/alerts/rules").status, 200);
}

}  // namespace
}  // namespace edgemond::http

namespace edgemond::http {
namespace {

BenchmarkRun FinishedRun() {
  BenchmarkRun run;
  run.id = 7;
  run.model = "m";
  run.trigger = "schedule";
  run.status = BenchmarkStatus::kSucceeded;
  run.started_at = FromUnixMillis(1767225600000);
  run.finished_at = FromUnixMillis(1767225612500);
  run.model_path = "/m.onnx";
  run.latency_p50_ms = 12.5;
  run.latency_p99_ms = 20;
  run.energy_per_inference_joules = 0.04;
  run.energy_missing_reason = "";
  run.power = {{"input", "input", "integrated", 4.0, 4.5, 40.0}};
  run.readings = {{"edgemond_thermal_zone_celsius", {{"zone", "cpu"}}, 50.0, std::nullopt}};
  run.outputs_match = true;
  run.max_abs_error = 1e-6;
  run.regressions = {"latency"};
  run.hints = {"throttled during the run (cpu/frequency_cap)"};
  run.baseline_runs = 3;
  run.baseline_latency_p50_ms = 10;
  return run;
}

TEST_F(ApiTest, BenchmarksListModelsWithTheirLatestRunAndBaselines) {
  ModelBenchmarkState state;
  state.model = "m";
  state.path = "/m.onnx";
  state.interval_seconds = 3600;
  state.next_run = FromUnixMillis(1767229200000);
  state.latest = FinishedRun();
  state.baselines = {BenchmarkBaseline{"0 MAXN", 3, 10.0, 0.04, 5e7, 45.0, 2e9, std::nullopt}};
  backend_.models = {state};
  const Response response = Get("/api/v1/benchmarks");
  ASSERT_EQ(response.status, 200) << response.body;
  const auto body = nlohmann::json::parse(response.body);
  const auto& model = body["data"]["models"][0];
  EXPECT_EQ(model["model"], "m");
  EXPECT_EQ(model["next_run"], 1767229200);
  EXPECT_EQ(model["running_run_id"], nullptr);
  EXPECT_EQ(model["baselines"][0]["power_mode"], "0 MAXN");
  EXPECT_EQ(model["baselines"][0]["latency_p50_ms"], 10.0);
  EXPECT_EQ(model["baselines"][0]["gpu_frequency_end_hertz"], nullptr);
  const auto& run = model["latest"];
  EXPECT_EQ(run["id"], 7);
  EXPECT_EQ(run["status"], "succeeded");
  EXPECT_EQ(run["error"], nullptr);
  EXPECT_EQ(run["finished_at"], 1767225612.5);
  EXPECT_EQ(run["timing"]["latency_ms"]["p50"], 12.5);
  EXPECT_EQ(run["timing"]["latency_ms"]["min"], nullptr);
  EXPECT_EQ(run["power"]["energy_per_inference_joules"], 0.04);
  EXPECT_EQ(run["power"]["missing_reason"], nullptr);
  EXPECT_EQ(run["power"]["sources"][0]["peak_watts"], 4.5);
  EXPECT_EQ(run["device"]["readings"][0]["labels"]["zone"], "cpu");
  EXPECT_EQ(run["device"]["readings"][0]["end"], nullptr);
  EXPECT_EQ(run["check"]["outputs_match"], true);
  EXPECT_EQ(run["verdict"]["regressions"][0], "latency");
  EXPECT_EQ(run["verdict"]["baseline"]["runs"], 3);
}

TEST_F(ApiTest, BenchmarkHistoryAndOneRun) {
  backend_.runs = {FinishedRun()};
  const Response history = Get("/api/v1/benchmarks/m", {{"from", "-3600"}, {"limit", "5"}});
  ASSERT_EQ(history.status, 200) << history.body;
  EXPECT_EQ(nlohmann::json::parse(history.body)["data"]["runs"][0]["id"], 7);
  ASSERT_TRUE(backend_.last_benchmark_query);
  EXPECT_EQ(backend_.last_benchmark_query->model, "m");
  EXPECT_EQ(backend_.last_benchmark_query->limit, 5u);
  EXPECT_EQ(backend_.last_benchmark_query->from_ms, 1767225600000 - 3600000);
  EXPECT_EQ(Get("/api/v1/benchmarks/nope").status, 404);
  EXPECT_EQ(Get("/api/v1/benchmarks/m", {{"limit", "0"}}).status, 400);

  const Response run = Get("/api/v1/benchmarks/runs/7");
  ASSERT_EQ(run.status, 200);
  EXPECT_EQ(nlohmann::json::parse(run.body)["data"]["run"]["model"], "m");
  EXPECT_EQ(Get("/api/v1/benchmarks/runs/8").status, 404);
  EXPECT_EQ(Get("/api/v1/benchmarks/runs/x").status, 400);
  EXPECT_EQ(Get("/api/v1/benchmarks/runs/-1").status, 400);
}

TEST_F(ApiTest, StartingARunAnswers202ThenConflicts) {
  Request request;
  request.method = "POST";
  request.path = "/api/v1/benchmarks/m/run";
  const Response accepted = router_.Dispatch(request);
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  const auto body = nlohmann::json::parse(accepted.body);
  EXPECT_EQ(body["data"]["id"], 8);
  EXPECT_EQ(body["data"]["poll"], "/api/v1/benchmarks/runs/8");
  EXPECT_EQ(body["data"]["run"]["status"], "running");
  bool location = false;
  for (const auto& [name, value] : accepted.headers) {
    location = location || (name == "Location" && value == "/api/v1/benchmarks/runs/8");
  }
  EXPECT_TRUE(location);

  const Response conflict = router_.Dispatch(request);
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(nlohmann::json::parse(conflict.body)["error"]["code"], "conflict");
  request.path = "/api/v1/benchmarks/other/run";
  EXPECT_EQ(router_.Dispatch(request).status, 404);
  // GET on the run endpoint, POST on a run: the method is wrong, not the path.
  EXPECT_EQ(Get("/api/v1/benchmarks/m/run").status, 405);
  request.path = "/api/v1/benchmarks/runs/8";
  EXPECT_EQ(router_.Dispatch(request).status, 405);
}

TEST(ApiAuthTest, StartingARunNeedsTheBearerToken) {
  FixedBackend backend;
  testing::FakeClock clock;
  Router router(RouterOptions{"s3cret", {}});
  ApiContext context{backend, clock, router, {}, "1"};
  RegisterApiRoutes(router, context);
  Request request;
  request.method = "POST";
  request.path = "/api/v1/benchmarks/m/run";
  EXPECT_EQ(router.Dispatch(request).status, 401);
  EXPECT_FALSE(backend.running);
  request.headers = {{"authorization", "Bearer s3cret"}};
  EXPECT_EQ(router.Dispatch(request).status, 202);
}

}  // namespace
}  // namespace edgemond::http
