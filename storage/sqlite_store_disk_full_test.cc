// A full file system: the store keeps its head in memory, keeps answering queries, gives up its
// ballast, corrupts nothing, and writes again once space returns. Runs on a real 8 MiB tmpfs,
// mounted in a private mount namespace by a child process (as root, or as an unprivileged user
// through a user namespace); skipped, saying why, where neither is permitted.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "storage/sqlite/database.h"
#include "storage/sqlite_store.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

using ::edgemond::testing::TempDir;

constexpr MetricDesc kVoltage{"edgemond_hwmon_voltage_volts", "Voltage", MetricType::kGauge,
                              "volts"};
constexpr std::int64_t kT0 = 1767225600000;
constexpr int kSeries = 20;

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

// Enters a private mount namespace and mounts a tmpfs of `size` on `dir`. Returns "" or why not.
std::string MountTmpfs(const std::string& dir, const char* size) {
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  if (::unshare(CLONE_NEWNS) != 0) {
    // Not privileged: a user namespace grants the capability inside it.
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
      return std::string("cannot create a mount namespace: ") + std::strerror(errno);
    }
    if (!WriteFile("/proc/self/setgroups", "deny") ||
        !WriteFile("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") ||
        !WriteFile("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1")) {
      return "cannot map the user into a user namespace";
    }
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("cannot make mounts private: ") + std::strerror(errno);
  }
  const std::string options = std::string("size=") + size + ",mode=0755";
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
    return std::string("cannot mount a tmpfs: ") + std::strerror(errno);
  }
  return "";
}

// Fills the file system holding `path` until a write fails with ENOSPC.
bool FillUp(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const std::string chunk(4096, 'x');
  while (::write(fd, chunk.data(), chunk.size()) > 0) {
  }
  const bool full = errno == ENOSPC;
  ::close(fd);
  return full;
}

// Random doubles: ~8 bytes each however they are encoded, to need room quickly.
double Noise(std::int64_t tick, int s) {
  std::uint64_t x =
      static_cast<std::uint64_t>(tick) * 0x9E3779B97F4A7C15u + static_cast<unsigned>(s);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

std::vector<Sample> Batch(std::int64_t tick) {
  std::vector<Sample> batch;
  for (int s = 0; s < kSeries; ++s) {
    Sample sample;
    sample.desc = &kVoltage;
    sample.labels = {{"sensor", "in" + std::to_string(s)}};
    sample.at = FromUnixMillis(kT0 + tick * 1000);
    sample.value = static_cast<double>(19000 + (tick * 7 + s) % 50) * 1e-3;
    batch.push_back(std::move(sample));
  }
  return batch;
}

// The scenario, in the child. Returns "" when everything held, else what did not.
std::string Scenario(const std::string& dir) {
  std::string failures;
  const auto check = [&](bool ok, const std::string& what) {
    if (!ok) failures += what + "\n";
    return ok;
  };
  StorageOptions options;
  options.path = dir + "/edgemond.db";
  options.ballast_bytes = 1 << 20;
  auto opened = SqliteStore::Open(options);
  if (!check(opened.ok(), "open: " + opened.status().ToString())) return failures;
  auto store = std::move(opened).value();
  const std::string ballast = options.path + ".ballast";
  check(std::filesystem::file_size(ballast) == 1u << 20, "no ballast reserved at open");

  // Some data on disk, then the file system fills up (another program's logs, a model).
  std::int64_t tick = 0;
  for (; tick < 600; ++tick) check(store->Append(Batch(tick)).ok(), "append");
  check(store->Flush().ok(), "first flush");
  check(FillUp(dir + "/filler"), "could not fill the file system");

  for (int attempt = 0; attempt < 5; ++attempt) {
    for (int i = 0; i < 120; ++i, ++tick) {
      check(store->Append(Batch(tick)).ok(), "append while full");
    }
    const Status flushed = store->Flush();
    check(flushed.code() == StatusCode::kResourceExhausted,
          "flush on a full disk: " + flushed.ToString());
    check(flushed.error_number() == ENOSPC, "a full disk is not ENOSPC: " + flushed.ToString());
    check(store->Stats().disk_full, "disk_full not reported");
    // Retention can run (the daemon calls it after every flush).
    const auto retention = store->EnforceRetention(FromUnixMillis(kT0 + tick * 1000));
    check(retention.ok(), "retention on a full disk: " + retention.status().ToString());
  }
  check(!std::filesystem::exists(ballast), "the ballast was not given up");
  check(store->Stats().head_samples == static_cast<std::size_t>((tick - 600) * kSeries),
        "the head lost samples");

  // Queries answer everything appended, from disk and from memory.
  RangeQuery query;
  query.selector.name = std::string(kVoltage.name);
  query.from_ms = kT0;
  query.to_ms = kT0 + tick * 1000;
  query.max_points_per_series = 100000;
  auto result = store->Query(query);
  if (check(result.ok(), "query on a full disk: " + result.status().ToString())) {
    check(result->series.size() == kSeries, "series missing");
    for (const auto& series : result->series) {
      check(static_cast<std::int64_t>(series.points.size()) == tick, "samples missing");
    }
  }
  {
    auto db = sqlite::Database::Open(options.path, {});
    check(db.ok() && (*db)->IntegrityCheck().ok(), "integrity_check failed on a full disk");
  }

  // Space returns: the next flush writes everything and takes the ballast back.
  std::filesystem::remove(dir + "/filler");
  const Status recovered = store->Flush();
  check(recovered.ok(), "flush once space returned: " + recovered.ToString());
  check(!store->Stats().disk_full, "still reported full");
  check(store->Stats().head_samples == 0, "the head was not written");
  check(std::filesystem::exists(ballast) && std::filesystem::file_size(ballast) == 1u << 20,
        "the ballast was not reserved again");
  store.reset();
  {
    auto reopened = SqliteStore::Open(options);
    if (check(reopened.ok(), "reopen: " + reopened.status().ToString())) {
      auto after = (*reopened)->Query(query);
      check(after.ok() && after->series.size() == kSeries &&
                static_cast<std::int64_t>(after->series[0].points.size()) == tick,
            "samples lost across the full disk");
    }
  }
  auto db = sqlite::Database::Open(options.path, {});
  check(db.ok() && (*db)->IntegrityCheck().ok(), "integrity_check failed after recovery");
  return failures;
}

// Runs `scenario` in a child process with a tmpfs of `size` mounted on a fresh directory;
// returns its report ("" when everything held), or skips the test when no tmpfs can be mounted.
void RunOnTmpfs(const char* size, std::string (*scenario)(const std::string& dir)) {
  TempDir dir;
  const std::string mount_point = dir.Join("fs");
  std::filesystem::create_directory(mount_point);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    const std::string why_not = MountTmpfs(mount_point, size);
    const std::string report = why_not.empty() ? scenario(mount_point) : "SKIP " + why_not;
    (void)!::write(fds[1], report.data(), report.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string report;
  char buffer[1024];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof(buffer))) > 0) report.append(buffer, n);
  ::close(fds[0]);
  int wait_status = 0;
  ASSERT_EQ(::waitpid(pid, &wait_status, 0), pid);
  ASSERT_TRUE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0)
      << "the child died: status " << wait_status << "; " << report;
  if (report.rfind("SKIP ", 0) == 0) GTEST_SKIP() << report.substr(5);
  EXPECT_EQ(report, "");
}

TEST(SqliteStoreDiskFullTest, KeepsServingAndResumesWhenSpaceReturns) {
  RunOnTmpfs("8m", &Scenario);
}

// The space runs out inside the transaction (SQLITE_FULL): another program took it after the
// store checked. SQLite rolls the transaction back; the store keeps the head, reports ENOSPC,
// gives up its ballast, and the next flush, with room again, writes everything.
std::string FullAtCommitScenario(const std::string& dir) {
  std::string failures;
  const auto check = [&](bool ok, const std::string& what) {
    if (!ok) failures += what + "\n";
    return ok;
  };
  StorageOptions options;
  options.path = dir + "/edgemond.db";
  options.ballast_bytes = 1 << 20;
  auto opened = SqliteStore::Open(options);
  if (!check(opened.ok(), "open: " + opened.status().ToString())) return failures;
  auto store = std::move(opened).value();
  store->TEST_SkipFreeSpaceCheck();
  const auto batch = [](std::int64_t tick) {
    std::vector<Sample> samples = Batch(tick);
    for (int s = 0; s < kSeries; ++s) samples[static_cast<std::size_t>(s)].value = Noise(tick, s);
    return samples;
  };
  std::int64_t tick = 0;
  for (; tick < 60; ++tick) check(store->Append(batch(tick)).ok(), "append");
  check(store->Flush().ok(), "first flush");
  check(FillUp(dir + "/filler"), "could not fill the file system");
  // ~1 MB of noise: more than the file system has left.
  for (; tick < 60 + 6000; ++tick) check(store->Append(batch(tick)).ok(), "append while full");
  const std::size_t head = store->Stats().head_samples;
  const Status flushed = store->Flush();
  check(flushed.code() == StatusCode::kResourceExhausted,
        "flush that runs out of space: " + flushed.ToString());
  check(flushed.error_number() == ENOSPC, "not ENOSPC: " + flushed.ToString());
  check(store->Stats().disk_full, "disk_full not reported");
  check(store->Stats().head_samples == head, "the head lost samples");
  check(!std::filesystem::exists(options.path + ".ballast"), "the ballast was not given up");
  RangeQuery query;
  query.selector.name = std::string(kVoltage.name);
  query.from_ms = kT0;
  query.to_ms = kT0 + tick * 1000;
  query.max_points_per_series = 100000;
  auto result = store->Query(query);
  if (check(result.ok(), "query: " + result.status().ToString())) {
    check(result->series.size() == kSeries, "series missing");
    for (const auto& series : result->series) {
      check(static_cast<std::int64_t>(series.points.size()) == tick, "samples missing");
      const int s = std::stoi(series.series.labels.at(0).value.substr(2));  // sensor="in<s>"
      for (std::size_t i = 0; i < series.points.size(); ++i) {
        if (series.points[i].value != Noise(static_cast<std::int64_t>(i), s)) {
          check(false, "a value changed");
          break;
        }
      }
    }
  }
  {
    auto db = sqlite::Database::Open(options.path, {});
    check(db.ok() && (*db)->IntegrityCheck().ok(), "integrity_check failed after SQLITE_FULL");
    check(
        db.ok() && (*db)->QueryInt64("SELECT sum(points) FROM blocks_raw").value() == 60 * kSeries,
        "the failed flush left rows behind");
  }
  std::filesystem::remove(dir + "/filler");
  const Status recovered = store->Flush();
  check(recovered.ok(), "flush once space returned: " + recovered.ToString());
  check(!store->Stats().disk_full && store->Stats().head_samples == 0, "not recovered");
  store.reset();
  auto reopened = SqliteStore::Open(options);
  if (check(reopened.ok(), "reopen: " + reopened.status().ToString())) {
    auto after = (*reopened)->Query(query);
    check(after.ok() && after->series.size() == kSeries &&
              static_cast<std::int64_t>(after->series[0].points.size()) == tick,
          "samples lost across the full disk");
  }
  return failures;
}

TEST(SqliteStoreDiskFullTest, AFullDiskInsideTheTransactionLosesNothing) {
  RunOnTmpfs("8m", &FullAtCommitScenario);
}

}  // namespace
}  // namespace edgemond::storage
