// A damaged database at start: what SqliteStore::Open does with it when move_aside_if_damaged is
// set (the daemon sets it), on real files damaged the way flash and power cuts damage them.

#include "storage/damaged_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "storage/sqlite/database.h"
#include "storage/sqlite_store.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

namespace fs = std::filesystem;
using ::edgemond::testing::TempDir;

constexpr MetricDesc kTemperature{"edgemond_thermal_zone_celsius", "Thermal zone temperature",
                                  MetricType::kGauge, "celsius"};
constexpr std::int64_t kT0 = 1767225600000;  // 2026-01-01T00:00:00Z.

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void Overwrite(const std::string& path, std::int64_t offset, const std::string& bytes) {
  std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
  file.seekp(static_cast<std::streamoff>(offset));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The files in `dir` whose names start with `prefix`.
std::vector<std::string> FilesStartingWith(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

class DamagedDatabaseTest : public ::testing::Test {
 protected:
  StorageOptions Options() const {
    StorageOptions options;
    options.path = path_;
    options.ballast_bytes = 0;
    options.check_integrity_on_open = true;
    options.move_aside_if_damaged = true;
    return options;
  }

  // A database holding an hour of one series at 1 Hz, flushed every minute, closed cleanly.
  void WriteDatabase() {
    auto store = SqliteStore::Open(Options());
    ASSERT_TRUE(store.ok()) << store.status();
    for (int i = 0; i < 3600; ++i) {
      Sample sample{&kTemperature, {{"zone", "0"}}, 40.0 + (i % 50) * 0.5, {}, {}};
      sample.at = FromUnixMillis(kT0 + i * 1000);
      ASSERT_TRUE((*store)->Append({sample}).ok());
      if (i % 60 == 59) {
        ASSERT_TRUE((*store)->Flush().ok());
      }
    }
  }

  // Opens the store, which must succeed on a new file, and checks that the damaged one went
  // aside whole, its bytes unchanged, under the name moved_aside() gives, for `reason`.
  void ExpectMovedAside(const std::string& damaged_bytes, const std::string& reason) {
    auto store = SqliteStore::Open(Options());
    ASSERT_TRUE(store.ok()) << store.status();
    const auto& moved = (*store)->moved_aside();
    ASSERT_TRUE(moved.has_value());
    EXPECT_NE(moved->reason.find(reason), std::string::npos) << moved->reason;
    EXPECT_TRUE(moved->path.starts_with(path_ + ".damaged-")) << moved->path;
    EXPECT_EQ(ReadFile(moved->path), damaged_bytes);
    EXPECT_EQ((*store)->Stats().series, 0u);  // A new, empty database took its place.
    Sample sample{&kTemperature, {{"zone", "0"}}, 41.0, {}, FromUnixMillis(kT0)};
    EXPECT_TRUE((*store)->Append({sample}).ok());
    EXPECT_TRUE((*store)->Flush().ok());
    store->reset();
    auto db = sqlite::Database::Open(path_, {});
    ASSERT_TRUE(db.ok());
    EXPECT_TRUE((*db)->IntegrityCheck().ok());
  }

  TempDir dir_;
  const std::string path_ = dir_.Join("edgemond.db");
};

TEST_F(DamagedDatabaseTest, ATruncatedFileIsMovedAsideAndANewOneMade) {
  WriteDatabase();
  fs::resize_file(path_, fs::file_size(path_) / 2);
  ExpectMovedAside(ReadFile(path_), "database disk image is malformed");
}

TEST_F(DamagedDatabaseTest, AGarbagePageIsFoundByQuickCheckAndTheFileMovedAside) {
  WriteDatabase();
  // A page in the middle of the blocks (the catalog, on the first pages, still reads).
  const auto pages = static_cast<std::int64_t>(fs::file_size(path_) / 4096);
  ASSERT_GT(pages, 6);
  Overwrite(path_, (pages / 2) * 4096, std::string(4096, '\xA5'));
  const std::string damaged = ReadFile(path_);
  ExpectMovedAside(damaged, "failed quick_check");
}

TEST_F(DamagedDatabaseTest, TheWalGoesAsideWithItsDatabaseAndTheShmIsDropped) {
  std::ofstream(path_, std::ios::binary) << "database";
  std::ofstream(path_ + "-wal", std::ios::binary) << "log";
  std::ofstream(path_ + "-shm", std::ios::binary) << "index";
  auto moved = MoveDamagedAside(path_, FromUnixMillis(kT0));
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(ReadFile(*moved), "database");
  EXPECT_EQ(ReadFile(*moved + "-wal"), "log");
  EXPECT_EQ(FilesStartingWith(dir_.path(), "edgemond.db"),
            (std::vector<std::string>{"edgemond.db.damaged-20260101T000000Z",
                                      "edgemond.db.damaged-20260101T000000Z-wal"}));
}

TEST_F(DamagedDatabaseTest, AFileThatIsNotASqliteDatabaseIsRefusedAndLeftAlone) {
  const std::string text = "these are somebody's notes, not edgemond's database\n";
  std::ofstream(path_, std::ios::binary) << text;
  const auto store = SqliteStore::Open(Options());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kCorruption) << store.status();
  EXPECT_NE(store.status().message().find(path_), std::string_view::npos) << store.status();
  EXPECT_EQ(ReadFile(path_), text);
  EXPECT_EQ(FilesStartingWith(dir_.path(), "edgemond.db.damaged"), std::vector<std::string>{});
}

TEST_F(DamagedDatabaseTest, WithoutTheOptionADamagedFileIsRefusedAndLeftAlone) {
  WriteDatabase();
  fs::resize_file(path_, fs::file_size(path_) / 2);
  const std::string damaged = ReadFile(path_);
  StorageOptions options = Options();
  options.move_aside_if_damaged = false;
  const auto store = SqliteStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kCorruption) << store.status();
  EXPECT_EQ(ReadFile(path_), damaged);
}

TEST_F(DamagedDatabaseTest, ASecondDamageTheSameSecondGetsItsOwnName) {
  const WallTime now = FromUnixMillis(kT0);
  std::ofstream(path_) << "first";
  auto first = MoveDamagedAside(path_, now);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, path_ + ".damaged-20260101T000000Z");
  std::ofstream(path_) << "second";
  auto second = MoveDamagedAside(path_, now);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, path_ + ".damaged-20260101T000000Z-2");
  EXPECT_EQ(ReadFile(*first), "first");
  EXPECT_EQ(ReadFile(*second), "second");
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(DamagedDatabaseTest, OnlyAFileWithSqlitesHeaderCountsAsADatabase) {
  EXPECT_FALSE(HasSqliteHeader(path_));                         // Absent.
  std::ofstream(path_, std::ios::binary) << "SQLite format 3";  // 15 bytes, no NUL.
  EXPECT_FALSE(HasSqliteHeader(path_));
  fs::remove(path_);
  WriteDatabase();
  EXPECT_TRUE(HasSqliteHeader(path_));
}

}  // namespace
}  // namespace edgemond::storage
