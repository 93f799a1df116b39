// The store's three tiers: raw samples, and 1-minute and 1-hour rollups of them. Each tier is one
// table of blocks (storage/block.h), one row per block, keyed by its first timestamp:
//
//   CREATE TABLE blocks_raw (t0 INTEGER PRIMARY KEY, t1 INTEGER NOT NULL,
//                            points INTEGER NOT NULL, data BLOB NOT NULL);
//
// t0 and t1 are the first and last timestamps in the block (ms since the epoch; for rollups the
// start of the first and last interval), points the number of points it holds. Blocks of one
// tier never overlap in time. A raw block holds what one flush wrote (a flush interval of every
// series) and spans at most an hour; a rollup block holds one window: an hour of 1-minute points
// or a day of 1-hour points, every series.

#ifndef EDGEMOND_STORAGE_TIER_H_
#define EDGEMOND_STORAGE_TIER_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "storage/block.h"

namespace edgemond::storage {

enum class Tier : int { kRaw = 0, kMinute = 1, kHour = 2 };
inline constexpr int kTierCount = 3;

struct TierSpec {
  Tier tier;
  std::string_view name;       // "raw", "1m", "1h": for messages and docs.
  std::string_view table;      // "blocks_raw", ...
  std::int64_t resolution_ms;  // Interval of one point; 0 for raw samples.
  // Rollups: the window one block covers (aligned to the epoch). Raw: the most one block spans.
  std::int64_t window_ms;
  int columns;  // kRawColumns or kRollupColumns.
};

inline constexpr std::array<TierSpec, kTierCount> kTiers = {{
    {Tier::kRaw, "raw", "blocks_raw", 0, 3'600'000, kRawColumns},
    {Tier::kMinute, "1m", "blocks_1m", 60'000, 3'600'000, kRollupColumns},
    {Tier::kHour, "1h", "blocks_1h", 3'600'000, 86'400'000, kRollupColumns},
}};

inline const TierSpec& SpecOf(Tier tier) { return kTiers[static_cast<std::size_t>(tier)]; }

// floor(t / step) * step, for negative t too.
inline std::int64_t AlignDown(std::int64_t t, std::int64_t step) {
  const std::int64_t r = t % step;
  return r < 0 ? t - r - step : t - r;
}

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_TIER_H_
