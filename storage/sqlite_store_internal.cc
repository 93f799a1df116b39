#include "storage/sqlite_store_internal.h"

#include <sys/stat.h>

#include <algorithm>
#include <utility>

#include "storage/block_table.h"

namespace edgemond::storage::internal {

std::int64_t WalBudget(const StorageOptions& options) {
  return options.max_bytes > 0 ? std::min(kJournalSizeLimitBytes, options.max_bytes / 16)
                               : kJournalSizeLimitBytes;
}

std::int64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : 0;
}

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

Result<bool> MayRebuild(sqlite::Database& db, Tier tier, std::int64_t window,
                        std::optional<std::int64_t> lower_oldest) {
  if (lower_oldest && *lower_oldest <= window) return true;
  BlockTable table(db, SpecOf(tier));
  EDGEMOND_ASSIGN_OR_RETURN(const auto rows,
                            table.Overlapping(window, window + SpecOf(tier).window_ms - 1));
  return rows.empty();
}

}  // namespace edgemond::storage::internal
