#include "core/text.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace edgemond {
namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0' || c == '\v' || c == '\f';
}

// The text quoted in an error, which becomes a missing value's reason (in JSON, in a label): at
// most 40 bytes, and anything but printable ASCII written as an escape, so that a garbled file
// gives a one-line, valid UTF-8 reason.
Status NotANumber(std::string_view text) {
  std::string shown;
  for (const char c : text.substr(0, 40)) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      shown += "\\n";
    } else if (c == '"' || c == '\\') {
      shown += '\\';
      shown += c;
    } else if (byte < 0x20 || byte >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      shown += "\\x";
      shown += kHex[byte >> 4];
      shown += kHex[byte & 15];
    } else {
      shown += c;
    }
  }
  return Status::Corruption("not a number: \"" + shown + "\"");
}

template <typename T>
Result<T> ParseInteger(std::string_view text) {
  text = Trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return NotANumber(text);
  }
  return value;
}

}  // namespace

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return text;
}

Result<std::int64_t> ParseInt64(std::string_view text) { return ParseInteger<std::int64_t>(text); }

Result<std::uint64_t> ParseUint64(std::string_view text) {
  return ParseInteger<std::uint64_t>(text);
}

Result<double> ParseDouble(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return NotANumber(text);
  // std::from_chars for double is incomplete in older libstdc++ (Ubuntu 22.04); strtod is fine
  // on a NUL-terminated copy of a short string.
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE) return NotANumber(text);
  return value;
}

std::string_view FirstField(std::string_view text) {
  text = Trim(text);
  std::size_t end = 0;
  while (end < text.size() && !IsBlank(text[end])) ++end;
  return text.substr(0, end);
}

std::vector<std::string_view> SplitFields(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  return fields;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

Result<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> cpus;
  EDGEMOND_RETURN_IF_ERROR(ParseCpuListInto(text, cpus));
  return cpus;
}

Status ParseCpuListInto(std::string_view text, std::vector<int>& cpus) {
  cpus.clear();
  text = Trim(text);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    const std::size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t cpu, ParseInt64(item));
      if (cpu < 0 || cpu > 65535) return Status::Corruption("bad cpu list entry");
      cpus.push_back(static_cast<int>(cpu));
    } else {
      EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t first, ParseInt64(item.substr(0, dash)));
      EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t last, ParseInt64(item.substr(dash + 1)));
      if (first < 0 || last < first || last > 65535) {
        return Status::Corruption("bad cpu range \"" + std::string(item) + "\"");
      }
      for (std::int64_t cpu = first; cpu <= last; ++cpu) cpus.push_back(static_cast<int>(cpu));
    }
    start = end + 1;
  }
  return Status::Ok();
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace edgemond
