#include "alerts/rule.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace edgemond::alerts {

std::string_view ComparisonSymbol(Comparison op) {
  switch (op) {
    case Comparison::kGreater:
      return ">";
    case Comparison::kGreaterOrEqual:
      return ">=";
    case Comparison::kLess:
      return "<";
    case Comparison::kLessOrEqual:
      return "<=";
  }
  return ">";
}

Result<Comparison> ParseComparison(std::string_view symbol) {
  for (const Comparison op : {Comparison::kGreater, Comparison::kGreaterOrEqual, Comparison::kLess,
                              Comparison::kLessOrEqual}) {
    if (ComparisonSymbol(op) == symbol) return op;
  }
  return Status::InvalidArgument("expected one of \">\", \">=\", \"<\", \"<=\"");
}

bool Compare(Comparison op, double value, double threshold) {
  switch (op) {
    case Comparison::kGreater:
      return value > threshold;
    case Comparison::kGreaterOrEqual:
      return value >= threshold;
    case Comparison::kLess:
      return value < threshold;
    case Comparison::kLessOrEqual:
      return value <= threshold;
  }
  return false;
}

std::string_view NoDataPolicyName(NoDataPolicy policy) {
  switch (policy) {
    case NoDataPolicy::kKeep:
      return "keep";
    case NoDataPolicy::kFire:
      return "fire";
    case NoDataPolicy::kResolve:
      return "resolve";
  }
  return "keep";
}

Result<NoDataPolicy> ParseNoDataPolicy(std::string_view name) {
  for (const NoDataPolicy policy :
       {NoDataPolicy::kKeep, NoDataPolicy::kFire, NoDataPolicy::kResolve}) {
    if (NoDataPolicyName(policy) == name) return policy;
  }
  return Status::InvalidArgument("expected \"keep\", \"fire\" or \"resolve\"");
}

std::string_view ReduceFunctionName(ReduceFunction function) {
  switch (function) {
    case ReduceFunction::kLast:
      return "last";
    case ReduceFunction::kAvg:
      return "avg";
    case ReduceFunction::kMin:
      return "min";
    case ReduceFunction::kMax:
      return "max";
    case ReduceFunction::kDelta:
      return "delta";
    case ReduceFunction::kRate:
      return "rate";
  }
  return "last";
}

Result<ReduceFunction> ParseReduceFunction(std::string_view name) {
  for (const ReduceFunction function :
       {ReduceFunction::kLast, ReduceFunction::kAvg, ReduceFunction::kMin, ReduceFunction::kMax,
        ReduceFunction::kDelta, ReduceFunction::kRate}) {
    if (ReduceFunctionName(function) == name) return function;
  }
  return Status::InvalidArgument("expected one of last, avg, min, max, delta, rate");
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

std::string FormatDuration(std::chrono::milliseconds duration) {
  std::int64_t ms = duration.count();
  if (ms == 0) return "0s";
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  struct Unit {
    const char* name;
    std::int64_t ms;
  };
  constexpr Unit kUnits[] = {
      {"d", 86'400'000}, {"h", 3'600'000}, {"m", 60'000}, {"s", 1000}, {"ms", 1}};
  for (const Unit& unit : kUnits) {
    if (ms >= unit.ms) {
      out += std::to_string(ms / unit.ms) + unit.name;
      ms %= unit.ms;
    }
  }
  return out;
}

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  const auto bad = [&] {
    return Status::InvalidArgument("duration \"" + std::string(text) +
                                   "\": expected a number and a unit (ms, s, m, h, d), e.g. "
                                   "\"90s\", \"5m\", \"1h30m\"");
  };
  if (text.empty()) return bad();
  std::int64_t total = 0;
  std::size_t i = 0;
  int last_rank = 100;
  while (i < text.size()) {
    std::int64_t number = 0;
    const std::size_t digits_start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (number > 1'000'000'000) return bad();
      number = number * 10 + (text[i] - '0');
      ++i;
    }
    if (i == digits_start) return bad();
    std::int64_t unit_ms;
    int rank;
    if (text.substr(i, 2) == "ms") {
      unit_ms = 1;
      rank = 0;
      i += 2;
    } else if (i < text.size() && text[i] == 's') {
      unit_ms = 1000;
      rank = 1;
      ++i;
    } else if (i < text.size() && text[i] == 'm') {
      unit_ms = 60'000;
      rank = 2;
      ++i;
    } else if (i < text.size() && text[i] == 'h') {
      unit_ms = 3'600'000;
      rank = 3;
      ++i;
    } else if (i < text.size() && text[i] == 'd') {
      unit_ms = 86'400'000;
      rank = 4;
      ++i;
    } else {
      return bad();
    }
    if (rank >= last_rank) return bad();  // "5s1m" or "1m1m": units largest first, once each.
    last_rank = rank;
    total += number * unit_ms;
    if (total > 366LL * 86'400'000) {
      return Status::InvalidArgument("duration \"" + std::string(text) + "\": longer than a year");
    }
  }
  return std::chrono::milliseconds(total);
}

namespace {

// Calls `placeholder(name)` for every {name} and `literal(text)` for the text between them.
// Returns an error message, or "" when the template is well formed.
template <typename Literal, typename Placeholder>
std::string WalkTemplate(std::string_view text, Literal literal, Placeholder placeholder) {
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      literal("{");
      i += 2;
    } else if (c == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      literal("}");
      i += 2;
    } else if (c == '{') {
      const std::size_t close = text.find('}', i);
      if (close == std::string_view::npos) return "unclosed \"{\" (write \"{{\" for a brace)";
      const std::string_view name = text.substr(i + 1, close - i - 1);
      if (std::string message = placeholder(name); !message.empty()) return message;
      i = close + 1;
    } else if (c == '}') {
      return "unmatched \"}\" (write \"}}\" for a brace)";
    } else {
      const std::size_t next = text.find_first_of("{}", i);
      const std::size_t end = next == std::string_view::npos ? text.size() : next;
      literal(text.substr(i, end - i));
      i = end;
    }
  }
  return "";
}

constexpr std::string_view kPlaceholders[] = {"value", "value_percent", "threshold",
                                              "clear", "rule",          "severity"};

}  // namespace

Status ValidateTemplate(std::string_view text) {
  const std::string message = WalkTemplate(
      text, [](std::string_view) {},
      [](std::string_view name) -> std::string {
        for (std::string_view known : kPlaceholders) {
          if (name == known) return "";
        }
        if (name.substr(0, 7) == "labels." && IsLabelName(name.substr(7))) return "";
        return "unknown placeholder {" + std::string(name) +
               "} (known: {value}, {value_percent}, {threshold}, {clear}, {rule}, {severity}, "
               "{labels.NAME})";
      });
  if (!message.empty()) return Status::InvalidArgument(message);
  return Status::Ok();
}

std::string RenderTemplate(std::string_view text, const Rule& rule, const Labels& labels,
                           std::optional<double> value) {
  std::string out;
  (void)WalkTemplate(
      text, [&](std::string_view literal) { out += literal; },
      [&](std::string_view name) -> std::string {
        if (name == "value") {
          out += value ? FormatNumber(*value) : "n/a";
        } else if (name == "value_percent") {
          if (value) {
            char buffer[32];
            std::snprintf(buffer, sizeof(buffer), "%.1f", *value * 100.0);
            out += buffer;
          } else {
            out += "n/a";
          }
        } else if (name == "threshold") {
          out += FormatNumber(rule.trigger);
        } else if (name == "clear") {
          out += FormatNumber(rule.clear);
        } else if (name == "rule") {
          out += rule.name;
        } else if (name == "severity") {
          out += AlertSeverityName(rule.severity);
        } else if (name.substr(0, 7) == "labels.") {
          out += LabelValue(labels, name.substr(7));
        }
        return "";
      });
  return out;
}

}  // namespace edgemond::alerts
