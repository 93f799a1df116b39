#include "storage/sqlite_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <utility>

#include "storage/block_table.h"
#include "storage/damaged_file.h"
#include "storage/label_text.h"
#include "storage/schema.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "storage/sqlite_store_internal.h"

namespace edgemond::storage {

namespace {

using internal::FileSize;
using internal::WalBudget;
using sqlite::Database;
using sqlite::DatabaseOptions;
using sqlite::Statement;
using sqlite::Transaction;

// Page cache per connection. The writer touches the right edge of one table and a few catalog
// pages; the reader streams pages it will not revisit. Both give their cache back after large
// reads (Database::ReleaseMemory), so these are bounds, not resident sizes.
constexpr int kWriterCacheKib = 256;
constexpr int kReaderCacheKib = 512;

Status PathError(int error_number, const std::string& message) {
  Status status = Status::FromErrno(error_number, message);
  // A read-only file system is a permission problem for the operator, not an I/O failure.
  if (error_number == EROFS) {
    return Status(StatusCode::kPermissionDenied, status.message(), error_number);
  }
  return status;
}

// Checks up front what SQLite would only report as "unable to open database file", so that the
// daemon can print one clear line naming the path.
Status CheckDatabasePath(const std::string& path) {
  const std::filesystem::path file(path);
  std::string dir = file.parent_path().string();
  if (dir.empty()) dir = ".";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int error_number = errno;
    if (error_number == ENOENT || error_number == ENOTDIR) {
      return Status(StatusCode::kNotFound,
                    "storage: directory " + dir + " for database " + path + " does not exist",
                    error_number);
    }
    return PathError(error_number,
                     "storage: cannot use directory " + dir + " for database " + path);
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::NotFound("storage: " + dir + " (directory of database " + path +
                            ") is not a directory");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return PathError(errno, "storage: directory " + dir + " is not writable (database " + path +
                                " and its -wal and -shm files are created there)");
  }
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument("storage: database path " + path + " is a directory");
    }
    if (::access(path.c_str(), R_OK | W_OK) != 0) {
      return PathError(errno, "storage: database file " + path + " is not writable");
    }
  }
  return Status::Ok();
}

// Takes the store's exclusive lock (see the header).
Result<UniqueFd> LockDatabase(const std::string& path) {
  const std::string lock_path = path + ".lock";
  UniqueFd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) return PathError(errno, "storage: cannot create lock file " + lock_path);
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int error_number = errno;
    if (error_number == EWOULDBLOCK) {
      return Status(StatusCode::kFailedPrecondition,
                    "storage: database " + path + " is in use by another edgemond (lock file " +
                        lock_path + "); run one per database",
                    error_number);
    }
    return PathError(error_number, "storage: cannot lock " + lock_path);
  }
  return fd;
}

Status ValidateOptions(const StorageOptions& options) {
  if (options.path.empty()) return Status::InvalidArgument("storage: no database path given");
  if (options.flush_interval <= std::chrono::seconds(0)) {
    return Status::InvalidArgument("storage: flush interval must be positive");
  }
  for (const auto retention :
       {options.raw_retention, options.minute_retention, options.hour_retention}) {
    if (retention <= std::chrono::milliseconds(0)) {
      return Status::InvalidArgument("storage: retention must be positive");
    }
  }
  if (options.max_bytes < 0 || (options.max_bytes > 0 && options.max_bytes < (4 << 20))) {
    return Status::InvalidArgument("storage: the size limit must be 0 (none) or at least 4 MiB");
  }
  if (options.ballast_bytes < 0) {
    return Status::InvalidArgument("storage: ballast size must not be negative");
  }
  if (options.checkpoint_wal_frames <= 0) {
    return Status::InvalidArgument("storage: checkpoint threshold must be positive");
  }
  return Status::Ok();
}

Status ConfigureConnection(Database& db, int cache_kib) {
  // mmap_size=0: pages a query touches are copied into the small page cache instead of being
  // mapped, so they never count in the daemon's resident memory.
  // secure_delete=FAST: some builds (Debian's among them) overwrite every freed page with
  // zeros, which doubles what retention writes; FAST only clears deleted content on pages that
  // are written anyway.
  return db.Execute(
      "PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA mmap_size=0; "
      "PRAGMA secure_delete=FAST; PRAGMA cache_size=-" +
      std::to_string(cache_kib));
}

Status EnableWal(Database& db, std::int64_t journal_size_limit) {
  EDGEMOND_ASSIGN_OR_RETURN(const std::string mode, db.QueryString("PRAGMA journal_mode=WAL"));
  if (mode != "wal") {
    return Status::Unsupported("storage: database " + db.path() +
                               " cannot use write-ahead logging (journal_mode stays \"" + mode +
                               "\"); is it on a network file system?");
  }
  return db.Execute("PRAGMA journal_size_limit=" + std::to_string(journal_size_limit));
}

Result<MetricType> ParseType(std::string_view text) {
  if (text == "gauge") return MetricType::kGauge;
  if (text == "counter") return MetricType::kCounter;
  return Status::Corruption("unknown metric type \"" + std::string(text) + "\"");
}

std::string MakeKey(const std::string& name, const std::string& label_text) {
  return label_text.empty() ? name : name + "{" + label_text + "}";
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const StorageOptions& options) {
  EDGEMOND_RETURN_IF_ERROR(ValidateOptions(options));
  EDGEMOND_RETURN_IF_ERROR(CheckDatabasePath(options.path));
  EDGEMOND_ASSIGN_OR_RETURN(UniqueFd lock_fd, LockDatabase(options.path));
  auto store = OpenLocked(options, lock_fd);
  if (store.ok() || store.status().code() != StatusCode::kCorruption ||
      !options.move_aside_if_damaged || !HasSqliteHeader(options.path)) {
    return store;
  }
  const Status damage = store.status();
  EDGEMOND_ASSIGN_OR_RETURN(std::string moved_to,
                            MoveDamagedAside(options.path, std::chrono::system_clock::now()));
  store = OpenLocked(options, lock_fd);
  if (store.ok())
    (*store)->moved_aside_ = MovedAside{std::move(moved_to), std::string(damage.message())};
  return store;
}

Result<std::unique_ptr<SqliteStore>> SqliteStore::OpenLocked(const StorageOptions& options,
                                                             UniqueFd& lock_fd) {
  DatabaseOptions writer_options;
  writer_options.mode = DatabaseOptions::Mode::kReadWriteCreate;
  writer_options.manual_checkpoints = true;
  writer_options.small_memory = true;
  writer_options.exclusive_to_process = options.exclusive_to_process;
  EDGEMOND_ASSIGN_OR_RETURN(std::unique_ptr<Database> writer,
                            Database::Open(options.path, writer_options));
  // Everything that decides whether this file may be used only reads; the first write is below.
  EDGEMOND_ASSIGN_OR_RETURN(const int version, CheckSchema(*writer, BuiltinMigrations()));
  if (options.exclusive_to_process) {
    // The file is held against every other process now, so a `-shm` file beside it is what an
    // earlier edgemond (or a sqlite3 shell) left behind: the WAL index lives in memory from here.
    ::unlink((options.path + "-shm").c_str());
  }
  if (options.check_integrity_on_open) {
    const Status check = writer->QuickCheck();
    if (!check.ok()) {
      if (check.message().find(options.path) != std::string_view::npos) return check;
      return check.WithContext("storage: database " + options.path);
    }
  }
  EDGEMOND_RETURN_IF_ERROR(PrepareEmptyDatabase(*writer));
  EDGEMOND_RETURN_IF_ERROR(EnableWal(*writer, WalBudget(options)));
  EDGEMOND_RETURN_IF_ERROR(ConfigureConnection(*writer, kWriterCacheKib));
  EDGEMOND_RETURN_IF_ERROR(Migrate(*writer));
  if (version > 0 && version < CurrentSchemaVersion()) {
    // A migration dropped the old tables: give their pages back now rather than bit by bit.
    EDGEMOND_RETURN_IF_ERROR(writer->Execute("PRAGMA incremental_vacuum"));
    EDGEMOND_RETURN_IF_ERROR(writer->Checkpoint(Database::CheckpointMode::kTruncate).status());
  }

  DatabaseOptions reader_options;
  reader_options.mode = DatabaseOptions::Mode::kReadWrite;
  reader_options.small_memory = true;
  reader_options.exclusive_to_process = options.exclusive_to_process;
  EDGEMOND_ASSIGN_OR_RETURN(std::unique_ptr<Database> reader,
                            Database::Open(options.path, reader_options));
  EDGEMOND_RETURN_IF_ERROR(reader->Execute("PRAGMA query_only=ON"));
  EDGEMOND_RETURN_IF_ERROR(ConfigureConnection(*reader, kReaderCacheKib));

  std::unique_ptr<SqliteStore> store(
      new SqliteStore(options, std::move(lock_fd), std::move(writer), std::move(reader)));
  {
    std::lock_guard write_lock(store->write_mu_);
    Status status = store->LoadCatalog();
    if (status.ok()) status = store->LoadTierState();
    if (status.ok()) status = store->CatchUpRollups();
    if (status.ok()) status = store->RefreshExtentsFromRecentBlocks();
    if (!status.ok()) {
      lock_fd = std::move(store->lock_fd_);  // The caller may try again.
      if (status.message().find(options.path) != std::string_view::npos) return status;
      return status.WithContext("storage: database " + options.path);
    }
    store->writer_->ReleaseMemory();
    // A ballast left by a previous run is kept; otherwise reserve one if there is room.
    if (options.ballast_bytes > 0) {
      if (FileSize(store->ballast_path_) >= options.ballast_bytes) {
        store->ballast_held_ = true;
      } else if (auto free_bytes = store->FreeBytes(); free_bytes.ok()) {
        store->ReserveBallast(*free_bytes);
      }
    }
  }
  return store;
}

SqliteStore::SqliteStore(StorageOptions options, UniqueFd lock_fd, std::unique_ptr<Database> writer,
                         std::unique_ptr<Database> reader)
    : options_(std::move(options)),
      ballast_path_(options_.path + ".ballast"),
      lock_fd_(std::move(lock_fd)),
      writer_(std::move(writer)),
      reader_(std::move(reader)) {}

SqliteStore::~SqliteStore() = default;

std::size_t SqliteStore::head_limit() const {
  if (options_.max_head_samples > 0) return options_.max_head_samples;
  constexpr std::size_t kSeries = 500;
  constexpr std::size_t kFlushIntervals = 64;
  return kSeries * kFlushIntervals * static_cast<std::size_t>(options_.flush_interval.count());
}

std::chrono::milliseconds SqliteStore::RetentionOf(Tier tier) const {
  switch (tier) {
    case Tier::kRaw:
      return options_.raw_retention;
    case Tier::kMinute:
      return options_.minute_retention;
    case Tier::kHour:
      return options_.hour_retention;
  }
  return options_.raw_retention;
}

Status SqliteStore::LoadCatalog() {
  std::lock_guard lock(mu_);
  EDGEMOND_ASSIGN_OR_RETURN(
      Statement select,
      writer_->Prepare("SELECT s.id, s.name, s.labels, s.unit, s.type, e.first_ms, e.last_ms "
                       "FROM series s LEFT JOIN series_extent e ON e.series_id = s.id"));
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
    if (!has_row) break;
    auto entry = std::make_unique<SeriesEntry>();
    entry->persisted = true;
    entry->id = select.ColumnInt64(0);
    SeriesInfo& info = entry->info;
    info.name = select.ColumnString(1);
    const std::string label_text = select.ColumnString(2);
    const auto context = [&] {
      return "storage: database " + options_.path + ": series " + std::to_string(entry->id);
    };
    auto labels = ParseLabelText(label_text);
    if (!labels.ok()) return labels.status().WithContext(context());
    info.labels = std::move(labels).value();
    info.unit = select.ColumnString(3);
    auto type = ParseType(select.ColumnText(4));
    if (!type.ok()) return type.status().WithContext(context());
    info.type = *type;
    entry->extent_stored = !select.ColumnIsNull(5);
    if (!select.ColumnIsNull(5)) info.first_ms = select.ColumnInt64(5);
    if (!select.ColumnIsNull(6)) info.last_ms = select.ColumnInt64(6);
    entry->key = MakeKey(info.name, label_text);
    next_series_id_ = std::max(next_series_id_, entry->id + 1);
    const std::string key = entry->key;
    SeriesEntry* raw = entry.get();
    if (!series_by_key_.emplace(key, std::move(entry)).second) {
      return Status::Corruption(context() + ": duplicate series key " + key);
    }
    series_by_id_[raw->id] = raw;
  }
  return Status::Ok();
}

Status SqliteStore::LoadTierState() {
  std::lock_guard lock(mu_);
  for (const TierSpec& spec : kTiers) {
    BlockTable table(*writer_, spec);
    TierState& state = tiers_[static_cast<std::size_t>(spec.tier)];
    EDGEMOND_ASSIGN_OR_RETURN(const auto oldest, table.Oldest());
    EDGEMOND_ASSIGN_OR_RETURN(const auto newest, table.Newest());
    if (oldest) state.oldest_t0 = oldest->t0;
    if (newest) {
      state.newest_t1 = newest->t1;
      if (spec.tier != Tier::kRaw) {
        state.built_until = AlignDown(newest->t0, spec.window_ms) + spec.window_ms;
      }
    }
  }
  return Status::Ok();
}

// series_extent is written when a series first stores data and each time a 1-minute window is
// built (hourly), not at every flush; the raw blocks written since then tell the rest.
Status SqliteStore::RefreshExtentsFromRecentBlocks() {
  const TierState& minute = tiers_[static_cast<std::size_t>(Tier::kMinute)];
  const TierState& raw = tiers_[static_cast<std::size_t>(Tier::kRaw)];
  if (!raw.newest_t1) return Status::Ok();
  const std::int64_t from = minute.built_until == INT64_MIN
                                ? raw.oldest_t0.value_or(*raw.newest_t1)
                                : minute.built_until - SpecOf(Tier::kRaw).window_ms;
  BlockTable table(*writer_, SpecOf(Tier::kRaw));
  EDGEMOND_ASSIGN_OR_RETURN(const auto rows, table.Overlapping(from, *raw.newest_t1));
  std::lock_guard lock(mu_);
  return table.Scan(rows, {}, 0, [&](std::int64_t id, const SeriesPoints& points) {
    auto it = series_by_id_.find(id);
    if (it == series_by_id_.end()) {
      return Status::Corruption("storage: database " + options_.path + ": a block holds series " +
                                std::to_string(id) + ", which is not in the catalog");
    }
    SeriesInfo& info = it->second->info;
    const std::int64_t first = points.timestamps.front();
    const std::int64_t last = points.timestamps.back();
    if (!info.first_ms || first < *info.first_ms) info.first_ms = first;
    if (!info.last_ms || last > *info.last_ms) info.last_ms = last;
    return Status::Ok();
  });
}

Status SqliteStore::CatchUpRollups() {
  const auto newest = tiers_[static_cast<std::size_t>(Tier::kRaw)].newest_t1;
  if (!newest) return Status::Ok();
  std::array<std::vector<std::int64_t>, kTierCount> dirty;
  std::array<std::int64_t, kTierCount> built_until;
  Transaction transaction(*writer_, Transaction::Mode::kImmediate);
  EDGEMOND_RETURN_IF_ERROR(transaction.Begin());
  EDGEMOND_RETURN_IF_ERROR(BuildRollups(dirty, newest, built_until));
  std::lock_guard lock(mu_);
  EDGEMOND_RETURN_IF_ERROR(transaction.Commit());
  for (const TierSpec& spec : kTiers) {
    if (spec.tier == Tier::kRaw) continue;
    TierState& state = tiers_[static_cast<std::size_t>(spec.tier)];
    if (built_until[static_cast<std::size_t>(spec.tier)] == state.built_until) continue;
    state.built_until = built_until[static_cast<std::size_t>(spec.tier)];
    BlockTable table(*writer_, spec);
    EDGEMOND_ASSIGN_OR_RETURN(const auto oldest, table.Oldest());
    EDGEMOND_ASSIGN_OR_RETURN(const auto newest_row, table.Newest());
    if (oldest) state.oldest_t0 = oldest->t0;
    if (newest_row) state.newest_t1 = newest_row->t1;
  }
  return Status::Ok();
}

// --- Append ------------------------------------------------------------------------------------

Result<SqliteStore::SeriesEntry*> SqliteStore::Resolve(
    const Sample& sample, std::size_t position, std::map<std::string, SeriesEntry*>& created) {
  if (sample.desc == nullptr) {
    return Status::InvalidArgument("storage: sample " + std::to_string(position) +
                                   " of the batch has no metric description");
  }
  // The common case: the collectors produce the same series in the same order every tick.
  if (position < last_batch_.size()) {
    SeriesEntry* cached = last_batch_[position];
    if (cached->desc == sample.desc && cached->given_labels == sample.labels) return cached;
  }
  std::string key = SeriesKey(sample);
  if (auto it = series_by_key_.find(key); it != series_by_key_.end()) return it->second.get();
  if (auto it = created.find(key); it != created.end()) return it->second;
  SeriesInfo info;
  info.name = std::string(sample.desc->name);
  auto status = ValidateMetricName(info.name);
  auto labels = CanonicalLabels(sample.labels);
  if (!status.ok() || !labels.ok()) {
    return (status.ok() ? labels.status() : status)
        .WithContext("storage: sample " + std::to_string(position) + " (" + key + ")");
  }
  info.labels = std::move(labels).value();
  info.unit = std::string(sample.desc->unit);
  info.type = sample.desc->type;
  auto entry = std::make_unique<SeriesEntry>();
  entry->key = key;
  entry->info = std::move(info);
  SeriesEntry* raw = entry.get();
  created.emplace(std::move(key), raw);
  staged_.push_back(std::move(entry));
  return raw;
}

Status SqliteStore::Append(const std::vector<Sample>& samples) {
  std::lock_guard write_lock(write_mu_);
  // Resolve and validate the whole batch before changing anything, so a bad sample rejects the
  // batch alone. The writer may read the in-memory state without mu_ (see header).
  std::vector<SeriesEntry*>& resolved = resolved_;
  resolved.assign(samples.size(), nullptr);
  std::map<std::string, SeriesEntry*> created;
  staged_.clear();
  std::size_t values = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    auto entry = Resolve(samples[i], i, created);
    if (!entry.ok()) {
      staged_.clear();
      return entry.status();
    }
    resolved[i] = *entry;
    const auto& value = samples[i].value;
    if (value.has_value() && !std::isnan(*value)) ++values;
  }
  if (head_samples_ + values > head_limit()) {
    staged_.clear();
    return Status::ResourceExhausted("storage: " + std::to_string(head_samples_) +
                                     " samples are waiting for a flush (the limit is " +
                                     std::to_string(head_limit()) + "; flushes to " +
                                     options_.path + " have been failing); dropped a batch of " +
                                     std::to_string(samples.size()) + " samples");
  }

  std::lock_guard lock(mu_);
  for (auto& entry : staged_) {
    entry->id = next_series_id_++;
    SeriesEntry* raw = entry.get();
    series_by_id_[raw->id] = raw;
    series_by_key_.emplace(raw->key, std::move(entry));
  }
  staged_.clear();
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample& sample = samples[i];
    SeriesEntry& entry = *resolved[i];
    if (entry.desc != sample.desc) entry.desc = sample.desc;
    // Shared: the next tick's Resolve compares pointers. Copy only when they differ, which
    // spares two atomic reference count updates per sample.
    if (!entry.given_labels.SharesWith(sample.labels)) entry.given_labels = sample.labels;
    entry.live = true;
    if (!sample.value.has_value() || std::isnan(*sample.value)) continue;  // A gap.
    const std::int64_t ts_ms = ToUnixMillis(sample.at);
    entry.head.push_back(HeadPoint{ts_ms, *sample.value});
    SeriesInfo& info = entry.info;
    if (!info.first_ms || ts_ms < *info.first_ms) info.first_ms = ts_ms;
    if (!info.last_ms || ts_ms > *info.last_ms) info.last_ms = ts_ms;
    entry.extent_dirty = true;
  }
  head_samples_ += values;
  last_batch_.swap(resolved);
  return Status::Ok();
}

StoreStats SqliteStore::Stats() const {
  StoreStats stats;
  {
    std::lock_guard lock(mu_);
    stats.series = series_by_key_.size();
    stats.head_samples = head_samples_;
    stats.disk_full = disk_full_;
    stats.newest_stored_ms = tiers_[static_cast<std::size_t>(Tier::kRaw)].newest_t1;
  }
  stats.database_bytes = FileSize(options_.path);
  stats.wal_bytes = FileSize(options_.path + "-wal");
  return stats;
}

}  // namespace edgemond::storage
