#include "core/sample.h"

#include <algorithm>

namespace edgemond {

std::string_view MetricTypeName(MetricType type) {
  switch (type) {
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kCounter:
      return "counter";
    case MetricType::kSummary:
      return "summary";
  }
  return "untyped";
}

const Labels& SeriesLabels::None() {
  static const Labels* const none = new Labels();  // Never destroyed: no exit-time destructor.
  return *none;
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string SeriesKey(std::string_view name, const Labels& labels) {
  std::string key(name);
  if (labels.empty()) return key;
  std::vector<const Label*> sorted;
  sorted.reserve(labels.size());
  for (const Label& label : labels) sorted.push_back(&label);
  std::sort(sorted.begin(), sorted.end(),
            [](const Label* a, const Label* b) { return a->name < b->name; });
  key.push_back('{');
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0) key.push_back(',');
    key += sorted[i]->name;
    key += "=\"";
    key += EscapeLabelValue(sorted[i]->value);
    key.push_back('"');
  }
  key.push_back('}');
  return key;
}

std::string SanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    const unsigned char c = *p;
    int length = 0;
    unsigned int min_code = 0;
    if (c < 0x80) {
      length = 1;
    } else if ((c & 0xE0) == 0xC0) {
      length = 2;
      min_code = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3;
      min_code = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      length = 4;
      min_code = 0x10000;
    }
    bool valid = length > 0 && end - p >= length;
    unsigned int code = length == 1 ? c : (c & (0x7F >> length));
    for (int i = 1; valid && i < length; ++i) {
      if ((p[i] & 0xC0) != 0x80) {
        valid = false;
      } else {
        code = (code << 6) | (p[i] & 0x3F);
      }
    }
    if (valid && length > 1 &&
        (code < min_code || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))) {
      valid = false;
    }
    if (valid) {
      out.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(length));
      p += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++p;
    }
  }
  return out;
}

std::string_view LabelValue(const Labels& labels, std::string_view name) {
  for (const Label& label : labels) {
    if (label.name == name) return label.value;
  }
  return {};
}

bool IsLabelName(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace edgemond
