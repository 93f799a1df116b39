#include "storage/store.h"

#include <array>
#include <utility>

namespace edgemond::storage {

namespace {

constexpr std::array<std::pair<Aggregation, std::string_view>, 6> kAggregationNames = {{
    {Aggregation::kAvg, "avg"},
    {Aggregation::kMin, "min"},
    {Aggregation::kMax, "max"},
    {Aggregation::kLast, "last"},
    {Aggregation::kSum, "sum"},
    {Aggregation::kCount, "count"},
}};

}  // namespace

std::string_view AggregationName(Aggregation aggregation) {
  for (const auto& [value, name] : kAggregationNames) {
    if (value == aggregation) return name;
  }
  return "unknown";
}

Result<Aggregation> ParseAggregation(std::string_view name) {
  for (const auto& [value, known] : kAggregationNames) {
    if (known == name) return value;
  }
  return Status::InvalidArgument("unknown aggregation \"" + std::string(name) +
                                 "\" (expected avg, min, max, last, sum or count)");
}

bool SeriesMatcher::Matches(std::string_view series_name, const Labels& series_labels) const {
  if (!name.empty() && name != series_name) return false;
  for (const LabelMatcher& matcher : labels) {
    std::string_view actual;  // A missing label reads as "".
    for (const Label& label : series_labels) {
      if (label.name == matcher.name) {
        actual = label.value;
        break;
      }
    }
    const bool equal = actual == matcher.value;
    if (equal != (matcher.op == LabelMatcher::Op::kEqual)) return false;
  }
  return true;
}

}  // namespace edgemond::storage
