#include "alerts/alert_sink.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "alerts/journal_sink.h"
#include "alerts/recording_sink.h"
#include "alerts/stderr_sink.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::alerts {
namespace {

AlertTransition Firing() {
  AlertTransition t;
  t.rule = "zone_hot";
  t.state = AlertState::kFiring;
  t.severity = AlertSeverity::kWarning;
  t.labels = {{"zone", "cpu-thermal"}, {"type", "cpu-thermal"}};
  t.value = 86.4;
  t.op = ">";
  t.threshold = 85;
  t.clear_threshold = 80;
  t.active_since = FromUnixMillis(1767225600000);  // 2026-01-01T00:00:00Z
  t.at = t.active_since + std::chrono::minutes(1);
  t.reason = "threshold";
  t.annotations = {{"summary", "CPU at 86.4 C"}};
  return t;
}

TEST(AlertSinkTest, FormatsFiringAndResolvedLines) {
  EXPECT_EQ(FormatTransition(Firing()),
            "alert zone_hot{type=\"cpu-thermal\",zone=\"cpu-thermal\"} FIRING (warning): value "
            "86.4 > 85 since 2026-01-01T00:00:00Z: CPU at 86.4 C");
  AlertTransition resolved = Firing();
  resolved.state = AlertState::kResolved;
  resolved.value = 79.5;
  resolved.reason = "cleared";
  resolved.at = resolved.active_since + std::chrono::seconds(330);
  resolved.annotations.clear();
  EXPECT_EQ(FormatTransition(resolved),
            "alert zone_hot{type=\"cpu-thermal\",zone=\"cpu-thermal\"} RESOLVED (warning): value "
            "79.5 no longer > 80, active for 5m30s");
  resolved.reason = "no_data";
  resolved.value.reset();
  EXPECT_NE(FormatTransition(resolved).find("RESOLVED (warning): no data, active for 5m30s"),
            std::string::npos);
}

TEST(AlertSinkTest, StderrSinkWritesOneTimestampedLinePerTransition) {
  testing::TempDir dir;
  const std::string path = dir.Join("out.log");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  StderrSink sink(fd);
  ASSERT_TRUE(sink.Emit(Firing()).ok());
  ASSERT_TRUE(sink.Emit(Firing()).ok());
  ::close(fd);
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    // "YYYY-MM-DD HH:MM:SS.mmm alert ..."
    ASSERT_GT(line.size(), 24u);
    EXPECT_EQ(line[4], '-');
    EXPECT_EQ(line[19], '.');
    EXPECT_EQ(line.substr(24), FormatTransition(Firing()));
  }
  EXPECT_EQ(lines, 2);
}

TEST(AlertSinkTest, FallbackSinkGetsWhatThePrimaryCouldNotDeliver) {
  StderrSink closed(/*fd=*/-1);  // write(2) fails with EBADF: a real delivery failure.
  RecordingSink fallback;
  FallbackSink sink(closed, fallback);
  const Status status = sink.Emit(Firing());
  EXPECT_FALSE(status.ok());
  ASSERT_EQ(fallback.transitions().size(), 1u);
  EXPECT_EQ(fallback.transitions()[0].rule, "zone_hot");

  RecordingSink primary;
  FallbackSink working(primary, fallback);
  EXPECT_TRUE(working.Emit(Firing()).ok());
  EXPECT_EQ(primary.transitions().size(), 1u);
  EXPECT_EQ(fallback.transitions().size(), 1u);
}

}  // namespace
}  // namespace edgemond::alerts
