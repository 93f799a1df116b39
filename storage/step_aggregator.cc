#include "storage/step_aggregator.h"

#include <algorithm>
#include <string>

namespace edgemond::storage {

StepAggregator::StepAggregator(std::int64_t from_ms, std::int64_t to_ms, std::int64_t step_ms,
                               Aggregation aggregation, std::size_t max_raw_points)
    : from_ms_(from_ms),
      step_ms_(step_ms),
      aggregation_(aggregation),
      max_raw_points_(max_raw_points) {
  if (step_ms_ == 0) return;
  const std::int64_t buckets = BucketCount(from_ms, to_ms, step_ms);
  points_.resize(static_cast<std::size_t>(buckets));
  for (std::int64_t i = 0; i < buckets; ++i) {
    points_[static_cast<std::size_t>(i)].t_ms = from_ms + i * step_ms;
  }
}

Status StepAggregator::Add(std::int64_t ts_ms, double value) {
  if (step_ms_ == 0) {
    if (points_.size() >= max_raw_points_) {
      return Status::ResourceExhausted("the range holds more than " +
                                       std::to_string(max_raw_points_) +
                                       " raw samples; ask for a step");
    }
    points_.push_back({ts_ms, value});
    return Status::Ok();
  }
  if (ts_ms < bucket_start_ms_ || ts_ms >= bucket_end_ms_) NextBucket(ts_ms);
  if (count_ == 0) {
    min_ = value;
    max_ = value;
  }
  ++count_;
  sum_ += value;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  last_ = value;
  return Status::Ok();
}

void StepAggregator::NextBucket(std::int64_t ts_ms) {
  CloseBucket();
  bucket_ = (ts_ms - from_ms_) / step_ms_;
  bucket_start_ms_ = from_ms_ + bucket_ * step_ms_;
  bucket_end_ms_ = bucket_start_ms_ + step_ms_;
  count_ = 0;
  sum_ = 0;
}

void StepAggregator::CloseBucket() {
  if (bucket_ < 0 || count_ == 0) return;
  double value = 0;
  switch (aggregation_) {
    case Aggregation::kAvg:
      value = sum_ / static_cast<double>(count_);
      break;
    case Aggregation::kMin:
      value = min_;
      break;
    case Aggregation::kMax:
      value = max_;
      break;
    case Aggregation::kLast:
      value = last_;
      break;
    case Aggregation::kSum:
      value = sum_;
      break;
    case Aggregation::kCount:
      value = static_cast<double>(count_);
      break;
  }
  points_[static_cast<std::size_t>(bucket_)].value = value;
}

std::vector<Point> StepAggregator::Finish() {
  if (step_ms_ != 0) {
    CloseBucket();
    bucket_ = -1;
  }
  return std::move(points_);
}

}  // namespace edgemond::storage
