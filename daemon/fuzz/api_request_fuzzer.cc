// Fuzz target for the HTTP API as a request reaches it once the server has decoded it: method,
// path, query parameters and headers, through the real router, handlers and the daemon's backend
// over a real SQLite database holding two hours of samples, alert transitions, and the Orin
// fixture board as the device. Every request gets an answer: a JSON body that parses (or
// Prometheus text for /metrics), a status below 500 but for 503 when a part is unavailable, and
// for an error a JSON error body saying what is wrong.
//
// Input: the method, a newline, the path, then one line per query parameter ("name=value",
// split at the first '=') or header ("H name: value"). Everything after the path may hold any
// byte but a newline, as a decoded parameter can.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/rooted_fs.h"
#include "daemon/api_backend_impl.h"
#include "http/api.h"
#include "http/router.h"
#include "storage/alert_history.h"
#include "storage/sqlite_store.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/testing/fake_clock.h"

namespace edgemond::daemon {
namespace {

constexpr MetricDesc kTemperature{"edgemond_thermal_zone_celsius", "Zone temperature",
                                  MetricType::kGauge, "celsius"};
constexpr MetricDesc kUtilization{"edgemond_cpu_utilization_ratio", "CPU utilization",
                                  MetricType::kGauge, "ratio"};
constexpr MetricDesc kEnergy{"edgemond_power_rail_energy_joules_total", "Rail energy",
                             MetricType::kCounter, "joules"};

// Everything the requests run against, made once per process.
class World {
 public:
  World() {
    std::string dir_template = (std::filesystem::temp_directory_path() / "api-fuzz-XXXXXX");
    FUZZ_CHECK(mkdtemp(dir_template.data()) != nullptr, "a temporary directory");
    dir_ = dir_template;
    storage::StorageOptions options;
    options.path = dir_ + "/edgemond.db";
    options.ballast_bytes = 0;
    auto store = storage::SqliteStore::Open(options);
    FUZZ_CHECK(store.ok(), "the store opens");
    store_ = std::move(store).value();
    auto history = storage::AlertHistory::Open(options.path);
    FUZZ_CHECK(history.ok(), "the alert history opens");
    history_ = std::move(history).value();
    auto fs = RootedFs::Open(EDGEMOND_FIXTURE_ROOT);
    FUZZ_CHECK(fs.ok(), "the fixture board opens");
    fs_ = std::make_unique<RootedFs>(std::move(fs).value());

    // Two hours at 10 s, ending now, with a gap and a sensor that stops reading.
    std::vector<Sample> latest;
    for (int i = 0; i < 720; ++i) {
      const WallTime at = clock_.WallNow() - std::chrono::seconds(10 * (720 - i));
      if (i >= 300 && i < 330) continue;
      std::vector<Sample> tick;
      for (int zone = 0; zone < 3; ++zone) {
        Sample sample{&kTemperature, {{"zone", "thermal_zone" + std::to_string(zone)}}, {}, {}, at};
        if (zone == 2 && i > 600) {
          sample.missing_reason = "EIO: Input/output error";
        } else {
          sample.value = 40.0 + zone + (i % 17) * 0.5;
        }
        tick.push_back(sample);
      }
      tick.push_back({&kUtilization, {{"cpu", "all"}}, (i % 100) / 100.0, {}, at});
      tick.push_back({&kEnergy, {{"rail", "VDD_IN"}}, 1e4 + i * 12.5, {}, at});
      FUZZ_CHECK(store_->Append(tick).ok(), "append");
      latest = std::move(tick);
    }
    FUZZ_CHECK(store_->Flush().ok(), "flush");
    AlertTransition firing;
    firing.rule = "thermal_zone_hot";
    firing.labels = {{"zone", "thermal_zone1"}};
    firing.value = 91.5;
    firing.op = ">";
    firing.threshold = 90;
    firing.clear_threshold = 85;
    firing.at = firing.active_since = clock_.WallNow() - std::chrono::minutes(30);
    firing.reason = "threshold";
    AlertTransition resolved = firing;
    resolved.state = AlertState::kResolved;
    resolved.at = clock_.WallNow() - std::chrono::minutes(10);
    resolved.reason = "cleared";
    FUZZ_CHECK(history_->Append({firing, resolved}).ok(), "alert history");

    backend_ = std::make_unique<ApiBackendImpl>(*fs_, *store_, clock_, std::chrono::seconds(10));
    backend_->SetAlertHistory(history_.get());
    backend_->PublishTick(latest, {});
    backend_->SetCollectors(
        nlohmann::json::array({{{"collector", "thermal"}, {"state", "ok"}, {"reason", nullptr}}}));
    router_ = std::make_unique<http::Router>(http::RouterOptions{"secret-token", {"http://x"}});
    context_ = std::make_unique<http::ApiContext>(
        http::ApiContext{*backend_, clock_, *router_, http::ApiLimits{}, "fuzz"});
    http::RegisterApiRoutes(*router_, *context_);
  }

  ~World() {
    context_.reset();
    router_.reset();
    backend_.reset();
    history_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  const http::Router& router() const { return *router_; }

 private:
  std::string dir_;
  testing::FakeClock clock_;
  std::unique_ptr<storage::SqliteStore> store_;
  std::unique_ptr<storage::AlertHistory> history_;
  std::unique_ptr<RootedFs> fs_;
  std::unique_ptr<ApiBackendImpl> backend_;
  std::unique_ptr<http::Router> router_;
  std::unique_ptr<http::ApiContext> context_;
};

http::Request ParseInput(std::string_view input) {
  http::Request request;
  std::vector<std::string_view> lines;
  while (!input.empty()) {
    const std::size_t end = input.find('\n');
    lines.push_back(input.substr(0, end));
    input.remove_prefix(end == std::string_view::npos ? input.size() : end + 1);
  }
  request.method = lines.size() > 0 ? std::string(lines[0]) : "GET";
  request.path = lines.size() > 1 ? std::string(lines[1]) : "/";
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.starts_with("H ")) {
      const std::size_t colon = line.find(": ");
      std::string name(line.substr(2, colon == std::string_view::npos ? colon : colon - 2));
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      request.headers.emplace_back(
          name, colon == std::string_view::npos ? "" : std::string(line.substr(colon + 2)));
    } else {
      const std::size_t equals = line.find('=');
      request.query.emplace_back(
          std::string(line.substr(0, equals)),
          equals == std::string_view::npos ? "" : std::string(line.substr(equals + 1)));
    }
  }
  return request;
}

void Check(const http::Router& router, std::string_view input) {
  const http::Request request = ParseInput(input);
  const bool head = request.method == "HEAD";
  const http::Response response = router.Dispatch(request);
  FUZZ_CHECK(response.status >= 200 && response.status < 600, "an HTTP status");
  FUZZ_CHECK(response.status < 500 || response.status == 503, "no request is a server error");
  if (head || response.status == 204) return;
  if (response.content_type.starts_with("application/json")) {
    const nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
    FUZZ_CHECK(!body.is_discarded(), "a JSON body parses");
    if (response.status >= 400) {
      FUZZ_CHECK(body.value("status", "") == "error", "an error body says so");
      FUZZ_CHECK(body.contains("error") && !body["error"].value("message", "").empty(),
                 "an error body says what is wrong");
    }
  } else {
    FUZZ_CHECK(response.status < 400, "an error is a JSON body");
  }
}

}  // namespace
}  // namespace edgemond::daemon

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const edgemond::daemon::World world;  // Removes its directory at exit.
  edgemond::daemon::Check(world.router(),
                          std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
