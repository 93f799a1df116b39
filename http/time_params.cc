#include "http/time_params.h"

#include <cctype>
#include <cmath>
#include <string>

#include "core/text.h"

namespace edgemond::http {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool Digits(std::string_view text, std::size_t pos, std::size_t count, int& out) {
  if (pos + count > text.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

Result<std::int64_t> ParseRfc3339(std::string_view text) {
  const Status bad = Status::InvalidArgument(
      "\"" + std::string(text) +
      "\" is not a time (use Unix seconds, -SECONDS relative to now, \"now\" or RFC 3339 such "
      "as 2026-01-01T00:00:00Z)");
  int year, month, day, hour, minute, second;
  if (text.size() < 20 || !Digits(text, 0, 4, year) || text[4] != '-' ||
      !Digits(text, 5, 2, month) || text[7] != '-' || !Digits(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || !Digits(text, 11, 2, hour) ||
      text[13] != ':' || !Digits(text, 14, 2, minute) || text[16] != ':' ||
      !Digits(text, 17, 2, second)) {
    return bad;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return bad;
  }
  std::size_t pos = 19;
  std::int64_t millis = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::int64_t scale = 100;
    const std::size_t start = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      millis += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return bad;
  }
  std::int64_t offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int oh, om;
    if (!Digits(text, pos + 1, 2, oh) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !Digits(text, pos + 4, 2, om)) {
      return bad;
    }
    offset_minutes = (oh * 60 + om) * (text[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return bad;
  }
  if (pos != text.size()) return bad;
  const std::int64_t days =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t seconds =
      days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  return seconds * 1000 + millis;
}

}  // namespace

Result<std::int64_t> ParseTimeMillis(std::string_view text, std::int64_t now_ms) {
  text = Trim(text);
  if (text == "now") return now_ms;
  if (text.find('-', 1) != std::string_view::npos || text.find('T') != std::string_view::npos ||
      text.find('t') != std::string_view::npos) {
    return ParseRfc3339(text);
  }
  auto number = ParseDouble(text);
  if (!number.ok() || !std::isfinite(*number)) {
    return Status::InvalidArgument(
        "\"" + std::string(text) +
        "\" is not a time (use Unix seconds, -SECONDS relative to now, \"now\" or RFC 3339)");
  }
  if (std::fabs(*number) > 1e11) {
    return Status::InvalidArgument("\"" + std::string(text) +
                                   "\" is out of range (seconds, not milliseconds)");
  }
  const auto millis = static_cast<std::int64_t>(std::llround(*number * 1000.0));
  return *number < 0 ? now_ms + millis : millis;
}

// The longest duration accepted, in either form: 10^10 s (about 317 years).
constexpr std::int64_t kMaxDurationMillis = 10'000'000'000'000;

Result<std::int64_t> ParseDurationMillis(std::string_view text) {
  text = Trim(text);
  const Status bad = Status::InvalidArgument(
      "\"" + std::string(text) +
      "\" is not a duration (use e.g. 250ms, 60s, 5m, 1h30m, 7d, or a number of seconds)");
  if (text.empty()) return bad;
  if (auto seconds = ParseDouble(text); seconds.ok()) {
    // Below half a millisecond it would round to a zero step.
    if (!std::isfinite(*seconds) || *seconds < 0.0005 ||
        *seconds * 1000.0 > static_cast<double>(kMaxDurationMillis)) {
      return bad;
    }
    return static_cast<std::int64_t>(std::llround(*seconds * 1000.0));
  }
  std::int64_t total = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::int64_t amount = 0;
    const std::size_t start = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      amount = amount * 10 + (text[pos] - '0');
      if (amount > 1'000'000'000) return bad;
      ++pos;
    }
    if (pos == start) return bad;
    std::int64_t unit_ms;
    if (text.substr(pos, 2) == "ms") {
      unit_ms = 1;
      pos += 2;
    } else if (pos < text.size()) {
      switch (text[pos]) {
        case 's':
          unit_ms = 1000;
          break;
        case 'm':
          unit_ms = 60'000;
          break;
        case 'h':
          unit_ms = 3'600'000;
          break;
        case 'd':
          unit_ms = 86'400'000;
          break;
        case 'w':
          unit_ms = 7 * 86'400'000LL;
          break;
        case 'y':
          unit_ms = 365 * 86'400'000LL;
          break;
        default:
          return bad;
      }
      ++pos;
    } else {
      return bad;
    }
    // Checked before it is computed: "700177542y" would overflow 64 bits.
    if (amount > kMaxDurationMillis / unit_ms) return bad;
    total += amount * unit_ms;
    if (total > kMaxDurationMillis) return bad;
  }
  if (total <= 0) return bad;
  return total;
}

}  // namespace edgemond::http
