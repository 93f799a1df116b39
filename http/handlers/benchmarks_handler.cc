// GET /api/v1/benchmarks, GET /api/v1/benchmarks/{model}?from=&to=&limit=,
// GET /api/v1/benchmarks/runs/{id}, POST /api/v1/benchmarks/{model}/run.

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "http/api.h"
#include "http/handlers/json_util.h"
#include "http/time_params.h"

namespace edgemond::http {
namespace {

using Json = nlohmann::json;

constexpr std::int64_t kDefaultHistoryMillis = 30LL * 24 * 3600 * 1000;  // The last 30 days.
constexpr std::size_t kDefaultHistoryLimit = 100;
constexpr std::size_t kMaxHistoryLimit = 10000;

Json Time(WallTime time) { return TimeJson(ToUnixMillis(time)); }
Json Time(const std::optional<WallTime>& time) { return time ? Time(*time) : Json(nullptr); }

template <typename T>
Json Optional(const std::optional<T>& value) {
  if (!value) return nullptr;
  if constexpr (std::is_floating_point_v<T>) return ValueJson(*value);
  return *value;
}

Json Strings(const std::vector<std::string>& items) {
  Json out = Json::array();
  for (const std::string& item : items) out.push_back(item);
  return out;
}

Json RunJson(const BenchmarkRun& run) {
  Json sources = Json::array();
  for (const BenchmarkPowerSource& source : run.power) {
    sources.push_back({{"kind", source.kind},
                       {"name", source.name},
                       {"method", source.method},
                       {"average_watts", ValueJson(source.average_watts)},
                       {"peak_watts", ValueJson(source.peak_watts)},
                       {"energy_joules", ValueJson(source.energy_joules)}});
  }
  Json readings = Json::array();
  for (const BenchmarkReading& reading : run.readings) {
    readings.push_back({{"metric", reading.metric},
                        {"labels", LabelsJson(reading.labels)},
                        {"start", ValueJson(reading.start)},
                        {"end", ValueJson(reading.end)}});
  }
  Json check = nullptr;
  if (run.outputs_match) {
    check = {{"outputs_match", *run.outputs_match},
             {"max_abs_error", ValueJson(run.max_abs_error)},
             {"top1_match", Optional(run.top1_match)}};
  }
  return Json{
      {"id", run.id},
      {"model", run.model},
      {"status", BenchmarkStatusName(run.status)},
      {"trigger", run.trigger},
      {"error", run.error.empty() ? Json(nullptr) : Json(run.error)},
      {"started_at", Time(run.started_at)},
      {"finished_at", Time(run.finished_at)},
      {"model_info",
       {{"path", run.model_path},
        {"file_bytes", Optional(run.model_bytes)},
        {"parameters", Optional(run.parameters)},
        {"flops", Optional(run.flops)},
        {"precision", run.precision.empty() ? Json(nullptr) : Json(run.precision)}}},
      {"settings",
       {{"threads", run.threads}, {"warmup_runs", run.warmup_runs}, {"text", run.settings}}},
      {"timing",
       {{"load_ms", ValueJson(run.load_ms)},
        {"warmup_ms", ValueJson(run.warmup_ms)},
        {"runs", Optional(run.runs)},
        {"window",
         {{"start", Time(run.window_start)},
          {"end", Time(run.window_end)},
          {"seconds", ValueJson(run.window_seconds)}}},
        {"latency_ms",
         {{"min", ValueJson(run.latency_min_ms)},
          {"mean", ValueJson(run.latency_mean_ms)},
          {"p50", ValueJson(run.latency_p50_ms)},
          {"p90", ValueJson(run.latency_p90_ms)},
          {"p99", ValueJson(run.latency_p99_ms)},
          {"max", ValueJson(run.latency_max_ms)}}},
        {"throughput_per_second", ValueJson(run.throughput_per_second)}}},
      {"memory",
       {{"peak_rss_bytes", Optional(run.peak_rss_bytes)},
        {"arena_bytes", Optional(run.arena_bytes)}}},
      {"process",
       {{"exit_code", Optional(run.exit_code)},
        {"signal", Optional(run.signal)},
        {"cpu_seconds", ValueJson(run.cpu_seconds)}}},
      {"power",
       {{"method", run.energy_method.empty() ? Json(nullptr) : Json(run.energy_method)},
        {"missing_reason",
         run.energy_missing_reason.empty() ? Json(nullptr) : Json(run.energy_missing_reason)},
        {"idle_watts", ValueJson(run.idle_watts)},
        {"average_watts", ValueJson(run.average_watts)},
        {"peak_watts", ValueJson(run.peak_watts)},
        {"energy_joules", ValueJson(run.energy_joules)},
        {"energy_per_inference_joules", ValueJson(run.energy_per_inference_joules)},
        {"energy_above_idle_per_inference_joules",
         ValueJson(run.energy_above_idle_per_inference_joules)},
        {"inferences_per_joule", ValueJson(run.inferences_per_joule)},
        {"sources", sources}}},
      {"compute",
       {{"gflops_per_second", ValueJson(run.gflops_per_second)},
        {"gflops_per_watt", ValueJson(run.gflops_per_watt)}}},
      {"device",
       {{"power_mode", run.power_mode.empty() ? Json(nullptr) : Json(run.power_mode)},
        {"throttled", run.throttled},
        {"throttle_reasons", Strings(run.throttle_reasons)},
        {"max_temperature_celsius",
         {{"start", ValueJson(run.max_temperature_start_celsius)},
          {"end", ValueJson(run.max_temperature_end_celsius)}}},
        {"cpu_frequency_hertz",
         {{"start", ValueJson(run.cpu_frequency_start_hertz)},
          {"end", ValueJson(run.cpu_frequency_end_hertz)}}},
        {"gpu_frequency_hertz",
         {{"start", ValueJson(run.gpu_frequency_start_hertz)},
          {"end", ValueJson(run.gpu_frequency_end_hertz)}}},
        {"cpu_cores", Optional(run.cpu_cores)},
        {"system_cpu_utilization", ValueJson(run.system_cpu_utilization)},
        {"other_cpu_utilization", ValueJson(run.other_cpu_utilization)},
        {"readings", readings}}},
      {"check", check},
      {"verdict",
       {{"regressions", Strings(run.regressions)},
        {"hints", Strings(run.hints)},
        {"baseline", run.baseline_runs == 0
                         ? Json(nullptr)
                         : Json{{"runs", run.baseline_runs},
                                {"latency_p50_ms", ValueJson(run.baseline_latency_p50_ms)},
                                {"energy_per_inference_joules",
                                 ValueJson(run.baseline_energy_per_inference_joules)},
                                {"peak_rss_bytes", ValueJson(run.baseline_peak_rss_bytes)}}}}},
  };
}

Json BaselineJson(const BenchmarkBaseline& baseline) {
  return {{"power_mode", baseline.power_mode.empty() ? Json(nullptr) : Json(baseline.power_mode)},
          {"runs", baseline.runs},
          {"latency_p50_ms", ValueJson(baseline.latency_p50_ms)},
          {"energy_per_inference_joules", ValueJson(baseline.energy_per_inference_joules)},
          {"peak_rss_bytes", ValueJson(baseline.peak_rss_bytes)},
          {"max_temperature_start_celsius", ValueJson(baseline.max_temperature_start_celsius)},
          {"cpu_frequency_end_hertz", ValueJson(baseline.cpu_frequency_end_hertz)},
          {"gpu_frequency_end_hertz", ValueJson(baseline.gpu_frequency_end_hertz)}};
}

}  // namespace

Response HandleBenchmarks(const ApiContext& context, const Request& /*request*/) {
  auto states = context.backend.Benchmarks();
  if (!states.ok()) return StatusResponse(states.status());
  Json models = Json::array();
  for (const ModelBenchmarkState& state : *states) {
    Json baselines = Json::array();
    for (const BenchmarkBaseline& baseline : state.baselines) {
      baselines.push_back(BaselineJson(baseline));
    }
    models.push_back({{"model", state.model},
                      {"path", state.path},
                      {"enabled", state.enabled},
                      {"interval_seconds", state.interval_seconds},
                      {"only_when_idle", state.only_when_idle},
                      {"settings", state.settings},
                      {"next_run", Time(state.next_run)},
                      {"waiting_for_idle", state.waiting_for_idle},
                      {"running_run_id", Optional(state.running_run_id)},
                      {"latest", state.latest ? RunJson(*state.latest) : Json(nullptr)},
                      {"baselines", baselines}});
  }
  return JsonData({{"models", models}});
}

Response HandleBenchmarkHistory(const ApiContext& context, const Request& request) {
  const std::int64_t now_ms = ToUnixMillis(context.clock.WallNow());
  BenchmarkHistoryQuery query;
  query.model = std::string(request.PathParam("model").value_or(""));
  query.to_ms = now_ms;
  query.from_ms = now_ms - kDefaultHistoryMillis;
  query.limit = kDefaultHistoryLimit;
  if (const auto to = request.Param("to")) {
    auto parsed = ParseTimeMillis(*to, now_ms);
    if (!parsed.ok()) return StatusResponse(parsed.status(), "to");
    query.to_ms = *parsed;
    if (!request.Param("from")) query.from_ms = query.to_ms - kDefaultHistoryMillis;
  }
  if (const auto from = request.Param("from")) {
    auto parsed = ParseTimeMillis(*from, now_ms);
    if (!parsed.ok()) return StatusResponse(parsed.status(), "from");
    query.from_ms = *parsed;
  }
  if (query.from_ms > query.to_ms) {
    return JsonError(400, "bad_param", "\"from\" is after \"to\"", "from");
  }
  if (const auto limit = request.Param("limit")) {
    auto parsed = ParseUint64(*limit);
    if (!parsed.ok() || *parsed == 0 || *parsed > kMaxHistoryLimit) {
      return JsonError(
          400, "bad_param",
          "\"limit\" must be a whole number from 1 to " + std::to_string(kMaxHistoryLimit),
          "limit");
    }
    query.limit = static_cast<std::size_t>(*parsed);
  }
  auto runs = context.backend.BenchmarkHistory(query);
  if (!runs.ok()) return StatusResponse(runs.status());
  Json items = Json::array();
  for (const BenchmarkRun& run : *runs) items.push_back(RunJson(run));
  return JsonData({{"model", query.model},
                   {"from", TimeJson(query.from_ms)},
                   {"to", TimeJson(query.to_ms)},
                   {"runs", items}});
}

Response HandleBenchmarkRun(const ApiContext& context, const Request& request) {
  const std::string_view text = request.PathParam("id").value_or("");
  const auto id = ParseInt64(text);
  if (!id.ok() || *id <= 0) {
    return JsonError(400, "bad_param",
                     "\"" + std::string(text) + "\" is not a run id (a whole number from 1)", "id");
  }
  auto run = context.backend.BenchmarkRunById(*id);
  if (!run.ok()) return StatusResponse(run.status());
  return JsonData({{"run", RunJson(*run)}});
}

Response HandleStartBenchmark(const ApiContext& context, const Request& request) {
  const std::string model(request.PathParam("model").value_or(""));
  auto run = context.backend.StartBenchmark(model);
  if (!run.ok()) {
    if (run.status().code() == StatusCode::kFailedPrecondition) {
      return JsonError(409, "conflict", run.status().message());
    }
    return StatusResponse(run.status());
  }
  const std::string poll = "/api/v1/benchmarks/runs/" + std::to_string(run->id);
  Response response = JsonData({{"id", run->id}, {"poll", poll}, {"run", RunJson(*run)}});
  response.status = 202;
  response.headers.emplace_back("Location", poll);
  return response;
}

}  // namespace edgemond::http
