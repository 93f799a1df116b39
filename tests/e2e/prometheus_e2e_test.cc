// A real Prometheus server (Debian's `prometheus`) scrapes a running edgemond every second; a
// PromQL query through Prometheus's HTTP API must return edgemond's values.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/testing/child_process.h"
#include "tests/testing/edgemond_process.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/tools.h"

namespace edgemond {
namespace {

using nlohmann::json;

TEST(PrometheusE2eTest, PrometheusScrapesEdgemondAndAnswersPromQl) {
  if (testing::Prometheus().empty()) {
    GTEST_SKIP() << "prometheus not installed (Debian package prometheus)";
  }
  testing::TempDir dir;
  testing::EdgemondProcess edgemond(dir, {"--root", testing::FixturePath("devices/jetson-orin-jp6"),
                                          "--db", dir.Join("edgemond.db"), "--interval", "0.5"});
  std::string why;
  ASSERT_TRUE(edgemond.WaitReady(why)) << why;

  const int prometheus_port = testing::FreeLoopbackPort();
  std::ofstream(dir.Join("prometheus.yml"))
      << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
      << "scrape_configs:\n  - job_name: edgemond\n    static_configs:\n"
      << "      - targets: ['127.0.0.1:" << edgemond.port() << "']\n";
  testing::ChildProcess prometheus(
      {testing::Prometheus(), "--config.file=" + dir.Join("prometheus.yml"),
       "--storage.tsdb.path=" + dir.Join("tsdb"),
       "--web.listen-address=127.0.0.1:" + std::to_string(prometheus_port)},
      dir.Join("prometheus.log"));

  json result;
  const bool answered = testing::WaitFor(
      [&] {
        const auto reply = testing::HttpGet(
            static_cast<std::uint16_t>(prometheus_port),
            "/api/v1/query?query=" + testing::UrlEncode("edgemond_memory_total_bytes"));
        if (reply.status != 200) return false;
        result = json::parse(reply.body, nullptr, false);
        return result.is_object() && result["data"]["result"].size() == 1;
      },
      std::chrono::seconds(60));
  ASSERT_TRUE(answered) << prometheus.Output();
  EXPECT_EQ(result["data"]["result"][0]["value"][1], "7990145024");
  EXPECT_EQ(result["data"]["result"][0]["metric"]["job"], "edgemond");

  // The scrape itself was healthy: `up` is 1 and a labelled series round-trips exactly.
  const auto up = json::parse(
      testing::HttpGet(static_cast<std::uint16_t>(prometheus_port),
                       "/api/v1/query?query=" + testing::UrlEncode("up{job=\"edgemond\"}"))
          .body);
  EXPECT_EQ(up["data"]["result"][0]["value"][1], "1");
  const auto zone = json::parse(
      testing::HttpGet(static_cast<std::uint16_t>(prometheus_port),
                       "/api/v1/query?query=" +
                           testing::UrlEncode("edgemond_thermal_zone_celsius{zone=\"tj-thermal\"}"))
          .body);
  ASSERT_EQ(zone["data"]["result"].size(), 1u);
  EXPECT_EQ(zone["data"]["result"][0]["value"][1], "46.312");
}

}  // namespace
}  // namespace edgemond
