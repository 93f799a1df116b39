// Reopen after an unclean stop: a real child process appends and flushes as fast as it can and is
// killed with SIGKILL at a random moment (mid-append, mid-flush, mid-checkpoint); the parent
// reopens the database and checks that it is intact and that every flush the child acknowledged
// is there, whole.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "storage/sqlite/database.h"
#include "storage/sqlite_store.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

using ::edgemond::testing::TempDir;

constexpr MetricDesc kVoltage{"edgemond_hwmon_voltage_volts", "Voltage", MetricType::kGauge,
                              "volts"};
constexpr int kSeries = 40;
constexpr int kTicksPerFlush = 5;
constexpr std::int64_t kT0 = 1767225600000;
// Each run writes its own range of ticks, so runs accumulate in one database (all of them well
// inside the default 7-day retention that the writer enforces).
constexpr std::int64_t kTicksPerRun = 10'000;

double ValueOf(int series, std::int64_t tick) { return static_cast<double>(tick) * 0.001 + series; }

StorageOptions WriterOptions(const std::string& path) {
  StorageOptions options;
  options.path = path;
  // Checkpoint every few flushes, so that kills also land inside checkpoints.
  options.checkpoint_wal_frames = 20;
  return options;
}

// The child: append and flush forever; after each successful Flush(), report the last tick it
// covered. Exits only by being killed (or with a distinctive status on error).
[[noreturn]] void RunWriter(const std::string& path, std::int64_t first_tick, int ack_fd) {
  auto store = SqliteStore::Open(WriterOptions(path));
  if (!store.ok()) ::_exit(2);
  for (std::int64_t tick = first_tick;; ++tick) {
    std::vector<Sample> batch;
    for (int s = 0; s < kSeries; ++s) {
      Sample sample;
      sample.desc = &kVoltage;
      sample.labels = {{"chip", "ina3221"}, {"sensor", "in" + std::to_string(s)}};
      sample.at = FromUnixMillis(kT0 + tick * 1000);
      sample.value = ValueOf(s, tick);
      batch.push_back(std::move(sample));
    }
    if (!(*store)->Append(batch).ok()) ::_exit(3);
    if ((tick + 1) % kTicksPerFlush != 0) continue;
    if (!(*store)->Flush().ok()) ::_exit(4);
    if (!(*store)->EnforceRetention(FromUnixMillis(kT0 + tick * 1000)).ok()) ::_exit(5);
    if (::write(ack_fd, &tick, sizeof(tick)) != sizeof(tick)) ::_exit(0);
  }
}

TEST(SqliteStoreCrashTest, KillNineNeverLosesAnAcknowledgedFlush) {
  TempDir dir;
  const std::string path = dir.Join("edgemond.db");
  const unsigned seed = std::random_device{}();
  std::mt19937 random(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr int kRuns = 12;
  std::vector<std::int64_t> last_acked(kRuns, -1);

  for (int run = 0; run < kRuns; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const std::int64_t first_tick = run * kTicksPerRun;
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      RunWriter(path, first_tick, fds[1]);
    }
    ::close(fds[1]);
    // Let it acknowledge a few flushes, then kill it at a random moment of the next ones.
    const int acks_before_kill = std::uniform_int_distribution<int>(1, 25)(random);
    std::int64_t tick = -1;
    int acks = 0;
    while (acks < acks_before_kill && ::read(fds[0], &tick, sizeof(tick)) == sizeof(tick)) {
      last_acked[run] = tick;
      ++acks;
    }
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 4000)(random)));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int wait_status = 0;
    ASSERT_EQ(::waitpid(pid, &wait_status, 0), pid);
    // Acknowledgements written before the kill are still in the pipe.
    while (::read(fds[0], &tick, sizeof(tick)) == sizeof(tick)) last_acked[run] = tick;
    ::close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL)
        << "the writer stopped on its own with status " << wait_status;
    ASSERT_GE(last_acked[run], first_tick) << "the writer never acknowledged a flush";
    ASSERT_LT(last_acked[run], first_tick + kTicksPerRun);

    // The file is intact.
    {
      auto db = sqlite::Database::Open(path, {});
      ASSERT_TRUE(db.ok()) << db.status();
      const Status integrity = (*db)->IntegrityCheck();
      ASSERT_TRUE(integrity.ok()) << integrity;
      // Flushes are atomic: every stored tick has all its series, and whole flushes only.
      EXPECT_EQ((*db)
                    ->QueryInt64("SELECT count(*) FROM (SELECT ts FROM samples GROUP BY ts "
                                 "HAVING count(*) != " +
                                 std::to_string(kSeries) + ")")
                    .value(),
                0);
      const std::int64_t run_ticks =
          (*db)
              ->QueryInt64("SELECT count(DISTINCT ts) FROM samples WHERE ts >= " +
                           std::to_string(kT0 + first_tick * 1000))
              .value();
      EXPECT_EQ(run_ticks % kTicksPerFlush, 0);
      EXPECT_GE(run_ticks, last_acked[run] - first_tick + 1);
    }
    // Every acknowledged sample of every run so far is there, with its value.
    auto store = SqliteStore::Open(WriterOptions(path));
    ASSERT_TRUE(store.ok()) << store.status();
    for (int s = 0; s < kSeries; s += 13) {
      RangeQuery query;
      query.selector.name = std::string(kVoltage.name);
      query.selector.matchers = {{"sensor", LabelMatcher::Op::kEqual, "in" + std::to_string(s)}};
      query.max_points_per_series = 1'000'000;
      for (int earlier = 0; earlier <= run; ++earlier) {
        const std::int64_t from_tick = earlier * kTicksPerRun;
        query.from_ms = kT0 + from_tick * 1000;
        query.to_ms = kT0 + last_acked[earlier] * 1000;
        auto result = (*store)->Query(query);
        ASSERT_TRUE(result.ok()) << result.status();
        const auto& points = result->series.at(0).points;
        ASSERT_EQ(static_cast<std::int64_t>(points.size()), last_acked[earlier] - from_tick + 1);
        for (std::size_t i = 0; i < points.size(); ++i) {
          const std::int64_t t = from_tick + static_cast<std::int64_t>(i);
          ASSERT_EQ(points[i].t_ms, kT0 + t * 1000);
          ASSERT_EQ(points[i].value, ValueOf(s, t));
        }
      }
    }
  }
}

}  // namespace
}  // namespace edgemond::storage
