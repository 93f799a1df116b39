// The vocabulary every part shares: metric descriptions, labels and samples.
//
// A collector owns one static MetricDesc per metric it exports and produces Samples that point at
// it. Values are in base units (seconds, bytes, celsius, volts, amperes, watts, joules, hertz,
// ratio 0..1) because conversion happens once, at the collector boundary. A sensor that could not
// be read is a Sample without a value and with the reason, never a 0.

#ifndef EDGEMOND_CORE_SAMPLE_H_
#define EDGEMOND_CORE_SAMPLE_H_

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"

namespace edgemond {

// kSummary: quantiles of observations, one series per `quantile` label, each a gauge (Prometheus'
// summary without _sum and _count); stores keep its series as gauges.
enum class MetricType { kGauge, kCounter, kSummary };

std::string_view MetricTypeName(MetricType type);  // "gauge" / "counter" / "summary"

struct MetricDesc {
  std::string_view name;  // edgemond_<subsystem>_<name>_<unit>[_total]
  std::string_view help;  // One line, no trailing period.
  MetricType type;
  std::string_view unit;  // Base unit ("celsius", "bytes", "ratio", ...); "" when unitless.
};

struct Label {
  std::string name;
  std::string value;
  friend bool operator==(const Label& a, const Label& b) {
    return a.name == b.name && a.value == b.value;
  }
  friend bool operator<(const Label& a, const Label& b) {
    return a.name != b.name ? a.name < b.name : a.value < b.value;
  }
};

// Label order is part of a collector's contract: each metric always lists its labels in the same
// order. SeriesKey() sorts them, so identity does not depend on that order.
using Labels = std::vector<Label>;

// The labels of one series as samples carry them: immutable, and cheap to copy, because every copy
// refers to the same allocation. A collector builds them once, when it finds the series, and each
// tick's sample of that series refers to them, so a collection copies no label strings. Reads
// convert to `const Labels&`. No labels costs no allocation.
//
// Thread safety: as std::shared_ptr<const Labels>: copies may be made, read and destroyed on any
// thread (the loop builds samples while HTTP threads read the previous tick's).
class SeriesLabels {
 public:
  using value_type = Label;
  using const_iterator = Labels::const_iterator;

  SeriesLabels() = default;
  // Implicit on purpose: wherever a sample takes labels, a Labels or a braced list will do.
  SeriesLabels(Labels labels)  // NOLINT(google-explicit-constructor)
      : labels_(labels.empty() ? nullptr : std::make_shared<const Labels>(std::move(labels))) {}
  SeriesLabels(std::initializer_list<Label> labels) : SeriesLabels(Labels(labels)) {}

  const Labels& get() const { return labels_ != nullptr ? *labels_ : None(); }
  operator const Labels&() const { return get(); }  // NOLINT(google-explicit-constructor)

  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  std::size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const Label& operator[](std::size_t i) const { return get()[i]; }

  // Equal labels, in the same order. Copies of one SeriesLabels compare without reading a string.
  friend bool operator==(const SeriesLabels& a, const SeriesLabels& b) {
    return a.labels_ == b.labels_ || a.get() == b.get();
  }
  friend bool operator==(const SeriesLabels& a, const Labels& b) { return a.get() == b; }
  // Whether both are copies of one SeriesLabels (or both have no labels): no string is read.
  bool SharesWith(const SeriesLabels& other) const { return labels_ == other.labels_; }

 private:
  static const Labels& None();

  std::shared_ptr<const Labels> labels_;  // Null when there are no labels.
};

struct Sample {
  const MetricDesc* desc = nullptr;  // Static storage; never null in a produced sample.
  SeriesLabels labels;
  std::optional<double> value;  // Empty when the sensor could not be read.
  std::string missing_reason;   // Why `value` is empty ("EAGAIN: sensor offline"); else "".
  WallTime at;

  bool has_value() const { return value.has_value(); }
};

// The canonical identity of a series: `name{a="x",b="y"}` with labels sorted by name and values
// escaped as in the Prometheus text format. Bare `name` when there are no labels.
std::string SeriesKey(std::string_view name, const Labels& labels);
inline std::string SeriesKey(const Sample& sample) {
  return SeriesKey(sample.desc->name, sample.labels);
}

// Escapes a label value for the Prometheus text format and SeriesKey: \ -> \\, " -> \", \n -> \n.
std::string EscapeLabelValue(std::string_view value);

// The value of the label called `name` (a view into `labels`); empty when there is none.
std::string_view LabelValue(const Labels& labels, std::string_view name);

// Whether `name` is a valid Prometheus label name: [a-zA-Z_][a-zA-Z0-9_]*.
bool IsLabelName(std::string_view name);

// Replaces bytes that are not valid UTF-8 with U+FFFD, so that any label read from a device can be
// served as JSON and Prometheus text. Valid input is returned unchanged.
std::string SanitizeUtf8(std::string_view text);

}  // namespace edgemond

#endif  // EDGEMOND_CORE_SAMPLE_H_
