// SqliteStore and the file system's space: the free-space check before a write, the ballast file
// given up when the disk is full, retention by age and by size cap, and incremental vacuum.

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <utility>

#include "storage/block_table.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "storage/sqlite_store.h"
#include "storage/sqlite_store_internal.h"

namespace edgemond::storage {

namespace {

using internal::kFlushOverheadBytes;
using internal::kPageBytes;
using internal::kReserveBytes;
using internal::WalBudget;
using sqlite::Statement;
using sqlite::Transaction;

// Free pages kept for reuse by the next flushes rather than given back to the file system.
constexpr std::int64_t kKeepFreePages = 2048;
// Age retention deletes a tier's expired blocks once this much of it has expired (a few large
// deletes write less than many small ones), at most kMaxBlocksPerCall per call.
constexpr std::array<std::int64_t, kTierCount> kRetentionBatchMs = {3'600'000, 86'400'000,
                                                                    7 * 86'400'000LL};
constexpr std::size_t kMaxBlocksPerCall = 512;

std::string DirectoryOf(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

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

}  // namespace edgemond::storage
