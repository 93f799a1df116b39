// The query vocabulary shared by storage (which answers queries) and http (which parses and
// serves them): series selectors, range queries and their results.

#ifndef EDGEMOND_CORE_QUERY_H_
#define EDGEMOND_CORE_QUERY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/sample.h"

namespace edgemond {

// How the points inside one step are combined.
enum class Aggregation { kAvg, kMin, kMax, kLast, kSum, kCount };

std::string_view AggregationName(Aggregation aggregation);
Result<Aggregation> ParseAggregation(std::string_view name);

struct LabelMatcher {
  enum class Op { kEqual, kNotEqual };
  std::string name;
  Op op = Op::kEqual;
  std::string value;
};

// `name{label="value",other!="x"}`, the subset of PromQL selectors that edgemond answers: a
// metric name (required) and equality / inequality matchers. A label that a series does not have
// has the value "" for matching, as in Prometheus.
struct SeriesSelector {
  std::string name;
  std::vector<LabelMatcher> matchers;

  bool Matches(std::string_view series_name, const Labels& labels) const;
};

// Parses the selector syntax above; errors say what was expected and at which character.
Result<SeriesSelector> ParseSeriesSelector(std::string_view text);

struct SeriesInfo {
  std::string name;
  Labels labels;
  std::string unit;
  MetricType type = MetricType::kGauge;
  std::optional<std::int64_t> first_ms;  // Oldest stored (or buffered) point.
  std::optional<std::int64_t> last_ms;   // Newest stored (or buffered) point.
};

struct Point {
  std::int64_t t_ms = 0;
  std::optional<double> value;  // Empty for a step with no data (a gap, never 0).
};

struct RangeQuery {
  SeriesSelector selector;
  std::int64_t from_ms = 0;  // Inclusive.
  std::int64_t to_ms = 0;    // Inclusive.
  // Bucket width. 0 = native resolution (every stored point, no aggregation).
  std::int64_t step_ms = 0;
  Aggregation aggregation = Aggregation::kAvg;
  std::size_t max_points_per_series = 11000;
  std::size_t max_series = 1000;
};

struct SeriesPoints {
  SeriesInfo series;
  std::vector<Point> points;
};

struct QueryResult {
  std::int64_t step_ms = 0;  // The step actually used.
  std::vector<SeriesPoints> series;
};

}  // namespace edgemond

#endif  // EDGEMOND_CORE_QUERY_H_
