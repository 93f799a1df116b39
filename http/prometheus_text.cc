#include "http/prometheus_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

namespace edgemond::http {
namespace {

std::string EscapeHelp(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (const char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string FormatPrometheusValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::vector<MetricFamily> GroupSamples(const std::vector<Sample>& samples) {
  std::map<std::string_view, MetricFamily> by_name;
  std::map<std::string_view, std::set<std::string>> seen;
  for (const Sample& sample : samples) {
    if (!sample.has_value() || sample.desc == nullptr) continue;
    const std::string_view name = sample.desc->name;
    if (!seen[name].insert(SeriesKey(sample)).second) continue;  // Duplicate label set.
    MetricFamily& family = by_name[name];
    if (family.name.empty()) {
      family.name = std::string(name);
      family.help = std::string(sample.desc->help);
      family.type = sample.desc->type;
    }
    family.points.push_back(MetricPoint{sample.labels, *sample.value});
  }
  std::vector<MetricFamily> families;
  families.reserve(by_name.size());
  for (auto& [name, family] : by_name) families.push_back(std::move(family));
  return families;
}

std::string RenderPrometheusText(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const MetricFamily& family : families) {
    if (family.points.empty()) continue;
    out += "# HELP ";
    out += family.name;
    out += ' ';
    out += EscapeHelp(family.help);
    out += "\n# TYPE ";
    out += family.name;
    out += ' ';
    out += MetricTypeName(family.type);
    out += '\n';
    for (const MetricPoint& point : family.points) {
      out += family.name;
      if (!point.labels.empty()) {
        out += '{';
        for (std::size_t i = 0; i < point.labels.size(); ++i) {
          if (i > 0) out += ',';
          out += point.labels[i].name;
          out += "=\"";
          out += EscapeLabelValue(SanitizeUtf8(point.labels[i].value));
          out += '"';
        }
        out += '}';
      }
      out += ' ';
      out += FormatPrometheusValue(point.value);
      out += '\n';
    }
  }
  return out;
}

}  // namespace edgemond::http
