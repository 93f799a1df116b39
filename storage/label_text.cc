#include "storage/label_text.h"

#include <algorithm>

namespace edgemond::storage {

namespace {

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

Status ValidateMetricName(std::string_view name) {
  bool valid = !name.empty() && (IsNameStart(name[0]) || name[0] == ':');
  for (std::size_t i = 1; valid && i < name.size(); ++i) {
    valid = IsNameChar(name[i]) || name[i] == ':';
  }
  if (valid) return Status::Ok();
  return Status::InvalidArgument("invalid metric name \"" + std::string(name) + "\"");
}

Status ValidateLabelName(std::string_view name) {
  bool valid = !name.empty() && IsNameStart(name[0]);
  for (std::size_t i = 1; valid && i < name.size(); ++i) valid = IsNameChar(name[i]);
  if (valid) return Status::Ok();
  return Status::InvalidArgument("invalid label name \"" + std::string(name) + "\"");
}

Result<Labels> CanonicalLabels(const Labels& labels) {
  Labels sorted = labels;
  std::sort(sorted.begin(), sorted.end(),
            [](const Label& a, const Label& b) { return a.name < b.name; });
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    EDGEMOND_RETURN_IF_ERROR(ValidateLabelName(sorted[i].name));
    if (i > 0 && sorted[i].name == sorted[i - 1].name) {
      return Status::InvalidArgument("duplicate label \"" + sorted[i].name + "\"");
    }
  }
  return sorted;
}

std::string FormatLabelText(const Labels& labels) {
  std::string text;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) text.push_back(',');
    text += labels[i].name;
    text += "=\"";
    text += EscapeLabelValue(labels[i].value);
    text.push_back('"');
  }
  return text;
}

Result<Labels> ParseLabelText(std::string_view text) {
  Labels labels;
  std::size_t pos = 0;
  const auto fail = [&text](std::string_view why) {
    return Status::Corruption("malformed label text \"" + std::string(text) +
                              "\": " + std::string(why));
  };
  while (pos < text.size()) {
    if (!labels.empty()) {
      if (text[pos] != ',') return fail("expected ','");
      ++pos;
    }
    const std::size_t equals = text.find('=', pos);
    if (equals == std::string_view::npos) return fail("expected '='");
    Label label;
    label.name = std::string(text.substr(pos, equals - pos));
    if (!ValidateLabelName(label.name).ok()) return fail("invalid label name");
    pos = equals + 1;
    if (pos >= text.size() || text[pos] != '"') return fail("expected '\"'");
    ++pos;
    bool closed = false;
    while (pos < text.size()) {
      const char c = text[pos++];
      if (c == '"') {
        closed = true;
        break;
      }
      if (c != '\\') {
        label.value.push_back(c);
        continue;
      }
      if (pos >= text.size()) return fail("dangling escape");
      const char escaped = text[pos++];
      switch (escaped) {
        case '\\':
          label.value.push_back('\\');
          break;
        case '"':
          label.value.push_back('"');
          break;
        case 'n':
          label.value.push_back('\n');
          break;
        default:
          return fail("unknown escape");
      }
    }
    if (!closed) return fail("unterminated value");
    if (!labels.empty() && !(labels.back().name < label.name)) {
      return fail("labels not sorted or duplicated");
    }
    labels.push_back(std::move(label));
  }
  return labels;
}

}  // namespace edgemond::storage
