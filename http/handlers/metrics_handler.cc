// GET /metrics: the latest collection in Prometheus text format 0.0.4, plus edgemond's own
// build and HTTP metrics.

#include "http/api.h"
#include "http/prometheus_text.h"

namespace edgemond::http {
namespace {

constexpr MetricDesc kBuildInfo{"edgemond_build_info",
                                "edgemond build information; the value is always 1",
                                MetricType::kGauge, ""};
constexpr MetricDesc kHttpRequests{"edgemond_http_requests_total",
                                   "HTTP requests served, by handler", MetricType::kCounter, ""};
constexpr MetricDesc kHttpErrors{"edgemond_http_request_errors_total",
                                 "HTTP requests answered with a 4xx or 5xx status, by handler",
                                 MetricType::kCounter, ""};
constexpr MetricDesc kConnectionsClosed{
    "edgemond_http_connections_closed_total",
    "Connections the server shut down: a request that did not arrive within "
    "http.read_timeout_seconds (read_timeout), or one waiting the longest when a new connection "
    "went over a limit (evicted)",
    MetricType::kCounter, ""};

constexpr MetricDesc kNewestStored{
    "edgemond_storage_newest_sample_timestamp_seconds",
    "The newest sample written to the database (committed: a crash keeps it), seconds since the "
    "epoch; absent before the first write",
    MetricType::kGauge, "seconds"};
constexpr MetricDesc kPendingSamples{
    "edgemond_storage_pending_samples",
    "Samples collected and not yet written: at most a flush interval's, more while writes fail",
    MetricType::kGauge, ""};
constexpr MetricDesc kDatabaseBytes{"edgemond_storage_database_bytes", "Size of the database file",
                                    MetricType::kGauge, "bytes"};
constexpr MetricDesc kWalBytes{"edgemond_storage_wal_bytes",
                               "Size of the database's write-ahead log", MetricType::kGauge,
                               "bytes"};
constexpr MetricDesc kDiskFull{
    "edgemond_storage_disk_full",
    "1 while the file system is too full to write: samples wait in memory until space returns",
    MetricType::kGauge, ""};

void AppendStorageSamples(const StorageState& state, std::vector<Sample>& samples) {
  if (state.newest_stored_ms) {
    samples.push_back(
        Sample{&kNewestStored, {}, static_cast<double>(*state.newest_stored_ms) / 1000, "", {}});
  }
  samples.push_back(
      Sample{&kPendingSamples, {}, static_cast<double>(state.pending_samples), "", {}});
  samples.push_back(Sample{&kDatabaseBytes, {}, static_cast<double>(state.database_bytes), "", {}});
  samples.push_back(Sample{&kWalBytes, {}, static_cast<double>(state.wal_bytes), "", {}});
  samples.push_back(Sample{&kDiskFull, {}, state.disk_full ? 1.0 : 0.0, "", {}});
}

}  // namespace

Response HandleMetrics(const ApiContext& context, const Request& /*request*/) {
  std::vector<Sample> samples = *context.backend.Latest();
  samples.push_back(Sample{&kBuildInfo, {{"version", context.version}}, 1.0, "", {}});
  for (const Router::RouteStats& stats : context.router.Stats()) {
    samples.push_back(Sample{
        &kHttpRequests, {{"handler", stats.name}}, static_cast<double>(stats.requests), "", {}});
    samples.push_back(
        Sample{&kHttpErrors, {{"handler", stats.name}}, static_cast<double>(stats.errors), "", {}});
  }
  if (context.connections != nullptr) {
    samples.push_back(Sample{&kConnectionsClosed,
                             {{"reason", "read_timeout"}},
                             static_cast<double>(context.connections->timed_out.load()),
                             "",
                             {}});
    samples.push_back(Sample{&kConnectionsClosed,
                             {{"reason", "evicted"}},
                             static_cast<double>(context.connections->evicted.load()),
                             "",
                             {}});
  }
  AppendStorageSamples(context.backend.Storage(), samples);
  Response response;
  response.content_type = kPrometheusContentType;
  response.body = RenderPrometheusText(GroupSamples(samples));
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

}  // namespace edgemond::http
