// Golden /metrics files: the real edgemond binary on each fixture board, scraped over loopback and
// compared byte for byte with tests/golden/metrics/<board>.prom.
//
// What varies between runs is dropped before comparing: collector durations, the HTTP server's
// own request counters, the database's state, and the build's version. Every other line is the
// collectors' output through the Prometheus text renderer, so any change of a metric name, label,
// value or format shows up here as a diff to review.
//
//   EDGEMOND_UPDATE_GOLDEN=1 ctest -L golden     rewrites the files from the current binary
//
// The x86-nvidia board runs with the fake NVML library in the state its README names
// (tests/fixtures/nvml/x86-nvidia.state); every other board with an NVML path that does not exist,
// so the machine running the tests never lends its own GPU to a fixture.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "tests/testing/child_process.h"
#include "tests/testing/edgemond_process.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/tools.h"

namespace edgemond {
namespace {

using testing::EdgemondProcess;
using testing::FixturePath;
using testing::SourceDir;
using testing::TempDir;

const char* const kBoards[] = {"x86-desktop",     "x86-nvidia",           "raspberry-pi-4",
                               "jetson-nano-jp4", "jetson-xavier-nx-jp5", "jetson-orin-jp6"};

// Metric families whose values differ from run to run (or from build to build).
const std::set<std::string, std::less<>> kVarying = {
    "edgemond_build_info",
    "edgemond_collector_duration_seconds",
    "edgemond_http_request_errors_total",
    "edgemond_http_requests_total",
    "edgemond_storage_database_bytes",
    "edgemond_storage_newest_sample_timestamp_seconds",
    "edgemond_storage_pending_samples",
    "edgemond_storage_wal_bytes",
};

std::string GoldenPath(const std::string& board) {
  return SourceDir() + "/tests/golden/metrics/" + board + ".prom";
}

// The family a line of the text format belongs to: "# HELP name ...", "# TYPE name ...", or
// "name{...} value" / "name value".
std::string_view FamilyOf(std::string_view line) {
  if (line.rfind("# ", 0) == 0) {
    line.remove_prefix(line.find(' ', 2) + 1);
    return line.substr(0, line.find(' '));
  }
  return line.substr(0, line.find_first_of("{ "));
}

std::string DropVarying(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (kVarying.count(FamilyOf(line)) == 0) out += line + "\n";
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first lines where `want` and `got` differ, for a readable failure.
std::string FirstDifferences(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string out;
  int shown = 0;
  for (int line_number = 1; shown < 10; ++line_number) {
    std::string x, y;
    const bool more_a = static_cast<bool>(std::getline(a, x));
    const bool more_b = static_cast<bool>(std::getline(b, y));
    if (!more_a && !more_b) break;
    if (x != y) {
      out +=
          "line " + std::to_string(line_number) + ":\n  golden: " + x + "\n  binary: " + y + "\n";
      ++shown;
    }
  }
  return out;
}

class MetricsGoldenTest : public ::testing::TestWithParam<const char*> {
 protected:
  void TearDown() override { unsetenv("EDGEMOND_FAKE_NVML_STATE"); }
};

TEST_P(MetricsGoldenTest, ScrapeMatchesTheGoldenFile) {
  const std::string board = GetParam();
  const bool nvidia = board == "x86-nvidia";
  if (nvidia) {
    const std::string state = FixturePath("nvml/" + board + ".state");
    ASSERT_EQ(setenv("EDGEMOND_FAKE_NVML_STATE", state.c_str(), 1), 0);
  }
  const std::string library = nvidia ? testing::FakeNvmlPath() : "/nonexistent/libnvidia-ml.so.1";
  TempDir dir;
  EdgemondProcess daemon(dir,
                         {"--root", FixturePath("devices/" + board), "--db",
                          dir.Join("edgemond.db"), "--interval", "0.1"},
                         "{\"collectors\": {\"nvml_library\": \"" + library + "\"}}");
  std::string why;
  ASSERT_TRUE(daemon.WaitReady(why)) << why;

  const std::string path = GoldenPath(board);
  const char* update = std::getenv("EDGEMOND_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    // Rates need two collections; let a few happen before writing.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto reply = daemon.Get("/metrics");
    ASSERT_EQ(reply.status, 200);
    std::ofstream(path) << DropVarying(reply.body);
    GTEST_SKIP() << "rewrote " << path << "; review the diff";
  }
  const std::string want = ReadFile(path);
  ASSERT_FALSE(want.empty()) << path << " is missing: run EDGEMOND_UPDATE_GOLDEN=1 ctest -L golden";
  // The first collection has no rates yet (RAPL power); the second and later ones are what the
  // golden holds. Scrape until they match, or until it is clear they never will.
  std::string got;
  testing::WaitFor(
      [&] {
        const auto reply = daemon.Get("/metrics");
        got =
            reply.status == 200 ? DropVarying(reply.body) : "HTTP " + std::to_string(reply.status);
        return got == want;
      },
      std::chrono::seconds(5));
  EXPECT_EQ(got, want) << "edgemond's /metrics on " << board << " differs from " << path << ":\n"
                       << FirstDifferences(want, got)
                       << "If the change is intended, run EDGEMOND_UPDATE_GOLDEN=1 ctest -L golden "
                          "and review the diff.";
}

INSTANTIATE_TEST_SUITE_P(Boards, MetricsGoldenTest, ::testing::ValuesIn(kBoards),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           std::string name = param.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

// promtool, from Debian's prometheus package, lints each golden file: names, units, HELP and TYPE
// lines, counters ending in _total.
TEST(MetricsGoldenLintTest, PromtoolAcceptsEveryGoldenFile) {
  if (testing::Promtool().empty()) {
    GTEST_SKIP() << "promtool not installed (apt-get install prometheus)";
  }
  for (const char* board : kBoards) {
    EXPECT_TRUE(testing::PromtoolAccepts(GoldenPath(board))) << board;
  }
}

}  // namespace
}  // namespace edgemond
