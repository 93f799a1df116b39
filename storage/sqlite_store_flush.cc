// SqliteStore's writes: Flush() turns the head into raw blocks and builds the rollup windows it
// completes, in one transaction; the WAL is checkpointed when it has grown (sqlite_store.h).

#include <algorithm>
#include <set>
#include <utility>

#include "storage/block_table.h"
#include "storage/label_text.h"
#include "storage/rollup.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "storage/sqlite_store.h"
#include "storage/sqlite_store_internal.h"

namespace edgemond::storage {

namespace {

using internal::kAllColumns;
using internal::kFlushOverheadBytes;
using internal::kWalFrameBytes;
using internal::MayRebuild;
using internal::MergeRaw;
using internal::SortHead;
using internal::WalBudget;
using sqlite::Database;
using sqlite::Statement;
using sqlite::Transaction;

// Head capacity kept per series after a flush; a backlog's memory is given back.
constexpr std::size_t kHeadCapacityToKeep = 4096;

// A summary's quantiles are each a gauge (as Prometheus stores them).
std::string_view TypeName(MetricType type) {
  return MetricTypeName(type == MetricType::kSummary ? MetricType::kGauge : type);
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

}  // namespace edgemond::storage
