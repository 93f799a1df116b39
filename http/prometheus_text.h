// Prometheus text exposition format 0.0.4: build data first, render text last (as
// prometheus-cpp's Collect()/TextSerializer do). No timestamps: edgemond polls on its own clock
// and /metrics serves the latest values.

#ifndef EDGEMOND_HTTP_PROMETHEUS_TEXT_H_
#define EDGEMOND_HTTP_PROMETHEUS_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/sample.h"

namespace edgemond::http {

struct MetricPoint {
  Labels labels;
  double value = 0;
};

struct MetricFamily {
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<MetricPoint> points;
};

// Groups samples by metric name into families, in name order; within a family, points keep the
// order the samples came in. Samples without a value are left out (absent, never 0), and a second
// sample with the same name and label set is dropped, so the output is always valid.
std::vector<MetricFamily> GroupSamples(const std::vector<Sample>& samples);

// Renders families as text format 0.0.4: # HELP, # TYPE, then samples; label values and help
// escaped; NaN/+Inf/-Inf spelled as Prometheus expects; numbers in shortest round-trip form.
std::string RenderPrometheusText(const std::vector<MetricFamily>& families);

// Formats a double as the exposition format does ("1", "0.25", "1e+21", "NaN", "+Inf").
std::string FormatPrometheusValue(double value);

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_PROMETHEUS_TEXT_H_
