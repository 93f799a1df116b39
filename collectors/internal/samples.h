// Small constructors for the samples collectors emit, so that every collector builds a value and a
// missing value the same way. `labels` are the series' shared labels, which a collector builds
// once, when it finds the series (core/sample.h: SeriesLabels): passing them copies no string.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_SAMPLES_H_
#define EDGEMOND_COLLECTORS_INTERNAL_SAMPLES_H_

#include <string>
#include <utility>

#include "core/clock.h"
#include "core/sample.h"

namespace edgemond::collectors::internal {

inline Sample ValueSample(const MetricDesc& desc, SeriesLabels labels, double value, WallTime at) {
  Sample sample;
  sample.desc = &desc;
  sample.labels = std::move(labels);
  sample.value = value;
  sample.at = at;
  return sample;
}

// `reason` must not be empty: a missing value always says why.
inline Sample MissingSample(const MetricDesc& desc, SeriesLabels labels, std::string reason,
                            WallTime at) {
  Sample sample;
  sample.desc = &desc;
  sample.labels = std::move(labels);
  sample.missing_reason = std::move(reason);
  sample.at = at;
  return sample;
}

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_SAMPLES_H_
