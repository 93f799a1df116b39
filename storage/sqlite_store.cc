#include "storage/sqlite_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <set>
#include <utility>

#include "storage/block_table.h"
#include "storage/label_text.h"
#include "storage/rollup.h"
#include "storage/schema.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "storage/step_aggregator.h"

namespace edgemond::storage {

namespace {

using sqlite::Database;
using sqlite::DatabaseOptions;
using sqlite::Statement;
using sqlite::Transaction;

// The WAL file is cut back to this size whenever SQLite rewinds it (journal_size_limit), so a
// burst (a rollup rebuild, a migration) does not leave a large file behind. With a size cap the
// WAL gets a sixteenth of it, at most this: the cap covers the database and its WAL together.
constexpr std::int64_t kJournalSizeLimitBytes = 4 << 20;
constexpr std::int64_t kPageBytes = 4096;
constexpr std::int64_t kWalFrameBytes = kPageBytes + 24;
// Page cache per connection. The writer touches the right edge of one table and a few catalog
// pages; the reader streams pages it will not revisit. Both give their cache back after large
// reads (Database::ReleaseMemory), so these are bounds, not resident sizes.
constexpr int kWriterCacheKib = 256;
constexpr int kReaderCacheKib = 512;
// Free pages kept for reuse by the next flushes rather than given back to the file system.
constexpr std::int64_t kKeepFreePages = 2048;
// Space a flush needs beyond its data: WAL frame headers, the pages of the tree it touches, a
// rollup window it may complete.
constexpr std::int64_t kFlushOverheadBytes = 1 << 20;
// Free space the store never takes for itself (the rest of the system needs some too).
constexpr std::int64_t kReserveBytes = 256 << 10;
// Age retention deletes a tier's expired blocks once this much of it has expired (a few large
// deletes write less than many small ones), at most kMaxBlocksPerCall per call.
constexpr std::array<std::int64_t, kTierCount> kRetentionBatchMs = {3'600'000, 86'400'000,
                                                                    7 * 86'400'000LL};
constexpr std::size_t kMaxBlocksPerCall = 512;
// Head capacity kept per series after a flush; a backlog's memory is given back.
constexpr std::size_t kHeadCapacityToKeep = 4096;

constexpr std::uint32_t kAllColumns = (1u << kMaxColumns) - 1;

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

// What the WAL may take of the size cap.
std::int64_t WalBudget(const StorageOptions& options) {
  return options.max_bytes > 0 ? std::min(kJournalSizeLimitBytes, options.max_bytes / 16)
                               : kJournalSizeLimitBytes;
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

// A summary's quantiles are each a gauge (as Prometheus stores them).
std::string_view TypeName(MetricType type) {
  return MetricTypeName(type == MetricType::kSummary ? MetricType::kGauge : type);
}

Result<MetricType> ParseType(std::string_view text) {
  if (text == "gauge") return MetricType::kGauge;
  if (text == "counter") return MetricType::kCounter;
  return Status::Corruption("unknown metric type \"" + std::string(text) + "\"");
}

std::string MakeKey(const std::string& name, const std::string& label_text) {
  return label_text.empty() ? name : name + "{" + label_text + "}";
}

std::int64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : 0;
}

std::string DirectoryOf(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// Sorts a series' head samples by time, keeping the later Append of one millisecond.
void SortHead(std::vector<std::int64_t>& ms, std::vector<double>& values) {
  if (std::is_sorted(ms.begin(), ms.end()) &&
      std::adjacent_find(ms.begin(), ms.end()) == ms.end()) {
    return;
  }
  std::vector<std::size_t> order(ms.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ms[a] < ms[b]; });
  std::vector<std::int64_t> sorted_ms;
  std::vector<double> sorted_values;
  sorted_ms.reserve(ms.size());
  sorted_values.reserve(ms.size());
  for (const std::size_t i : order) {
    if (!sorted_ms.empty() && sorted_ms.back() == ms[i]) {
      sorted_values.back() = values[i];
    } else {
      sorted_ms.push_back(ms[i]);
      sorted_values.push_back(values[i]);
    }
  }
  ms = std::move(sorted_ms);
  values = std::move(sorted_values);
}

// Merges `newer` into `older` (both raw points sorted by time); on equal timestamps `newer`
// wins.
void MergeRaw(SeriesPoints& older, const SeriesPoints& newer) {
  SeriesPoints merged;
  auto& ms = merged.timestamps;
  auto& values = merged.columns[0];
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < older.timestamps.size() || j < newer.timestamps.size()) {
    const bool take_newer =
        i == older.timestamps.size() ||
        (j < newer.timestamps.size() && newer.timestamps[j] <= older.timestamps[i]);
    if (take_newer) {
      if (i < older.timestamps.size() && older.timestamps[i] == newer.timestamps[j]) ++i;
      ms.push_back(newer.timestamps[j]);
      values.push_back(newer.columns[0][j]);
      ++j;
    } else {
      ms.push_back(older.timestamps[i]);
      values.push_back(older.columns[0][i]);
      ++i;
    }
  }
  older = std::move(merged);
}

// The points of `data` (series -> raw points) with timestamps in [lo, hi].
std::map<std::int64_t, SeriesPoints> Slice(const std::map<std::int64_t, SeriesPoints>& data,
                                           std::int64_t lo, std::int64_t hi) {
  std::map<std::int64_t, SeriesPoints> slice;
  for (const auto& [id, points] : data) {
    const auto& ts = points.timestamps;
    const auto begin = std::lower_bound(ts.begin(), ts.end(), lo);
    const auto end = std::upper_bound(ts.begin(), ts.end(), hi);
    if (begin == end) continue;
    SeriesPoints& out = slice[id];
    out.timestamps.assign(begin, end);
    const auto offset = begin - ts.begin();
    out.columns[0].assign(points.columns[0].begin() + offset,
                          points.columns[0].begin() + offset + (end - begin));
  }
  return slice;
}

// Whether rollup `window` of `tier` may be (re)built from the tier below: when that tier still
// holds the whole window (its oldest point is not after the window's start), or when `tier` has
// nothing stored for the window (nothing can be lost). Otherwise the lower tier's data for part
// of the window has expired and only the rollup still summarizes it.
Result<bool> MayRebuild(Database& db, Tier tier, std::int64_t window,
                        std::optional<std::int64_t> lower_oldest) {
  if (lower_oldest && *lower_oldest <= window) return true;
  BlockTable table(db, SpecOf(tier));
  EDGEMOND_ASSIGN_OR_RETURN(const auto rows,
                            table.Overlapping(window, window + SpecOf(tier).window_ms - 1));
  return rows.empty();
}

// Encodes `data` (raw points) into blocks of at most one raw window each and writes them.
Status WriteRawBlocks(BlockTable& table, const std::map<std::int64_t, SeriesPoints>& data,
                      std::optional<std::int64_t>& newest_t1) {
  std::int64_t lo = INT64_MAX;
  std::int64_t hi = INT64_MIN;
  for (const auto& [id, points] : data) {
    lo = std::min(lo, points.timestamps.front());
    hi = std::max(hi, points.timestamps.back());
  }
  if (lo > hi) return Status::Ok();
  const std::int64_t window = table.spec().window_ms;
  const auto write = [&](const std::map<std::int64_t, SeriesPoints>& part) -> Status {
    BlockEncoder encoder(kRawColumns);
    for (const auto& [id, points] : part) encoder.Add(id, points);
    if (encoder.empty()) return Status::Ok();
    const BlockRow row{encoder.first_ms(), encoder.last_ms(),
                       static_cast<std::int64_t>(encoder.points())};
    const std::string blob = encoder.Finish();
    EDGEMOND_RETURN_IF_ERROR(table.Insert(row, blob));
    newest_t1 = std::max(newest_t1.value_or(row.t1), row.t1);
    return Status::Ok();
  };
  if (hi - lo < window) return write(data);
  // A backlog (flushes failed for a while): one block per window of the grid.
  for (std::int64_t start = AlignDown(lo, window); start <= hi; start += window) {
    EDGEMOND_RETURN_IF_ERROR(write(Slice(data, start, start + window - 1)));
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const StorageOptions& options) {
  EDGEMOND_RETURN_IF_ERROR(ValidateOptions(options));
  EDGEMOND_RETURN_IF_ERROR(CheckDatabasePath(options.path));
  EDGEMOND_ASSIGN_OR_RETURN(UniqueFd lock_fd, LockDatabase(options.path));

  DatabaseOptions writer_options;
  writer_options.mode = DatabaseOptions::Mode::kReadWriteCreate;
  writer_options.manual_checkpoints = true;
  writer_options.small_memory = true;
  EDGEMOND_ASSIGN_OR_RETURN(std::unique_ptr<Database> writer,
                            Database::Open(options.path, writer_options));
  // Everything that decides whether this file may be used only reads; the first write is below.
  EDGEMOND_ASSIGN_OR_RETURN(const int version, CheckSchema(*writer, BuiltinMigrations()));
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

// --- Flush -------------------------------------------------------------------------------------

Status SqliteStore::Flush() {
  std::lock_guard write_lock(write_mu_);
  // The writer may read the in-memory state without mu_: only writers change it (see header).
  std::map<std::int64_t, SeriesPoints> head;
  std::vector<SeriesEntry*> flushed;
  std::vector<SeriesEntry*> new_series;
  for (auto& [key, entry] : series_by_key_) {
    if (!entry->persisted) new_series.push_back(entry.get());
    if (entry->head.empty()) continue;
    flushed.push_back(entry.get());
    SeriesPoints& points = head[entry->id];
    points.timestamps.reserve(entry->head.size());
    points.columns[0].reserve(entry->head.size());
    for (const HeadPoint& point : entry->head) {
      points.timestamps.push_back(point.ms);
      points.columns[0].push_back(point.value);
    }
    SortHead(points.timestamps, points.columns[0]);
  }
  if (head.empty() && new_series.empty()) return Status::Ok();
  const auto context = [&] {
    return "storage: flushing " + std::to_string(head_samples_) + " samples to " + options_.path;
  };

  // Check the space first: a write that runs out of it fails only at COMMIT, after the work.
  const std::int64_t need = static_cast<std::int64_t>(head_samples_) * 16 + kFlushOverheadBytes;
  auto free_bytes = FreeBytes();
  if (free_bytes.ok() && !skip_free_space_check_ && !HasRoomFor(need, *free_bytes)) {
    ReleaseBallast();
    {
      std::lock_guard lock(mu_);
      disk_full_ = true;
    }
    return Status(StatusCode::kResourceExhausted,
                  context() + ": the file system is full (" + std::to_string(*free_bytes >> 10) +
                      " KiB free); the samples stay in memory until space returns",
                  ENOSPC);
  }

  std::array<std::vector<std::int64_t>, kTierCount> dirty;
  std::array<std::int64_t, kTierCount> built_until;
  std::optional<std::int64_t> newest_t1 = tiers_[static_cast<std::size_t>(Tier::kRaw)].newest_t1;
  Transaction transaction(*writer_, Transaction::Mode::kImmediate);
  Status status = transaction.Begin();
  if (status.ok() && !new_series.empty()) {
    auto insert = writer_->GetCachedStatement(
        "INSERT INTO series(id, name, labels, unit, type) VALUES (?, ?, ?, ?, ?)");
    status = insert.status();
    for (std::size_t i = 0; status.ok() && i < new_series.size(); ++i) {
      const SeriesInfo& info = new_series[i]->info;
      insert->BindInt64(0, new_series[i]->id);
      insert->BindText(1, info.name);
      insert->BindText(2, FormatLabelText(info.labels));
      insert->BindText(3, info.unit);
      insert->BindText(4, TypeName(info.type));
      status = insert->Run();
      insert->Reset();
    }
  }
  if (status.ok()) status = WriteRaw(head, dirty, newest_t1);
  bool rollups_built = false;
  if (status.ok()) {
    status = BuildRollups(dirty, newest_t1, built_until);
    constexpr auto kMinute = static_cast<std::size_t>(Tier::kMinute);
    rollups_built = built_until[kMinute] != tiers_[kMinute].built_until || !dirty[kMinute].empty();
  }
  // Extents: for series that store data for the first time, and for everyone each time a
  // 1-minute window is written (hourly); Open() reads the blocks written since.
  std::vector<SeriesEntry*> extents;
  for (auto& [key, entry] : series_by_key_) {
    if (entry->extent_dirty && entry->info.first_ms && (!entry->extent_stored || rollups_built)) {
      extents.push_back(entry.get());
    }
  }
  if (status.ok()) status = WriteExtents(extents);
  if (status.ok()) {
    // Commit and hand the samples over from the head to the database atomically for readers.
    std::lock_guard lock(mu_);
    status = transaction.Commit();
    if (status.ok()) {
      for (SeriesEntry* entry : flushed) {
        head_samples_ -= entry->head.size();
        entry->head.clear();
        // After a long run of failed flushes, give the backlog's memory back.
        if (entry->head.capacity() > kHeadCapacityToKeep)
          std::vector<HeadPoint>().swap(entry->head);
      }
      for (SeriesEntry* entry : new_series) entry->persisted = true;
      for (SeriesEntry* entry : extents) {
        entry->extent_stored = true;
        entry->extent_dirty = false;
      }
      TierState& raw = tiers_[static_cast<std::size_t>(Tier::kRaw)];
      for (const auto& [id, points] : head) {
        raw.oldest_t0 = std::min(raw.oldest_t0.value_or(INT64_MAX), points.timestamps.front());
      }
      raw.newest_t1 = newest_t1;
      disk_full_ = false;
    }
  }
  if (!status.ok()) {
    if (status.code() == StatusCode::kResourceExhausted) {
      // SQLITE_FULL: the space ran out during the write (another program took it since the
      // check); SQLite rolled the transaction back.
      ReleaseBallast();
      {
        std::lock_guard lock(mu_);
        disk_full_ = true;
      }
      return Status(StatusCode::kResourceExhausted,
                    context() + ": the file system is full (" + std::string(status.message()) +
                        "); the samples stay in memory until space returns",
                    ENOSPC);
    }
    return status.WithContext(context());
  }
  if (rollups_built) {
    // Tier state changed in the rollup tables: read it back (cheap: two rows per tier).
    std::lock_guard lock(mu_);
    for (const TierSpec& spec : kTiers) {
      if (spec.tier == Tier::kRaw) continue;
      TierState& state = tiers_[static_cast<std::size_t>(spec.tier)];
      state.built_until = built_until[static_cast<std::size_t>(spec.tier)];
      BlockTable table(*writer_, spec);
      auto oldest = table.Oldest();
      auto newest = table.Newest();
      if (oldest.ok()) state.oldest_t0 = *oldest ? std::optional((*oldest)->t0) : std::nullopt;
      if (newest.ok()) state.newest_t1 = *newest ? std::optional((*newest)->t1) : std::nullopt;
    }
  }
  if (rollups_built) writer_->ReleaseMemory();
  if (!ballast_held_ && options_.ballast_bytes > 0) {
    if (auto now_free = FreeBytes(); now_free.ok()) ReserveBallast(*now_free);
  }
  const Status checkpoint = CheckpointIfDue();
  if (!checkpoint.ok()) {
    return checkpoint.WithContext("storage: samples flushed to " + options_.path +
                                  ", but checkpointing its write-ahead log failed");
  }
  return Status::Ok();
}

Status SqliteStore::WriteRaw(const std::map<std::int64_t, SeriesPoints>& head,
                             std::array<std::vector<std::int64_t>, kTierCount>& dirty,
                             std::optional<std::int64_t>& newest_t1) {
  if (head.empty()) return Status::Ok();
  BlockTable table(*writer_, SpecOf(Tier::kRaw));
  std::int64_t lo = INT64_MAX;
  std::int64_t hi = INT64_MIN;
  for (const auto& [id, points] : head) {
    lo = std::min(lo, points.timestamps.front());
    hi = std::max(hi, points.timestamps.back());
  }
  // 1-minute windows already written that these samples fall into must be rebuilt (their
  // 1-hour windows follow in BuildRollups), unless their raw data has expired meanwhile: a
  // rebuild would then lose what the rollup summarizes, so the late samples stay raw only.
  const TierSpec& minute = SpecOf(Tier::kMinute);
  const auto& minute_state = tiers_[static_cast<std::size_t>(Tier::kMinute)];
  const auto raw_oldest = tiers_[static_cast<std::size_t>(Tier::kRaw)].oldest_t0;
  if (lo < minute_state.built_until) {
    std::set<std::int64_t> windows;
    for (const auto& [id, points] : head) {
      for (const std::int64_t t : points.timestamps) {
        if (t < minute_state.built_until) windows.insert(AlignDown(t, minute.window_ms));
      }
    }
    for (const std::int64_t window : windows) {
      EDGEMOND_ASSIGN_OR_RETURN(const bool rebuild,
                                MayRebuild(*writer_, Tier::kMinute, window, raw_oldest));
      if (rebuild) dirty[static_cast<std::size_t>(Tier::kMinute)].push_back(window);
    }
  }
  const auto stored_newest = tiers_[static_cast<std::size_t>(Tier::kRaw)].newest_t1;
  if (!stored_newest || lo > *stored_newest) return WriteRawBlocks(table, head, newest_t1);

  // Samples at or before the newest stored one (a clock stepped back, a late Append): those
  // inside a stored block are merged into it (the head wins for one series and millisecond);
  // the others go into new blocks, one group per gap between stored blocks, so that blocks
  // never overlap.
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<BlockRow> rows, table.Overlapping(lo, hi));
  std::map<std::int64_t, std::map<std::int64_t, SeriesPoints>> into_block;  // By row t0.
  std::map<std::size_t, std::map<std::int64_t, SeriesPoints>> into_gap;     // By gap index.
  for (const auto& [id, points] : head) {
    for (std::size_t i = 0; i < points.timestamps.size(); ++i) {
      const std::int64_t t = points.timestamps[i];
      // The first block ending at or after t.
      const auto it = std::lower_bound(rows.begin(), rows.end(), t,
                                       [](const BlockRow& r, std::int64_t x) { return r.t1 < x; });
      SeriesPoints* target = nullptr;
      if (it != rows.end() && it->t0 <= t) {
        target = &into_block[it->t0][id];
      } else {
        target = &into_gap[static_cast<std::size_t>(it - rows.begin())][id];
      }
      target->timestamps.push_back(t);
      target->columns[0].push_back(points.columns[0][i]);
    }
  }
  for (auto& [t0, additions] : into_block) {
    const auto row =
        std::find_if(rows.begin(), rows.end(), [t0 = t0](const BlockRow& r) { return r.t0 == t0; });
    std::map<std::int64_t, SeriesPoints> merged;
    EDGEMOND_RETURN_IF_ERROR(table.Scan(std::span(&*row, 1), {}, kAllColumns,
                                        [&](std::int64_t id, const SeriesPoints& points) {
                                          merged[id] = points;
                                          return Status::Ok();
                                        }));
    for (auto& [id, points] : additions) MergeRaw(merged[id], points);
    BlockEncoder encoder(kRawColumns);
    for (const auto& [id, points] : merged) encoder.Add(id, points);
    const BlockRow replaced{encoder.first_ms(), encoder.last_ms(),
                            static_cast<std::int64_t>(encoder.points())};
    EDGEMOND_RETURN_IF_ERROR(table.Insert(replaced, encoder.Finish()));
  }
  for (auto& [gap, additions] : into_gap) {
    EDGEMOND_RETURN_IF_ERROR(WriteRawBlocks(table, additions, newest_t1));
  }
  return Status::Ok();
}

Status SqliteStore::BuildRollups(std::array<std::vector<std::int64_t>, kTierCount>& dirty,
                                 std::optional<std::int64_t> newest_raw_t1,
                                 std::array<std::int64_t, kTierCount>& built_until) {
  for (std::size_t t = 0; t < kTierCount; ++t) built_until[t] = tiers_[t].built_until;
  if (!newest_raw_t1) return Status::Ok();
  for (const TierSpec& spec : kTiers) {
    if (spec.tier == Tier::kRaw) continue;
    const auto index = static_cast<std::size_t>(spec.tier);
    const TierSpec& lower = kTiers[index - 1];
    std::set<std::int64_t> windows(dirty[index].begin(), dirty[index].end());
    // Windows that the data has closed: new data exists at or after their end.
    const std::int64_t closed_end = AlignDown(*newest_raw_t1, spec.window_ms);
    std::int64_t start = built_until[index];
    if (start == INT64_MIN) {
      BlockTable lower_table(*writer_, lower);
      EDGEMOND_ASSIGN_OR_RETURN(const auto oldest, lower_table.Oldest());
      start = oldest ? AlignDown(oldest->t0, spec.window_ms) : closed_end;
    }
    if (start < closed_end) {
      // Only windows with data below are built: a device that was off for a week costs nothing.
      BlockTable lower_table(*writer_, lower);
      EDGEMOND_ASSIGN_OR_RETURN(const auto rows, lower_table.Overlapping(start, closed_end - 1));
      for (const BlockRow& row : rows) {
        for (std::int64_t w = std::max(start, AlignDown(row.t0, spec.window_ms));
             w <= row.t1 && w < closed_end; w += spec.window_ms) {
          windows.insert(w);
        }
      }
      built_until[index] = closed_end;
    }
    for (const std::int64_t window : windows) {
      EDGEMOND_RETURN_IF_ERROR(BuildRollupWindow(spec.tier, window));
      // The coarser tier's window that holds this one changes too, if it is already written
      // and this tier still holds all of it.
      if (index + 1 < kTierCount) {
        const TierSpec& upper = kTiers[index + 1];
        const std::int64_t upper_window = AlignDown(window, upper.window_ms);
        if (window < tiers_[index + 1].built_until) {
          EDGEMOND_ASSIGN_OR_RETURN(
              const bool rebuild,
              MayRebuild(*writer_, upper.tier, upper_window, tiers_[index].oldest_t0));
          if (rebuild) dirty[index + 1].push_back(upper_window);
        }
      }
    }
  }
  return Status::Ok();
}

Status SqliteStore::BuildRollupWindow(Tier tier, std::int64_t window_start) {
  const TierSpec& spec = SpecOf(tier);
  const TierSpec& lower = kTiers[static_cast<std::size_t>(tier) - 1];
  const std::int64_t window_end = window_start + spec.window_ms;  // Exclusive.
  BlockTable lower_table(*writer_, lower);
  EDGEMOND_ASSIGN_OR_RETURN(const auto rows, lower_table.Overlapping(window_start, window_end - 1));
  struct Builder {
    RollupAccumulator accumulator;
    std::int64_t interval = INT64_MIN;
    SeriesPoints out;
    void Emit() {
      if (interval == INT64_MIN) return;
      const RollupPoint p = accumulator.Finish();
      out.timestamps.push_back(interval);
      out.columns[kMinColumn].push_back(p.min);
      out.columns[kMaxColumn].push_back(p.max);
      out.columns[kSumColumn].push_back(p.sum);
      out.columns[kCountColumn].push_back(static_cast<double>(p.count));
      out.columns[kLastColumn].push_back(p.last);
      accumulator.Reset();
    }
  };
  std::map<std::int64_t, Builder> builders;
  EDGEMOND_RETURN_IF_ERROR(
      lower_table.Scan(rows, {}, kAllColumns, [&](std::int64_t id, const SeriesPoints& points) {
        Builder& builder = builders[id];
        for (std::size_t i = 0; i < points.timestamps.size(); ++i) {
          const std::int64_t t = points.timestamps[i];
          if (t < window_start || t >= window_end) continue;
          const std::int64_t interval = AlignDown(t, spec.resolution_ms);
          if (interval != builder.interval) {
            builder.Emit();
            builder.interval = interval;
          }
          if (lower.tier == Tier::kRaw) {
            builder.accumulator.AddSample(points.columns[0][i]);
          } else {
            builder.accumulator.AddPoint(
                RollupPoint{points.columns[kMinColumn][i], points.columns[kMaxColumn][i],
                            points.columns[kSumColumn][i],
                            static_cast<std::int64_t>(points.columns[kCountColumn][i]),
                            points.columns[kLastColumn][i]});
          }
        }
        return Status::Ok();
      }));
  BlockTable table(*writer_, spec);
  EDGEMOND_RETURN_IF_ERROR(table.DeleteStartingIn(window_start, window_end));
  BlockEncoder encoder(kRollupColumns);
  for (auto& [id, builder] : builders) {
    builder.Emit();
    if (!builder.out.timestamps.empty()) encoder.Add(id, builder.out);
  }
  if (encoder.empty()) return Status::Ok();
  const BlockRow row{encoder.first_ms(), encoder.last_ms(),
                     static_cast<std::int64_t>(encoder.points())};
  return table.Insert(row, encoder.Finish());
}

Status SqliteStore::WriteExtents(const std::vector<SeriesEntry*>& entries) {
  if (entries.empty()) return Status::Ok();
  EDGEMOND_ASSIGN_OR_RETURN(
      Statement upsert,
      writer_->GetCachedStatement(
          "INSERT INTO series_extent(series_id, first_ms, last_ms) VALUES (?, ?, ?) "
          "ON CONFLICT(series_id) DO UPDATE SET first_ms = excluded.first_ms, "
          "last_ms = excluded.last_ms"));
  for (const SeriesEntry* entry : entries) {
    upsert.BindInt64(0, entry->id);
    upsert.BindInt64(1, *entry->info.first_ms);
    upsert.BindInt64(2, *entry->info.last_ms);
    EDGEMOND_RETURN_IF_ERROR(upsert.Run());
    upsert.Reset();
  }
  return Status::Ok();
}

Status SqliteStore::CheckpointIfDue() {
  // Within the size cap's WAL budget (less room for the next flush), whatever the option says.
  const std::int64_t frames =
      std::min<std::int64_t>(options_.checkpoint_wal_frames,
                             std::max<std::int64_t>(16, WalBudget(options_) / kWalFrameBytes - 64));
  if (writer_->wal_frames() < frames) return Status::Ok();
  return writer_->Checkpoint(Database::CheckpointMode::kPassive).status();
}

// --- Disk space --------------------------------------------------------------------------------

Result<std::int64_t> SqliteStore::FreeBytes() const {
  struct statvfs fs {};
  const std::string dir = DirectoryOf(options_.path);
  if (::statvfs(dir.c_str(), &fs) != 0) {
    return Status::FromErrno(errno, "storage: cannot read the free space of " + dir);
  }
  return static_cast<std::int64_t>(fs.f_bavail) * static_cast<std::int64_t>(fs.f_frsize);
}

bool SqliteStore::HasRoomFor(std::int64_t bytes, std::int64_t free_bytes) const {
  // Without its ballast the store also waits for room to take the ballast back.
  const std::int64_t ballast = ballast_held_ ? 0 : options_.ballast_bytes;
  return free_bytes >= bytes + ballast + kReserveBytes;
}

void SqliteStore::ReleaseBallast() {
  if (!ballast_held_) return;
  ::unlink(ballast_path_.c_str());
  ballast_held_ = false;
}

void SqliteStore::ReserveBallast(std::int64_t free_bytes) {
  if (ballast_held_ || options_.ballast_bytes <= 0) return;
  if (free_bytes < options_.ballast_bytes + kFlushOverheadBytes + kReserveBytes) return;
  UniqueFd fd(::open(ballast_path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  if (!fd) return;
  // posix_fallocate allocates the blocks (a sparse file would free nothing when deleted).
  if (::posix_fallocate(fd.get(), 0, static_cast<off_t>(options_.ballast_bytes)) != 0) {
    ::unlink(ballast_path_.c_str());
    return;
  }
  ballast_held_ = true;
}

// --- Retention ---------------------------------------------------------------------------------

Result<RetentionResult> SqliteStore::EnforceRetention(WallTime now) {
  std::lock_guard write_lock(write_mu_);
  RetentionResult result;
  const std::int64_t now_ms = ToUnixMillis(now);
  // Blocks whose window a coarser tier has not summarized yet are kept whatever their age.
  const std::array<std::int64_t, kTierCount> protected_from = {
      tiers_[static_cast<std::size_t>(Tier::kMinute)].built_until,
      tiers_[static_cast<std::size_t>(Tier::kHour)].built_until, INT64_MAX};

  // Deleting needs room in the WAL too: on a full file system, give the ballast up first.
  if (auto free_bytes = FreeBytes(); free_bytes.ok() && *free_bytes < kFlushOverheadBytes) {
    ReleaseBallast();
  }

  std::array<std::vector<BlockRow>, kTierCount> expired;
  bool any = false;
  for (const TierSpec& spec : kTiers) {
    const auto index = static_cast<std::size_t>(spec.tier);
    const std::int64_t cutoff =
        std::min(now_ms - RetentionOf(spec.tier).count(), protected_from[index]);
    // Nothing of a tier may go while the next tier has summarized none of it (protected_from
    // is INT64_MIN then, and subtracting the batch from it would overflow).
    if (cutoff < INT64_MIN + kRetentionBatchMs[index]) continue;
    const std::int64_t batch_end = cutoff - kRetentionBatchMs[index];
    const auto oldest = tiers_[index].oldest_t0;
    // A whole batch must have expired; most calls stop here without touching the database.
    if (!oldest || *oldest >= batch_end) continue;
    BlockTable table(*writer_, spec);
    EDGEMOND_ASSIGN_OR_RETURN(auto rows, table.EndingBefore(cutoff, kMaxBlocksPerCall + 1));
    if (rows.empty() || rows.front().t1 >= batch_end) continue;
    if (rows.size() > kMaxBlocksPerCall) {
      rows.resize(kMaxBlocksPerCall);
      result.complete = false;
    }
    expired[index] = std::move(rows);
    any = true;
  }
  std::int64_t page_count = 0;
  std::int64_t free_pages = 0;
  // The cap covers the database and its WAL: the database gets what the WAL's budget leaves.
  const std::int64_t database_cap = options_.max_bytes - WalBudget(options_);
  const std::int64_t headroom = std::max<std::int64_t>(1 << 20, database_cap / 64);
  if (options_.max_bytes > 0) {
    EDGEMOND_ASSIGN_OR_RETURN(page_count, writer_->QueryInt64("PRAGMA page_count"));
    EDGEMOND_ASSIGN_OR_RETURN(free_pages, writer_->QueryInt64("PRAGMA freelist_count"));
    if ((page_count - free_pages) * kPageBytes > database_cap - headroom) any = true;
  }

  // Catalog entries that may have lost their last data, and extents that move.
  std::vector<std::int64_t> dead_series;
  std::int64_t floor_ms = INT64_MIN;
  if (any) {
    Transaction transaction(*writer_, Transaction::Mode::kImmediate);
    EDGEMOND_RETURN_IF_ERROR(transaction.Begin());
    for (const TierSpec& spec : kTiers) {
      const auto& rows = expired[static_cast<std::size_t>(spec.tier)];
      if (rows.empty()) continue;
      BlockTable table(*writer_, spec);
      EDGEMOND_RETURN_IF_ERROR(table.DeleteStartingIn(rows.front().t0, rows.back().t0 + 1));
      for (const BlockRow& row : rows) result.deleted_points += row.points;
      result.deleted_blocks += static_cast<std::int64_t>(rows.size());
    }
    // The size cap, within the same transaction.
    if (options_.max_bytes > 0) {
      EDGEMOND_ASSIGN_OR_RETURN(free_pages, writer_->QueryInt64("PRAGMA freelist_count"));
      std::int64_t used = (page_count - free_pages) * kPageBytes;
      if (used > database_cap - headroom) {
        const std::int64_t target = database_cap - 2 * headroom;
        while (used > target) {
          // The oldest block relative to its tier's retention goes first, so that under the cap
          // every tier keeps the same fraction of its retention.
          std::optional<BlockRow> victim;
          const TierSpec* victim_spec = nullptr;
          double victim_age = -1;
          for (const TierSpec& spec : kTiers) {
            BlockTable table(*writer_, spec);
            EDGEMOND_ASSIGN_OR_RETURN(const auto oldest, table.Oldest());
            if (!oldest || oldest->t1 >= protected_from[static_cast<std::size_t>(spec.tier)]) {
              continue;
            }
            const double age = static_cast<double>(now_ms - oldest->t1) /
                               static_cast<double>(RetentionOf(spec.tier).count());
            if (age > victim_age) {
              victim = oldest;
              victim_spec = &spec;
              victim_age = age;
            }
          }
          if (!victim) break;  // Nothing left that may go.
          BlockTable table(*writer_, *victim_spec);
          EDGEMOND_RETURN_IF_ERROR(table.DeleteStartingIn(victim->t0, victim->t0 + 1));
          result.deleted_points += victim->points;
          ++result.deleted_blocks;
          ++result.dropped_for_size;
          EDGEMOND_ASSIGN_OR_RETURN(free_pages, writer_->QueryInt64("PRAGMA freelist_count"));
          used = (page_count - free_pages) * kPageBytes;
        }
      }
    }
    // No stored point is older than floor_ms (once this commits).
    std::array<TierState, kTierCount> states = tiers_;
    floor_ms = INT64_MAX;
    for (const TierSpec& spec : kTiers) {
      BlockTable table(*writer_, spec);
      EDGEMOND_ASSIGN_OR_RETURN(const auto oldest, table.Oldest());
      auto& state = states[static_cast<std::size_t>(spec.tier)];
      state.oldest_t0 = oldest ? std::optional(oldest->t0) : std::nullopt;
      if (!oldest) state.newest_t1.reset();
      if (oldest) floor_ms = std::min(floor_ms, oldest->t0);
    }
    // A series left without data loses its extent, and its catalog entry too unless it was
    // appended to since this store opened (a sensor that is still there but failing).
    bool extents_change = false;
    for (const auto& [key, entry] : series_by_key_) {
      const SeriesInfo& info = entry->info;
      if (info.first_ms && *info.first_ms < floor_ms) extents_change = true;
      if (!entry->persisted || entry->live) continue;
      if (!info.last_ms || *info.last_ms < floor_ms) dead_series.push_back(entry->id);
    }
    if (extents_change) {
      for (const char* sql : {"DELETE FROM series_extent WHERE last_ms < ?",
                              "UPDATE series_extent SET first_ms = ?1 WHERE first_ms < ?1"}) {
        EDGEMOND_ASSIGN_OR_RETURN(Statement update, writer_->GetCachedStatement(sql));
        update.BindInt64(0, floor_ms);
        EDGEMOND_RETURN_IF_ERROR(update.Run());
      }
    }
    for (const std::int64_t id : dead_series) {
      EDGEMOND_ASSIGN_OR_RETURN(Statement erase,
                                writer_->GetCachedStatement("DELETE FROM series WHERE id = ?"));
      erase.BindInt64(0, id);
      EDGEMOND_RETURN_IF_ERROR(erase.Run());
    }
    std::lock_guard lock(mu_);
    const Status status = transaction.Commit();
    if (!status.ok()) {
      return status.WithContext("storage: enforcing retention on " + options_.path);
    }
    tiers_ = states;
    for (auto& [key, entry] : series_by_key_) {
      SeriesInfo& info = entry->info;
      if (info.last_ms && *info.last_ms < floor_ms && entry->head.empty()) {
        // Nothing left; an extent row still to be written would be wrong too.
        info.first_ms.reset();
        info.last_ms.reset();
        entry->extent_dirty = false;
        entry->extent_stored = false;
      } else if (info.first_ms && *info.first_ms < floor_ms) {
        info.first_ms = floor_ms;
      }
    }
    for (const std::int64_t id : dead_series) {
      auto it = series_by_id_.find(id);
      const std::string key = it->second->key;
      series_by_id_.erase(it);
      series_by_key_.erase(key);
    }
  }
  result.deleted_series = static_cast<std::int64_t>(dead_series.size());
  EDGEMOND_RETURN_IF_ERROR(VacuumIfWorthIt());
  EDGEMOND_RETURN_IF_ERROR(CheckpointIfDue());
  return result;
}

Status SqliteStore::VacuumIfWorthIt() {
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t free_pages,
                            writer_->QueryInt64("PRAGMA freelist_count"));
  if (free_pages == 0) return Status::Ok();
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t page_count,
                            writer_->QueryInt64("PRAGMA page_count"));
  // Freed pages are reused by the next flushes, so a little free space is kept; beyond that,
  // or when the file is over its size limit, it goes back to the file system (after the next
  // checkpoint).
  const std::int64_t database_cap = options_.max_bytes - WalBudget(options_);
  const std::int64_t headroom = std::max<std::int64_t>(1 << 20, database_cap / 64);
  const std::int64_t keep = std::max(kKeepFreePages, 2 * headroom / kPageBytes);
  std::int64_t pages = 0;
  if (options_.max_bytes > 0 && page_count * kPageBytes > database_cap) {
    pages = free_pages;
  } else if (free_pages > keep) {
    pages = free_pages - keep / 2;
  }
  if (pages == 0) return Status::Ok();
  return writer_->Execute("PRAGMA incremental_vacuum(" + std::to_string(pages) + ")");
}

// --- Queries -----------------------------------------------------------------------------------

Result<std::vector<SeriesInfo>> SqliteStore::ListSeries(
    const std::optional<SeriesSelector>& selector) {
  std::lock_guard lock(mu_);
  std::vector<SeriesInfo> series;
  for (const auto& [key, entry] : series_by_key_) {
    if (!selector || selector->Matches(entry->info.name, entry->info.labels)) {
      series.push_back(entry->info);
    }
  }
  return series;
}

Result<std::vector<const SqliteStore::SeriesEntry*>> SqliteStore::SelectSeries(
    const RangeQuery& query) const {
  std::vector<const SeriesEntry*> selected;
  for (const auto& [key, entry] : series_by_key_) {
    if (!query.selector.Matches(entry->info.name, entry->info.labels)) continue;
    if (selected.size() == query.max_series) {
      return Status::ResourceExhausted("the selector matches more than " +
                                       std::to_string(query.max_series) +
                                       " series; narrow it with label matchers");
    }
    selected.push_back(entry.get());
  }
  return selected;
}

namespace {

// One scan of a tier's blocks feeding every selected series: the points of `source` with
// timestamps in [from, to], lifted through the rollup stages up to `target`.
struct Job {
  Tier source;
  Tier target;
  std::int64_t from;
  std::int64_t to;
};

// Where a tier's view of the data begins: its oldest stored block, or, for a rollup tier with
// none, what the tier below can derive.
std::int64_t Coverage(const std::array<std::int64_t, kTierCount>& oldest, Tier tier) {
  for (int t = static_cast<int>(tier); t >= 0; --t) {
    if (oldest[static_cast<std::size_t>(t)] != INT64_MAX) {
      return oldest[static_cast<std::size_t>(t)];
    }
  }
  return INT64_MAX;
}

// The scans answering points of `target` stamped in [from, to] from tier `source`: the
// windows `source` has stored, then what the tiers below hold for the rest.
void AddJobs(const std::array<std::int64_t, kTierCount>& built_until, Tier target, Tier source,
             std::int64_t from, std::int64_t to, std::vector<Job>& jobs) {
  if (from > to) return;
  if (source == Tier::kRaw) {
    jobs.push_back({source, target, from, to});
    return;
  }
  const std::int64_t until = built_until[static_cast<std::size_t>(source)];
  if (from < until) jobs.push_back({source, target, from, std::min(to, until - 1)});
  if (to >= until) {
    AddJobs(built_until, target, static_cast<Tier>(static_cast<int>(source) - 1),
            std::max(from, until), to, jobs);
  }
}

// The query plan: which tier answers which part of [from, to], as scans in time order.
std::vector<Job> PlanQuery(const RangeQuery& query,
                           const std::array<std::int64_t, kTierCount>& built_until,
                           const std::array<std::int64_t, kTierCount>& oldest) {
  std::vector<Job> jobs;
  if (query.step_ms == 0) {
    jobs.push_back({Tier::kRaw, Tier::kRaw, query.from_ms, query.to_ms});
    return jobs;
  }
  // The coarsest tier whose interval divides the step answers exactly; raw when none does.
  Tier preferred = Tier::kRaw;
  for (const TierSpec& spec : kTiers) {
    if (spec.resolution_ms > 0 && query.step_ms % spec.resolution_ms == 0) preferred = spec.tier;
  }
  // Older parts of the range that the preferred tier no longer holds come from a coarser tier
  // whose interval still fits in the step, newest part first.
  struct Segment {
    Tier tier;
    std::int64_t from;
    std::int64_t to;
  };
  std::vector<Segment> segments;
  Tier tier = preferred;
  std::int64_t to = query.to_ms;
  while (true) {
    const std::int64_t begins = Coverage(oldest, tier);
    std::optional<Tier> coarser;
    for (int t = static_cast<int>(tier) + 1; t < kTierCount; ++t) {
      const TierSpec& spec = kTiers[static_cast<std::size_t>(t)];
      if (spec.resolution_ms <= query.step_ms && Coverage(oldest, spec.tier) < begins) {
        coarser = spec.tier;
        break;
      }
    }
    if (coarser && begins > query.from_ms && begins != INT64_MAX) {
      const std::int64_t r = SpecOf(*coarser).resolution_ms;
      const std::int64_t seam = AlignDown(begins + r - 1, r);  // Up to the coarser grid.
      if (seam <= to) {
        segments.push_back({tier, seam, to});
        to = seam - 1;
      }
      tier = *coarser;
      continue;
    }
    segments.push_back({tier, query.from_ms, to});
    break;
  }
  for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
    if (it->from > it->to) continue;
    if (it->tier == Tier::kRaw) {
      jobs.push_back({Tier::kRaw, Tier::kRaw, it->from, it->to});
      continue;
    }
    // Whole intervals: those stamped in [from, to], each up to its end.
    const std::int64_t r = SpecOf(it->tier).resolution_ms;
    const std::int64_t first = AlignDown(it->from + r - 1, r);
    const std::int64_t last_end = AlignDown(it->to, r) + r - 1;
    if (first > it->to) continue;
    AddJobs(built_until, it->tier, it->tier, first, last_end, jobs);
  }
  return jobs;
}

// One series' way from stored points to its query answer: rollup stages (1-minute, 1-hour)
// that summarize finer points on the way to the target tier, then the step aggregator.
class SeriesPipeline {
 public:
  SeriesPipeline(const RangeQuery& query)
      : from_(query.from_ms),
        to_(query.to_ms),
        aggregator_(query.from_ms, query.to_ms, query.step_ms, query.aggregation,
                    query.max_points_per_series) {
    stage_t_.fill(INT64_MIN);
  }

  Status PushRaw(Tier target, std::int64_t t, double value) {
    if (target == Tier::kRaw) {
      if (t < from_ || t > to_ || !status_.ok()) return status_;
      status_ = aggregator_.Add(t, value);
      return status_;
    }
    Stage(Tier::kMinute, target, t).AddSample(value);
    return Status::Ok();
  }

  void PushRollup(Tier level, Tier target, std::int64_t t, const RollupPoint& point) {
    if (level == target) {
      if (t >= from_ && t <= to_) aggregator_.AddRollup(t, point);
      return;
    }
    Stage(static_cast<Tier>(static_cast<int>(level) + 1), target, t).AddPoint(point);
  }

  // Emits what the stages hold (at the end of a segment of the plan).
  void Drain(Tier target) {
    for (int level = 1; level <= static_cast<int>(target); ++level) {
      const auto i = static_cast<std::size_t>(level);
      if (stage_t_[i] == INT64_MIN) continue;
      const std::int64_t t = stage_t_[i];
      const RollupPoint point = stages_[i].Finish();
      stages_[i].Reset();
      stage_t_[i] = INT64_MIN;
      PushRollup(static_cast<Tier>(level), target, t, point);
    }
  }

  std::vector<Point> Finish() { return aggregator_.Finish(); }

  // Raw points kept aside to be merged with the head (which has samples older than the stored
  // ones: a clock stepped back).
  SeriesPoints pending;

 private:
  // The accumulator of `level` for the interval holding t; emits the previous interval first.
  RollupAccumulator& Stage(Tier level, Tier target, std::int64_t t) {
    const auto i = static_cast<std::size_t>(level);
    const std::int64_t interval = AlignDown(t, SpecOf(level).resolution_ms);
    if (stage_t_[i] != interval) {
      if (stage_t_[i] != INT64_MIN) {
        const RollupPoint point = stages_[i].Finish();
        stages_[i].Reset();
        PushRollup(level, target, stage_t_[i], point);
      }
      stage_t_[i] = interval;
    }
    return stages_[i];
  }

  const std::int64_t from_;
  const std::int64_t to_;
  StepAggregator aggregator_;
  std::array<RollupAccumulator, kTierCount> stages_;
  std::array<std::int64_t, kTierCount> stage_t_;
  Status status_;
};

// Rollup point i of decoded columns; the columns not decoded read as 0.
RollupPoint PointAt(const SeriesPoints& points, std::size_t i) {
  const auto at = [&](int c) {
    const auto& values = points.columns[static_cast<std::size_t>(c)];
    return values.empty() ? 0.0 : values[i];
  };
  return RollupPoint{at(kMinColumn), at(kMaxColumn), at(kSumColumn),
                     static_cast<std::int64_t>(at(kCountColumn)), at(kLastColumn)};
}

std::uint32_t ColumnsFor(Aggregation aggregation) {
  // The count is always read: it tells empty intervals apart.
  std::uint32_t mask = 1u << kCountColumn;
  switch (aggregation) {
    case Aggregation::kAvg:
    case Aggregation::kSum:
      mask |= 1u << kSumColumn;
      break;
    case Aggregation::kMin:
      mask |= 1u << kMinColumn;
      break;
    case Aggregation::kMax:
      mask |= 1u << kMaxColumn;
      break;
    case Aggregation::kLast:
      mask |= 1u << kLastColumn;
      break;
    case Aggregation::kCount:
      break;
  }
  return mask;
}

}  // namespace

Result<QueryResult> SqliteStore::Query(const RangeQuery& query) {
  const std::int64_t from_ms = query.from_ms;
  const std::int64_t to_ms = query.to_ms;
  const std::int64_t step_ms = query.step_ms;
  if (from_ms > to_ms) return Status::InvalidArgument("the query range ends before it starts");
  if (step_ms < 0) return Status::InvalidArgument("the query step is negative");
  if (query.max_points_per_series == 0) {
    return Status::InvalidArgument("max_points_per_series must be positive");
  }
  if (step_ms > 0) {
    const std::int64_t buckets = StepAggregator::BucketCount(from_ms, to_ms, step_ms);
    if (buckets > static_cast<std::int64_t>(query.max_points_per_series)) {
      return Status::InvalidArgument("the range and step give " + std::to_string(buckets) +
                                     " points per series; the limit is " +
                                     std::to_string(query.max_points_per_series) +
                                     " (use a larger step or a shorter range)");
    }
  }

  struct Selected {
    std::int64_t id;
    SeriesInfo info;
    SeriesPoints head;  // Sorted, one point per ms, within the raw jobs' range.
    bool late = false;  // The head has points at or before the newest stored one.
  };
  std::vector<Selected> selected;
  std::vector<Job> jobs;

  std::lock_guard read_lock(read_mu_);
  Transaction snapshot(*reader_, Transaction::Mode::kDeferred);
  {
    std::lock_guard lock(mu_);
    std::array<std::int64_t, kTierCount> built_until;
    std::array<std::int64_t, kTierCount> oldest;
    for (std::size_t t = 0; t < kTierCount; ++t) {
      built_until[t] = tiers_[t].built_until;
      oldest[t] = tiers_[t].oldest_t0.value_or(INT64_MAX);
    }
    EDGEMOND_ASSIGN_OR_RETURN(const auto entries, SelectSeries(query));
    // Head samples older than what a rollup tier has written (a clock stepped back) rebuild
    // those windows at the next flush, where the tier below still holds the whole window; until
    // then the query derives them from that tier, so that it answers the same before and after
    // the flush.
    std::array<std::set<std::int64_t>, kTierCount> late_windows;
    for (const SeriesEntry* entry : entries) {
      for (const HeadPoint& point : entry->head) {
        const std::int64_t ts = point.ms;
        for (std::size_t t = 1; t < kTierCount; ++t) {
          if (ts < built_until[t]) late_windows[t].insert(AlignDown(ts, kTiers[t].window_ms));
        }
      }
    }
    for (std::size_t t = 1; t < kTierCount; ++t) {
      for (const std::int64_t window : late_windows[t]) {
        EDGEMOND_ASSIGN_OR_RETURN(const bool rebuilt, MayRebuild(*reader_, kTiers[t].tier, window,
                                                                 tiers_[t - 1].oldest_t0));
        if (rebuilt) {
          built_until[t] = window;  // The earliest: the set is ordered.
          break;
        }
      }
    }
    jobs = PlanQuery(query, built_until, oldest);
    std::int64_t head_from = INT64_MAX;
    std::int64_t head_to = INT64_MIN;
    for (const Job& job : jobs) {
      if (job.source != Tier::kRaw) continue;
      head_from = std::min(head_from, job.from);
      head_to = std::max(head_to, job.to);
    }
    const std::int64_t newest_stored =
        tiers_[static_cast<std::size_t>(Tier::kRaw)].newest_t1.value_or(INT64_MIN);
    selected.reserve(entries.size());
    for (const SeriesEntry* entry : entries) {
      Selected& s = selected.emplace_back();
      s.id = entry->id;
      s.info = entry->info;
      for (const HeadPoint& point : entry->head) {
        const std::int64_t t = point.ms;
        if (t < head_from || t > head_to) continue;
        s.head.timestamps.push_back(t);
        s.head.columns[0].push_back(point.value);
        if (t <= newest_stored) s.late = true;
      }
    }
    // The read transaction takes its WAL snapshot at its first read: do that while no flush can
    // commit, so the snapshot and the head copy agree (see the header).
    EDGEMOND_RETURN_IF_ERROR(snapshot.Begin());
    EDGEMOND_RETURN_IF_ERROR(reader_->QueryInt64("SELECT count(*) FROM series_extent").status());
  }
  for (Selected& s : selected) SortHead(s.head.timestamps, s.head.columns[0]);

  std::vector<SeriesPipeline> pipelines;
  pipelines.reserve(selected.size());
  for (std::size_t i = 0; i < selected.size(); ++i) pipelines.emplace_back(query);
  // Series ids ascending, for block scans, with their place in `selected`.
  std::vector<std::pair<std::int64_t, std::size_t>> by_id;
  for (std::size_t i = 0; i < selected.size(); ++i) by_id.emplace_back(selected[i].id, i);
  std::sort(by_id.begin(), by_id.end());
  std::vector<std::int64_t> ids;
  for (const auto& [id, i] : by_id) ids.push_back(id);
  const auto index_of = [&](std::int64_t id) {
    return std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(id, std::size_t{0}))->second;
  };
  const std::uint32_t mask = ColumnsFor(query.aggregation) | 1u;  // Raw blocks: column 0.
  std::size_t blocks_read = 0;

  for (std::size_t j = 0; j < jobs.size() && !selected.empty(); ++j) {
    const Job& job = jobs[j];
    BlockTable table(*reader_, SpecOf(job.source));
    EDGEMOND_ASSIGN_OR_RETURN(const auto rows, table.Overlapping(job.from, job.to));
    blocks_read += rows.size();
    const Status scanned =
        table.Scan(rows, ids, mask, [&](std::int64_t id, const SeriesPoints& points) -> Status {
          const std::size_t i = index_of(id);
          SeriesPipeline& pipeline = pipelines[i];
          const auto& ts = points.timestamps;
          const auto begin = std::lower_bound(ts.begin(), ts.end(), job.from) - ts.begin();
          const auto end = std::upper_bound(ts.begin(), ts.end(), job.to) - ts.begin();
          for (auto k = begin; k < end; ++k) {
            const auto u = static_cast<std::size_t>(k);
            if (job.source == Tier::kRaw) {
              if (selected[i].late) {
                pipeline.pending.timestamps.push_back(ts[u]);
                pipeline.pending.columns[0].push_back(points.columns[0][u]);
                continue;
              }
              EDGEMOND_RETURN_IF_ERROR(pipeline.PushRaw(job.target, ts[u], points.columns[0][u]));
            } else {
              pipeline.PushRollup(job.source, job.target, ts[u], PointAt(points, u));
            }
          }
          return Status::Ok();
        });
    if (!scanned.ok()) {
      reader_->ReleaseMemory();
      return scanned;
    }
    if (job.source == Tier::kRaw) {
      // The head follows the stored samples (or, when it reaches back among them, is merged
      // with them, the head winning for one millisecond).
      for (std::size_t i = 0; i < selected.size(); ++i) {
        SeriesPipeline& pipeline = pipelines[i];
        const SeriesPoints& head = selected[i].head;
        const SeriesPoints* feed = &head;
        if (selected[i].late) {
          MergeRaw(pipeline.pending, head);
          feed = &pipeline.pending;
        }
        for (std::size_t k = 0; k < feed->timestamps.size(); ++k) {
          const std::int64_t t = feed->timestamps[k];
          if (t < job.from || t > job.to) continue;
          EDGEMOND_RETURN_IF_ERROR(pipeline.PushRaw(job.target, t, feed->columns[0][k]));
        }
        pipeline.pending.Clear();
      }
    }
    if (j + 1 == jobs.size() || jobs[j + 1].target != job.target) {
      for (SeriesPipeline& pipeline : pipelines) pipeline.Drain(job.target);
    }
  }
  // The read transaction only pinned a snapshot; ending it early lets checkpoints proceed.
  EDGEMOND_RETURN_IF_ERROR(snapshot.Rollback());
  if (blocks_read > 16) reader_->ReleaseMemory();

  QueryResult result;
  result.step_ms = step_ms;
  result.series.reserve(selected.size());
  for (std::size_t i = 0; i < selected.size(); ++i) {
    result.series.push_back({std::move(selected[i].info), pipelines[i].Finish()});
  }
  return result;
}

StoreStats SqliteStore::Stats() const {
  StoreStats stats;
  {
    std::lock_guard lock(mu_);
    stats.series = series_by_key_.size();
    stats.head_samples = head_samples_;
    stats.disk_full = disk_full_;
  }
  stats.database_bytes = FileSize(options_.path);
  stats.wal_bytes = FileSize(options_.path + "-wal");
  return stats;
}

}  // namespace edgemond::storage
