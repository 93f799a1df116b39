// SqliteStore's reads: series selection and range queries planned over the tiers, stored blocks
// merged with the head (sqlite_store.h has the planner's rules).

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "storage/block_table.h"
#include "storage/rollup.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "storage/sqlite_store.h"
#include "storage/sqlite_store_internal.h"
#include "storage/step_aggregator.h"

namespace edgemond::storage {

namespace {

using internal::MayRebuild;
using internal::MergeRaw;
using internal::SortHead;
using sqlite::Transaction;

}  // namespace

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

}  // namespace edgemond::storage
