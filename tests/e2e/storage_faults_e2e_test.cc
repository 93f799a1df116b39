// The real edgemond binary started on a database that something outside it has broken: a file
// damaged while it was stopped, a write-ahead log deleted, a file system already full, a file
// system mounted read-only. Each is a documented recovery or one clear error; none is a crash
// loop on a file that a restart cannot fix.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "storage/sqlite/database.h"
#include "tests/testing/child_process.h"
#include "tests/testing/edgemond_process.h"
#include "tests/testing/temp_dir.h"

namespace edgemond {
namespace {

namespace fs = std::filesystem;
using testing::EdgemondProcess;
using testing::FixturePath;
using testing::TempDir;

constexpr const char* kConfig = R"({"storage": {"flush_interval_seconds": 1}})";

std::vector<std::string> DaemonArgs(const std::string& db) {
  return {"--root", FixturePath("devices/x86-desktop"), "--db", db, "--interval", "0.1"};
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Raw samples committed in `db`; the daemon holds the file while it runs, so only once it has
// exited.
std::int64_t StoredPoints(const std::string& db) {
  auto open = storage::sqlite::Database::Open(db, {});
  EXPECT_TRUE(open.ok()) << open.status();
  if (!open.ok()) return -1;
  return (*open)->QueryInt64("SELECT coalesce(sum(points), 0) FROM blocks_raw").value_or(-1);
}

bool IntegrityOk(const std::string& db) {
  auto open = storage::sqlite::Database::Open(db, {});
  return open.ok() && (*open)->IntegrityCheck().ok();
}

// Runs the daemon on `db` until it has stored some flushes, then stops it with `signal`.
void RunAndStop(const TempDir& dir, const std::string& db, int signal) {
  EdgemondProcess daemon(dir, DaemonArgs(db), kConfig);
  std::string why;
  ASSERT_TRUE(daemon.WaitReady(why)) << why;
  ASSERT_TRUE(
      testing::WaitFor([&] { return daemon.NewestStoredMs() > 0; }, std::chrono::seconds(10)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(daemon.process().Signal(signal));
  ASSERT_TRUE(daemon.process().Wait(std::chrono::seconds(10)).has_value());
}

// Starts the daemon on `db` and checks that it serves and writes.
void ExpectServesAndWrites(const TempDir& dir, const std::string& db, std::string& log) {
  EdgemondProcess daemon(dir, DaemonArgs(db), kConfig);
  std::string why;
  ASSERT_TRUE(daemon.WaitReady(why)) << why;
  EXPECT_EQ(daemon.Get("/api/v1/latest").status, 200);
  const std::int64_t newest_ms = daemon.NewestStoredMs();
  ASSERT_TRUE(testing::WaitFor([&] { return daemon.NewestStoredMs() > newest_ms; },
                               std::chrono::seconds(10)));
  ASSERT_TRUE(daemon.process().Signal(SIGTERM));
  const auto status = daemon.process().Wait(std::chrono::seconds(10));
  ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
  EXPECT_TRUE(IntegrityOk(db));
  log = daemon.process().Output();
}

bool UnshareWorks(const TempDir& dir) {
  testing::ChildProcess probe({"/usr/bin/unshare", "--mount", "/bin/true"}, dir.Join("probe.log"));
  const auto status = probe.Wait(std::chrono::seconds(10));
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
}

// Runs `script` (sh, with $0 the mount point) in a private mount namespace, then edgemond on
// `db`, which must exit on its own with status 1; returns its output.
std::string StartFails(const TempDir& dir, const std::string& mount_point, const std::string& db,
                       const std::string& script) {
  testing::EdgemondOptions options;
  options.wrapper = {
      "/usr/bin/unshare",         "--mount",  "--propagation", "private", "/bin/sh", "-c",
      script + " && exec \"$@\"", mount_point};
  EdgemondProcess daemon(dir, DaemonArgs(db), kConfig, std::move(options));
  const auto status = daemon.process().Wait(std::chrono::seconds(20));
  EXPECT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 1)
      << daemon.process().Output();
  return daemon.process().Output();
}

TEST(StorageFaultsE2eTest, ADamagedDatabaseIsMovedAsideAndTheDaemonStartsOnANewOne) {
  TempDir dir;
  const std::string db = dir.Join("edgemond.db");
  RunAndStop(dir, db, SIGTERM);
  fs::resize_file(db, fs::file_size(db) / 2);  // Half the file, as a torn copy leaves it.
  const std::string damaged = ReadFile(db);
  std::string log;
  ExpectServesAndWrites(dir, db, log);
  EXPECT_NE(log.find("error the database " + db + " was damaged"), std::string::npos) << log;
  std::vector<std::string> aside;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("edgemond.db.damaged-") && !name.ends_with("-wal")) {
      aside.push_back(entry.path().string());
    }
  }
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(ReadFile(aside[0]), damaged);
  EXPECT_NE(log.find("moved to " + aside[0]), std::string::npos) << log;
}

TEST(StorageFaultsE2eTest, AWalDeletedWhileStoppedLosesOnlyTheFlushesItHeld) {
  TempDir dir;
  const std::string db = dir.Join("edgemond.db");
  RunAndStop(dir, db, SIGTERM);  // A clean stop checkpoints: the file holds everything.
  const std::int64_t checkpointed = StoredPoints(db);
  // Killed, it leaves its last flushes in the WAL. (Not opened here before it is deleted: the
  // last connection to close would checkpoint it.)
  RunAndStop(dir, db, SIGKILL);
  ASSERT_TRUE(fs::exists(db + "-wal"));
  EXPECT_GT(fs::file_size(db + "-wal"), 0u);
  fs::remove(db + "-wal");
  fs::remove(db + "-shm");
  // What was checkpointed into the file (at least the first run's) is all there, consistent.
  EXPECT_GE(StoredPoints(db), checkpointed);
  EXPECT_TRUE(IntegrityOk(db));
  std::string log;
  ExpectServesAndWrites(dir, db, log);
  EXPECT_EQ(log.find("damaged"), std::string::npos) << log;
  EXPECT_GT(StoredPoints(db), checkpointed);
}

TEST(StorageFaultsE2eTest, AFullFileSystemAtStartIsOneClearErrorAndLeavesNothingBroken) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  TempDir dir;
  if (!UnshareWorks(dir)) GTEST_SKIP() << "unshare --mount does not work here";
  const std::string mount_point = dir.Join("fs");
  fs::create_directory(mount_point);
  const std::string log = StartFails(dir, mount_point, mount_point + "/edgemond.db",
                                     "mount -t tmpfs -o size=4m tmpfs \"$0\" && "
                                     "(dd if=/dev/zero of=\"$0/filler\" bs=64k 2>/dev/null; true)");
  EXPECT_NE(log.find("critical cannot open the database (--db): database " + mount_point +
                     "/edgemond.db"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("database or disk is full (SQLITE_FULL)"), std::string::npos) << log;
}

TEST(StorageFaultsE2eTest, AReadOnlyFileSystemIsOneClearErrorAndTheFileIsUntouched) {
  if (::geteuid() != 0) GTEST_SKIP() << "a read-only bind mount needs root";
  TempDir dir;
  if (!UnshareWorks(dir)) GTEST_SKIP() << "unshare --mount does not work here";
  const std::string data = dir.Join("data");
  fs::create_directory(data);
  const std::string db = data + "/edgemond.db";
  RunAndStop(dir, db, SIGTERM);
  const std::string before = ReadFile(db);
  const std::string log =
      StartFails(dir, data, db, "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\"");
  EXPECT_NE(log.find("storage: directory " + data + " is not writable"), std::string::npos) << log;
  EXPECT_NE(log.find("Read-only file system"), std::string::npos) << log;
  EXPECT_EQ(ReadFile(db), before);
}

}  // namespace
}  // namespace edgemond
