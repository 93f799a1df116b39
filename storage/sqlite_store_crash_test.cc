// Reopen after an unclean stop: a real child process appends and flushes as fast as it can and is
// killed with SIGKILL at a random moment (mid-append, mid-flush, mid-rollup, mid-checkpoint,
// mid-retention); the parent reopens the database and checks that it is intact and that every
// flush the child acknowledged is there, whole, in every tier.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
// Ticks are 20 s apart, so that a run crosses hours and the writer builds (and is killed while
// building) rollup windows.
constexpr std::int64_t kTickMs = 20'000;
constexpr std::int64_t kT0 = 1767225600000;
// Each run writes its own range of ticks, so runs accumulate in one database (all of them well
// inside the default 7-day retention that the writer enforces).
constexpr std::int64_t kTicksPerRun = 10'000;

double ValueOf(int series, std::int64_t tick) { return static_cast<double>(tick) * 0.001 + series; }

std::int64_t AlignDownTo(std::int64_t t, std::int64_t step) { return t - t % step; }

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
      sample.at = FromUnixMillis(kT0 + tick * kTickMs);
      sample.value = ValueOf(s, tick);
      batch.push_back(std::move(sample));
    }
    if (!(*store)->Append(batch).ok()) ::_exit(3);
    if ((tick + 1) % kTicksPerFlush != 0) continue;
    if (!(*store)->Flush().ok()) ::_exit(4);
    if (!(*store)->EnforceRetention(FromUnixMillis(kT0 + tick * kTickMs)).ok()) ::_exit(5);
    if (::write(ack_fd, &tick, sizeof(tick)) != sizeof(tick)) ::_exit(0);
  }
}

TEST(SqliteStoreCrashTest, KillNineNeverLosesAnAcknowledgedFlush) {
  TempDir dir;
  const std::string path = dir.Join("edgemond.db");
  const unsigned seed = std::random_device{}();
  std::mt19937 random(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  // bench/crash_kills.sh runs more (EDGEMOND_CRASH_KILLS=100).
  const char* kills = std::getenv("EDGEMOND_CRASH_KILLS");
  const int kRuns = kills != nullptr ? std::atoi(kills) : 30;
  ASSERT_GT(kRuns, 0);
  std::vector<std::int64_t> last_acked(static_cast<std::size_t>(kRuns), -1);

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
      last_acked[static_cast<std::size_t>(run)] = tick;
      ++acks;
    }
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 4000)(random)));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int wait_status = 0;
    ASSERT_EQ(::waitpid(pid, &wait_status, 0), pid);
    // Acknowledgements written before the kill are still in the pipe.
    while (::read(fds[0], &tick, sizeof(tick)) == sizeof(tick))
      last_acked[static_cast<std::size_t>(run)] = tick;
    ::close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL)
        << "the writer stopped on its own with status " << wait_status;
    ASSERT_GE(last_acked[static_cast<std::size_t>(run)], first_tick)
        << "the writer never acknowledged a flush";
    ASSERT_LT(last_acked[static_cast<std::size_t>(run)], first_tick + kTicksPerRun);

    // The file is intact.
    {
      auto db = sqlite::Database::Open(path, {});
      ASSERT_TRUE(db.ok()) << db.status();
      const Status integrity = (*db)->IntegrityCheck();
      ASSERT_TRUE(integrity.ok()) << integrity;
    }
    // Every acknowledged sample of this run is there with its value, in whole flushes; the
    // rollups agree with the raw samples.
    auto store = SqliteStore::Open(WriterOptions(path));
    ASSERT_TRUE(store.ok()) << store.status();
    const std::int64_t from_tick = first_tick;
    std::vector<std::int64_t> stored_ticks;
    for (int s = 0; s < kSeries; ++s) {
      RangeQuery query;
      query.selector.name = std::string(kVoltage.name);
      query.selector.matchers = {{"sensor", LabelMatcher::Op::kEqual, "in" + std::to_string(s)}};
      query.max_points_per_series = 1'000'000;
      query.from_ms = kT0 + from_tick * kTickMs;
      query.to_ms = kT0 + (first_tick + kTicksPerRun) * kTickMs;
      auto result = (*store)->Query(query);
      ASSERT_TRUE(result.ok()) << result.status();
      const auto& points = result->series.at(0).points;
      std::vector<std::int64_t> ticks;
      for (const Point& point : points) {
        const std::int64_t t = (point.t_ms - kT0) / kTickMs;
        ASSERT_EQ(point.value, ValueOf(s, t));
        ticks.push_back(t);
      }
      // Flushes are atomic: every series has the same ticks, whole flushes of them.
      if (s == 0) {
        stored_ticks = ticks;
        ASSERT_EQ(ticks.size() % kTicksPerFlush, 0u);
        ASSERT_GE(static_cast<std::int64_t>(ticks.size()),
                  last_acked[static_cast<std::size_t>(run)] - first_tick + 1);
        for (std::size_t i = 0; i < ticks.size(); ++i) {
          ASSERT_EQ(ticks[i], first_tick + static_cast<std::int64_t>(i));
        }
        // For bench/crash_kills.sh: how far the file got past the last acknowledged flush.
        std::printf(
            "kill %d: acknowledged through tick %lld, stored %zu ticks (%lld unacknowledged)\n",
            run, static_cast<long long>(last_acked[static_cast<std::size_t>(run)]), ticks.size(),
            static_cast<long long>(first_tick + static_cast<std::int64_t>(ticks.size()) - 1 -
                                   last_acked[static_cast<std::size_t>(run)]));
      } else {
        ASSERT_EQ(ticks, stored_ticks) << "series " << s;
      }
      // The 1-minute tier counts the same samples (3 per minute at 20 s).
      query.step_ms = 60'000;
      query.aggregation = Aggregation::kCount;
      query.from_ms = kT0 + AlignDownTo(from_tick * kTickMs, 60'000);
      auto minutes = (*store)->Query(query);
      ASSERT_TRUE(minutes.ok()) << minutes.status();
      double counted = 0;
      for (const Point& point : minutes->series.at(0).points) counted += point.value.value_or(0);
      ASSERT_EQ(counted, static_cast<double>(ticks.size()));
    }
  }
}

}  // namespace
}  // namespace edgemond::storage
