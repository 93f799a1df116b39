// StepAggregator: turns the time-ordered samples of one series into the points of a RangeQuery
// (core/query.h, semantics in storage/store.h): every sample when the step is zero, else one
// point per bucket [from + i*step, from + (i+1)*step), stamped with the bucket's start and
// without a value when no sample fell into it. Pure logic, no I/O.
//
// Memory is bounded by the number of points produced, never by the samples consumed: a query
// over a week of 1 Hz data holds one accumulator and one point per bucket.
//
// Thread safety: none; one aggregator per series per query.

#ifndef EDGEMOND_STORAGE_STEP_AGGREGATOR_H_
#define EDGEMOND_STORAGE_STEP_AGGREGATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/query.h"
#include "core/status.h"
#include "storage/rollup.h"

namespace edgemond::storage {

class StepAggregator {
 public:
  // The number of buckets [from, to] (both inclusive) falls into at `step_ms` > 0.
  static std::int64_t BucketCount(std::int64_t from_ms, std::int64_t to_ms, std::int64_t step_ms) {
    return (to_ms - from_ms) / step_ms + 1;
  }

  // REQUIRES: from_ms <= to_ms; step_ms >= 0; with step_ms > 0 the bucket count is within what
  // the caller is willing to allocate (it is allocated here). With step_ms == 0 at most
  // `max_raw_points` samples are accepted.
  StepAggregator(std::int64_t from_ms, std::int64_t to_ms, std::int64_t step_ms,
                 Aggregation aggregation, std::size_t max_raw_points);

  // REQUIRES: from_ms <= ts_ms <= to_ms, and ts_ms not smaller than in the previous call.
  // kResourceExhausted once a raw query would exceed max_raw_points.
  Status Add(std::int64_t ts_ms, double value);

  // Adds a rollup point (the summary of the samples of an interval starting at ts_ms) to the
  // bucket holding ts_ms: its count counts as that many samples, its sum as their sum.
  // REQUIRES: step mode, and the same ordering as Add().
  // (Inline: a long query adds a point per minute of every series.)
  void AddRollup(std::int64_t ts_ms, const RollupPoint& point) {
    // Most points fall into the open bucket: no division for them.
    if (ts_ms < bucket_start_ms_ || ts_ms >= bucket_end_ms_) NextBucket(ts_ms);
    if (count_ == 0) {
      min_ = point.min;
      max_ = point.max;
    }
    count_ += point.count;
    sum_ += point.sum;
    min_ = point.min < min_ ? point.min : min_;
    max_ = point.max > max_ ? point.max : max_;
    last_ = point.last;
  }

  // The points, ascending by time. Ends the aggregator's use.
  std::vector<Point> Finish();

 private:
  void CloseBucket();
  // Closes the open bucket and opens the one holding ts_ms.
  void NextBucket(std::int64_t ts_ms);

  const std::int64_t from_ms_;
  const std::int64_t step_ms_;
  const Aggregation aggregation_;
  const std::size_t max_raw_points_;

  std::vector<Point> points_;  // Step mode: one per bucket from the start.
  // The open bucket (step mode).
  std::int64_t bucket_ = -1;          // Index of the open bucket; -1 before the first sample.
  std::int64_t bucket_start_ms_ = 0;  // [start, end) of the open bucket; empty before it.
  std::int64_t bucket_end_ms_ = 0;
  std::int64_t count_ = 0;
  double sum_ = 0;
  double min_ = 0;
  double max_ = 0;
  double last_ = 0;
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_STEP_AGGREGATOR_H_
