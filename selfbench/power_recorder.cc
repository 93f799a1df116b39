#include "selfbench/power_recorder.h"

#include <algorithm>
#include <set>

namespace edgemond::selfbench {
namespace {

using Points = std::vector<std::pair<SteadyTime, double>>;

// Linear interpolation. REQUIRES: points.front().first <= t <= points.back().first.
double ValueAt(const Points& points, SteadyTime t) {
  const auto after = std::lower_bound(points.begin(), points.end(), t,
                                      [](const auto& p, SteadyTime x) { return p.first < x; });
  if (after == points.begin()) return after->second;
  if (after == points.end()) return points.back().second;
  if (after->first == t) return after->second;
  const auto before = after - 1;
  const double span = Seconds(after->first - before->first);
  const double f = span > 0 ? Seconds(t - before->first) / span : 1.0;
  return before->second + f * (after->second - before->second);
}

bool Brackets(const Points& points, SteadyTime from, SteadyTime to) {
  return points.size() >= 2 && points.front().first <= from && points.back().first >= to;
}

// The integral of a power series over [from, to], in joules.
double Integral(const Points& points, SteadyTime from, SteadyTime to) {
  double joules = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const SteadyTime a = std::max(points[i - 1].first, from);
    const SteadyTime b = std::min(points[i].first, to);
    if (b <= a) continue;
    joules += 0.5 * (ValueAt(points, a) + ValueAt(points, b)) * Seconds(b - a);
  }
  return joules;
}

// A counter's increase over [from, to]; a segment where it went down (a driver reset) adds 0.
double Increase(const Points& points, SteadyTime from, SteadyTime to) {
  double joules = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const SteadyTime a = std::max(points[i - 1].first, from);
    const SteadyTime b = std::min(points[i].first, to);
    if (b <= a || points[i].second < points[i - 1].second) continue;
    joules += ValueAt(points, b) - ValueAt(points, a);
  }
  return joules;
}

// The power of a source at reading time `t`: the reading itself, or for a counter the rate over
// the interval that ends at `t` (the one that contains it, when `t` is not a reading time).
std::optional<double> PowerAt(const Points& points, bool counter, SteadyTime t) {
  if (points.empty() || t < points.front().first || t > points.back().first) return std::nullopt;
  if (!counter) return ValueAt(points, t);
  auto after = std::lower_bound(points.begin(), points.end(), t,
                                [](const auto& p, SteadyTime x) { return p.first < x; });
  if (after == points.begin()) return std::nullopt;
  const auto before = after - 1;
  const double span = Seconds(after->first - before->first);
  if (span <= 0 || after->second < before->second) return std::nullopt;
  return (after->second - before->second) / span;
}

// Reading times in (from, to] plus `to`, where the power between readings is evaluated.
std::vector<SteadyTime> Times(const std::vector<const Points*>& series, SteadyTime from,
                              SteadyTime to) {
  std::set<SteadyTime> times;
  for (const Points* points : series) {
    for (const auto& [t, v] : *points) {
      if (t > from && t <= to) times.insert(t);
    }
  }
  times.insert(to);
  return {times.begin(), times.end()};
}

int KindOrder(std::string_view kind) {
  if (kind == "input") return 0;
  if (kind == "rail") return 1;
  if (kind == "rapl") return 2;
  if (kind == "gpu") return 3;
  return 4;
}

}  // namespace

void PowerRecorder::Add(SteadyTime at, const std::vector<Sample>& samples) {
  for (const Sample& sample : samples) {
    if (!sample.value || sample.desc == nullptr) continue;
    const std::string_view metric = sample.desc->name;
    std::string kind, name;
    bool counter = false;
    if (metric == "edgemond_power_input_watts") {
      kind = "input";
      name = "input";
    } else if (metric == "edgemond_power_rail_watts") {
      kind = "rail";
      name = LabelValue(sample.labels, "rail");
    } else if (metric == "edgemond_energy_joules_total") {
      kind = "rapl";
      name = LabelValue(sample.labels, "domain");
      counter = true;
    } else if (metric == "edgemond_gpu_energy_joules_total") {
      kind = "gpu";
      name = LabelValue(sample.labels, "gpu");
      counter = true;
    } else if (metric == "edgemond_gpu_power_watts") {
      kind = "gpu";
      name = LabelValue(sample.labels, "gpu");
    } else if (metric == "edgemond_hwmon_energy_joules_total") {
      kind = "hwmon";
      const std::string label(LabelValue(sample.labels, "label"));
      name = std::string(LabelValue(sample.labels, "chip")) + "/" +
             std::string(LabelValue(sample.labels, "sensor")) +
             (label.empty() ? "" : " (" + label + ")");
      counter = true;
    } else {
      continue;
    }
    Series& series = series_[SeriesKey(sample)];
    if (series.points.empty()) {
      series.kind = std::move(kind);
      series.name = std::move(name);
      series.counter = counter;
    }
    if (!series.points.empty() && series.points.back().first >= at) continue;
    series.points.emplace_back(at, *sample.value);
    if (series.points.size() > kMaxPointsPerSeries) {
      Points halved;
      halved.reserve(series.points.size() / 2 + 1);
      for (std::size_t i = 0; i < series.points.size(); i += 2) halved.push_back(series.points[i]);
      if (halved.back().first != series.points.back().first) halved.push_back(series.points.back());
      series.points = std::move(halved);
    }
  }
}

std::optional<std::pair<SteadyTime, SteadyTime>> PowerRecorder::span() const {
  std::optional<std::pair<SteadyTime, SteadyTime>> out;
  for (const auto& [key, series] : series_) {
    if (series.points.empty()) continue;
    if (!out) out.emplace(series.points.front().first, series.points.back().first);
    out->first = std::min(out->first, series.points.front().first);
    out->second = std::max(out->second, series.points.back().first);
  }
  return out;
}

PowerSummary PowerRecorder::Summarize(SteadyTime from, SteadyTime to) const {
  PowerSummary summary;
  const double window = Seconds(to - from);

  // GPUs that have an energy counter are measured by it, not by their power reading.
  std::set<std::string> gpus_with_counter;
  for (const auto& [key, series] : series_) {
    if (series.kind == "gpu" && series.counter) gpus_with_counter.insert(series.name);
  }

  struct Measured {
    const Series* series;
    std::optional<double> joules;
  };
  std::vector<Measured> measured;
  for (const auto& [key, series] : series_) {
    if (series.kind == "gpu" && !series.counter && gpus_with_counter.count(series.name)) continue;
    Measured m{&series, std::nullopt};
    if (Brackets(series.points, from, to) && window > 0) {
      m.joules =
          series.counter ? Increase(series.points, from, to) : Integral(series.points, from, to);
    }
    measured.push_back(m);
  }
  std::stable_sort(measured.begin(), measured.end(), [](const Measured& a, const Measured& b) {
    if (KindOrder(a.series->kind) != KindOrder(b.series->kind)) {
      return KindOrder(a.series->kind) < KindOrder(b.series->kind);
    }
    return a.series->name < b.series->name;
  });

  for (const Measured& m : measured) {
    BenchmarkPowerSource source;
    source.kind = m.series->kind;
    source.name = m.series->name;
    source.method = m.series->counter ? "counter" : "integrated";
    if (m.joules) {
      source.energy_joules = *m.joules;
      source.average_watts = *m.joules / window;
      for (SteadyTime t : Times({&m.series->points}, from, to)) {
        if (const auto watts = PowerAt(m.series->points, m.series->counter, t)) {
          source.peak_watts = std::max(source.peak_watts.value_or(*watts), *watts);
        }
      }
    }
    summary.sources.push_back(std::move(source));
  }

  // Which sources make up the input.
  std::vector<const Measured*> input;
  for (const Measured& m : measured) {
    if (m.series->kind == "input") input.push_back(&m);
  }
  if (input.empty()) {
    bool psys = false;
    for (const Measured& m : measured) {
      psys = psys || (m.series->kind == "rapl" && m.series->name == "psys");
    }
    for (const Measured& m : measured) {
      const std::string& name = m.series->name;
      const bool top_rapl =
          m.series->kind == "rapl" &&
          (psys ? name == "psys"
                : name.rfind("package-", 0) == 0 && name.find('/') == std::string::npos);
      if (top_rapl || m.series->kind == "gpu") input.push_back(&m);
    }
  }
  if (input.empty()) {
    summary.missing_reason = measured.empty()
                                 ? "no input power or energy sensor on this device (board input "
                                   "rail, RAPL, GPU)"
                                 : "no input power or energy sensor on this device (board input "
                                   "rail, RAPL, GPU); only sub-rails";
    return summary;
  }
  bool counters = false, integrated = false;
  double joules = 0;
  std::vector<const Points*> points;
  for (const Measured* m : input) {
    if (!m->joules) {
      summary.missing_reason = "the " + m->series->kind + " sensor " + m->series->name +
                               " was not read over the whole window";
      return summary;
    }
    joules += *m->joules;
    (m->series->counter ? counters : integrated) = true;
    points.push_back(&m->series->points);
  }
  summary.energy_joules = joules;
  summary.average_watts = joules / window;
  summary.method = counters && integrated ? "counter+integrated"
                   : counters             ? "counter"
                                          : "integrated";
  for (SteadyTime t : Times(points, from, to)) {
    double total = 0;
    bool complete = true;
    for (const Measured* m : input) {
      const auto watts = PowerAt(m->series->points, m->series->counter, t);
      if (!watts) {
        complete = false;
        break;
      }
      total += *watts;
    }
    if (complete) summary.peak_watts = std::max(summary.peak_watts.value_or(total), total);
  }
  return summary;
}

}  // namespace edgemond::selfbench
