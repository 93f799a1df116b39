// The real edgemond binary and its database under the two accidents storage must survive: being
// killed with SIGKILL while it writes, again and again into the same file, and a file system
// that fills up under it (a small tmpfs in a mount namespace of its own) and empties again.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "storage/sqlite/database.h"
#include "tests/testing/child_process.h"
#include "tests/testing/edgemond_process.h"
#include "tests/testing/temp_dir.h"

namespace edgemond {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using testing::EdgemondProcess;
using testing::FixturePath;
using testing::TempDir;
using testing::UrlEncode;

constexpr const char* kSeries = "edgemond_memory_total_bytes";
// A flush every second (the smallest setting) and ten collections a second: a run of a second or
// two writes a few blocks, and a kill lands anywhere among collections, flushes and checkpoints.
constexpr std::int64_t kFlushMs = 1000;
constexpr const char* kConfig = R"({"storage": {"flush_interval_seconds": 1}})";

std::vector<std::string> DaemonArgs(const std::string& db) {
  return {"--root", FixturePath("devices/x86-desktop"), "--db", db, "--interval", "0.1"};
}

// The timestamps of kSeries's points that the API answers (head and stored), in ms since the
// epoch, oldest first.
std::vector<std::int64_t> ApiPointsMs(EdgemondProcess& daemon) {
  const auto reply = daemon.Get("/api/v1/query?series=" + UrlEncode(kSeries) + "&from=-600");
  EXPECT_EQ(reply.status, 200) << reply.body;
  const json body = json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  const json& series = body["data"]["series"];
  std::vector<std::int64_t> points;
  if (!series.is_array() || series.size() != 1) return points;
  for (const json& point : series[0]["points"]) {
    points.push_back(std::llround(point[0].get<double>() * 1000));
  }
  return points;
}

std::int64_t NewestApiPointMs(EdgemondProcess& daemon) {
  const auto points = ApiPointsMs(daemon);
  return points.empty() ? -1 : points.back();
}

struct Stored {
  std::int64_t newest_ms = -1;  // The newest raw block's last timestamp.
  std::int64_t points = 0;      // Raw samples stored.
};

// What the database holds (committed transactions only; readers never see a partial one). The
// daemon holds the file against other processes while it runs: only once it has exited.
Stored ReadStored(const std::string& db_path) {
  storage::sqlite::DatabaseOptions options;
  options.mode = storage::sqlite::DatabaseOptions::Mode::kReadWrite;
  auto db = storage::sqlite::Database::Open(db_path, options);
  EXPECT_TRUE(db.ok()) << db.status();
  if (!db.ok()) return {};
  Stored stored;
  stored.newest_ms = (*db)->QueryInt64("SELECT coalesce(max(t1), -1) FROM blocks_raw").value();
  stored.points = (*db)->QueryInt64("SELECT coalesce(sum(points), 0) FROM blocks_raw").value();
  return stored;
}

// Dozens of SIGKILLs at random moments of a writing daemon, into one database: each time the file
// passes integrity_check, everything committed before the kill is still there, and what the API
// had answered is stored but for at most the last flush interval.
TEST(StorageE2eTest, KillNineLoopLosesAtMostTheUnflushedWindow) {
  TempDir dir;
  const std::string db = dir.Join("edgemond.db");
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  // bench/crash_kills.sh runs more (EDGEMOND_CRASH_KILLS=100).
  const char* kills = std::getenv("EDGEMOND_CRASH_KILLS");
  const int kIterations = kills != nullptr ? std::atoi(kills) : 24;
  ASSERT_GT(kIterations, 0);
  std::int64_t points_before = 0;
  std::vector<std::int64_t> kept;  // Points the API answered before a kill that were stored.
  for (int i = 0; i < kIterations; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    EdgemondProcess daemon(dir, DaemonArgs(db), kConfig);
    std::string why;
    ASSERT_TRUE(daemon.WaitReady(why)) << why;
    std::this_thread::sleep_for(
        milliseconds(std::uniform_int_distribution<int>(300, 2300)(random)));
    // Just before the kill: what the API answers, and what the daemon says it has committed.
    const std::vector<std::int64_t> answered = ApiPointsMs(daemon);
    const std::int64_t committed_newest_ms = daemon.NewestStoredMs();
    std::this_thread::sleep_for(milliseconds(std::uniform_int_distribution<int>(0, 100)(random)));
    ASSERT_TRUE(daemon.process().Signal(SIGKILL));
    const auto status = daemon.process().Wait(std::chrono::seconds(10));
    ASSERT_TRUE(status.has_value());
    ASSERT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL)
        << "edgemond stopped on its own: " << daemon.process().Output();

    {
      auto check = storage::sqlite::Database::Open(db, {});
      ASSERT_TRUE(check.ok()) << check.status();
      const Status integrity = (*check)->IntegrityCheck();
      ASSERT_TRUE(integrity.ok()) << integrity;
    }
    const Stored after = ReadStored(db);
    // Nothing committed is lost: not this run's flushes, not the earlier runs'.
    EXPECT_GE(after.newest_ms, committed_newest_ms);
    EXPECT_GE(after.points, points_before);
    // What the API answered before the kill is stored, but for the unflushed window: the points
    // lost span at most a flush interval, plus the collection that found the flush due and the
    // delays a busy machine adds to a tick and a commit (a generous 2 s here; losing one more
    // flush would show as a committed block missing above).
    ASSERT_FALSE(answered.empty());
    const auto first_lost = std::upper_bound(answered.begin(), answered.end(), after.newest_ms);
    const std::int64_t lost_span_ms =
        first_lost == answered.end() ? 0 : answered.back() - *first_lost;
    EXPECT_LE(lost_span_ms, kFlushMs + 2000)
        << (answered.end() - first_lost) << " points lost, from " << *first_lost << " to "
        << answered.back() << "; the database holds up to " << after.newest_ms;
    // For bench/crash_kills.sh.
    std::printf("kill %d: %td of %zu answered points lost, spanning %lld ms\n", i,
                answered.end() - first_lost, answered.size(), static_cast<long long>(lost_span_ms));
    points_before = after.points;
    for (auto it = answered.begin(); it != first_lost; ++it) {
      if (kept.empty() || *it > kept.back()) kept.push_back(*it);
    }
  }
  // A daemon opens the database once more and answers every point that survived a kill.
  EdgemondProcess daemon(dir, DaemonArgs(db), kConfig);
  std::string why;
  ASSERT_TRUE(daemon.WaitReady(why)) << why;
  const std::vector<std::int64_t> answered = ApiPointsMs(daemon);
  EXPECT_FALSE(kept.empty());
  EXPECT_TRUE(std::includes(answered.begin(), answered.end(), kept.begin(), kept.end()))
      << kept.size() << " points were stored before the last kill; the API answers "
      << answered.size();
  ASSERT_TRUE(daemon.process().Signal(SIGTERM));
  const auto status = daemon.process().Wait(std::chrono::seconds(10));
  ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
}

// Runs edgemond_storage_probe with `args` inside the mount namespace of `pid` (nsenter(1)), and
// returns what it printed. The tmpfs below is only mounted there; /proc/PID/root reaches it for
// plain file operations, but SQLite resolves that symbolic link to "/" and would open the wrong
// path.
std::string InMountNamespaceOf(pid_t pid, const TempDir& dir, std::vector<std::string> args) {
  std::vector<std::string> argv = {
      "/usr/bin/nsenter", "--target", std::to_string(pid),
      "--mount",          "--",       testing::BuiltBinary("tests/edgemond_storage_probe")};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::ChildProcess probe(std::move(argv), dir.Join("probe.log"));
  const auto status = probe.Wait(std::chrono::seconds(60));
  std::string out = probe.Output();
  if (!status) out += " (the probe did not finish)";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// ReadStored and integrity_check of `db_path` as the daemon `pid` sees it.
Stored ReadStoredIn(pid_t pid, const TempDir& dir, const std::string& db_path) {
  const std::string text = InMountNamespaceOf(pid, dir, {"stored", db_path});
  Stored stored;
  EXPECT_EQ(std::sscanf(text.c_str(), "%" SCNd64 " %" SCNd64, &stored.newest_ms, &stored.points), 2)
      << text;
  return stored;
}
std::string IntegrityCheckIn(pid_t pid, const TempDir& dir, const std::string& db_path) {
  return InMountNamespaceOf(pid, dir, {"integrity", db_path});
}

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Writes to `path` until the file system holding it is full.
bool FillUp(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const std::string chunk(64 * 1024, 'x');
  while (::write(fd, chunk.data(), chunk.size()) > 0) {
  }
  const bool full = errno == ENOSPC;
  ::close(fd);
  return full;
}

// edgemond on a 16 MiB tmpfs of its own (mounted in a private mount namespace by unshare(1); the
// test reaches it through /proc/PID/root). The file system fills up: the daemon keeps running and
// serving, holds the samples in memory, gives up its ballast, logs the condition once; space
// returns: it writes everything, takes the ballast back, logs the recovery; once it has stopped,
// the file is intact. A `sleep` started in the namespace keeps the tmpfs for that last check.
TEST(StorageE2eTest, FullFileSystemKeepsTheDaemonServingAndWritingResumes) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  TempDir dir;
  testing::ChildProcess probe({"/usr/bin/unshare", "--mount", "/bin/true"}, dir.Join("probe.log"));
  const auto probed = probe.Wait(std::chrono::seconds(10));
  if (!probed || !WIFEXITED(*probed) || WEXITSTATUS(*probed) != 0) {
    GTEST_SKIP() << "unshare --mount does not work here: " << probe.Output();
  }
  const std::string mount_point = dir.Join("fs");
  const std::string keeper_file = dir.Join("keeper.pid");
  std::filesystem::create_directory(mount_point);
  testing::EdgemondOptions options;
  options.wrapper = {
      "/usr/bin/unshare",
      "--mount",
      "--propagation",
      "private",
      "/bin/sh",
      "-c",
      "mount -t tmpfs -o size=16m,mode=0755 tmpfs \"$0\" && "
      "{ sleep 600 </dev/null >/dev/null 2>&1 & echo $! > \"$0/../keeper.pid\"; } && "
      "exec \"$@\"",
      mount_point};
  const std::string db = mount_point + "/edgemond.db";
  EdgemondProcess daemon(dir, DaemonArgs(db), kConfig, std::move(options));
  std::string why;
  ASSERT_TRUE(daemon.WaitReady(why)) << why;
  pid_t keeper = -1;
  {
    std::FILE* file = std::fopen(keeper_file.c_str(), "r");
    ASSERT_NE(file, nullptr);
    ASSERT_EQ(std::fscanf(file, "%d", &keeper), 1);
    std::fclose(file);
  }
  struct KillKeeper {
    pid_t pid;
    ~KillKeeper() { ::kill(pid, SIGKILL); }
  } kill_keeper{keeper};
  // The daemon's view of its file system, for plain file operations.
  const pid_t pid = daemon.process().pid();
  const std::string fs = "/proc/" + std::to_string(pid) + "/root" + mount_point;
  ASSERT_TRUE(std::filesystem::exists(fs + "/edgemond.db")) << daemon.process().Output();
  EXPECT_EQ(std::filesystem::file_size(fs + "/edgemond.db.ballast"), 4u << 20);
  ASSERT_TRUE(
      testing::WaitFor([&] { return daemon.NewestStoredMs() > 0; }, std::chrono::seconds(10)));

  // Another program fills the file system.
  ASSERT_TRUE(FillUp(fs + "/filler"));
  const std::string kFull = "the file system is full";
  ASSERT_TRUE(testing::WaitFor([&] { return Count(daemon.process().Output(), kFull) > 0; },
                               std::chrono::seconds(10)))
      << daemon.process().Output();
  EXPECT_EQ(daemon.Metric("edgemond_storage_disk_full"), 1.0);
  const std::int64_t when_full_ms = daemon.NewestStoredMs();
  // A few flush intervals on a full disk: still running, still serving, the samples collected
  // meanwhile answered from memory; the ballast given up; one line in the log.
  std::this_thread::sleep_for(milliseconds(4 * kFlushMs));
  ASSERT_TRUE(daemon.process().Running()) << daemon.process().Output();
  EXPECT_EQ(daemon.Get("/healthz").status, 200);
  EXPECT_GT(NewestApiPointMs(daemon), when_full_ms + 3 * kFlushMs);
  EXPECT_GT(daemon.Metric("edgemond_storage_pending_samples").value_or(0), 0);
  EXPECT_FALSE(std::filesystem::exists(fs + "/edgemond.db.ballast"));
  EXPECT_EQ(daemon.NewestStoredMs(), when_full_ms);
  EXPECT_EQ(Count(daemon.process().Output(), kFull), 1u) << daemon.process().Output();

  // Space returns: what was held in memory is written, the ballast is reserved again.
  const std::int64_t api_newest_ms = NewestApiPointMs(daemon);
  std::filesystem::remove(fs + "/filler");
  ASSERT_TRUE(
      testing::WaitFor([&] { return Count(daemon.process().Output(), "storage recovered") > 0; },
                       std::chrono::seconds(10)))
      << daemon.process().Output();
  EXPECT_GE(daemon.NewestStoredMs(), api_newest_ms);
  EXPECT_EQ(daemon.Metric("edgemond_storage_disk_full"), 0.0);
  EXPECT_EQ(std::filesystem::file_size(fs + "/edgemond.db.ballast"), 4u << 20);
  EXPECT_EQ(Count(daemon.process().Output(), kFull), 1u);
  ASSERT_TRUE(daemon.process().Signal(SIGTERM));
  const auto status = daemon.process().Wait(std::chrono::seconds(10));
  ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
      << daemon.process().Output();
  // Stopped, the file is the keeper's to read: intact, and holding what the API had answered.
  EXPECT_EQ(IntegrityCheckIn(keeper, dir, db), "ok");
  EXPECT_GE(ReadStoredIn(keeper, dir, db).newest_ms, api_newest_ms);
}

}  // namespace
}  // namespace edgemond
