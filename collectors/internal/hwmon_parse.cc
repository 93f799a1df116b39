#include "collectors/internal/hwmon_parse.h"

#include <charconv>

namespace edgemond::collectors::internal {
namespace {

// The order does not matter: a prefix must be followed by digits, so "in" does not take
// "intrusion0_alarm".
constexpr HwmonKind kKinds[] = {HwmonKind::kTemp,  HwmonKind::kIn,     HwmonKind::kCurr,
                                HwmonKind::kPower, HwmonKind::kEnergy, HwmonKind::kFan,
                                HwmonKind::kPwm};

std::optional<HwmonItem> ParseItem(HwmonKind kind, std::string_view suffix) {
  if (kind == HwmonKind::kPwm) {
    return suffix.empty() ? std::optional<HwmonItem>(HwmonItem::kValue) : std::nullopt;
  }
  if (suffix == "_input") return HwmonItem::kInput;
  if (suffix == "_label") return HwmonItem::kLabel;
  if (suffix == "_average" && kind == HwmonKind::kPower) return HwmonItem::kAverage;
  if (suffix == "_crit" && kind == HwmonKind::kTemp) return HwmonItem::kCrit;
  return std::nullopt;
}

}  // namespace

std::string_view HwmonKindPrefix(HwmonKind kind) {
  switch (kind) {
    case HwmonKind::kTemp:
      return "temp";
    case HwmonKind::kIn:
      return "in";
    case HwmonKind::kCurr:
      return "curr";
    case HwmonKind::kPower:
      return "power";
    case HwmonKind::kEnergy:
      return "energy";
    case HwmonKind::kFan:
      return "fan";
    case HwmonKind::kPwm:
      return "pwm";
  }
  return "";
}

std::string HwmonStem(HwmonKind kind, int index) {
  std::string stem(HwmonKindPrefix(kind));
  stem += std::to_string(index);
  return stem;
}

std::optional<HwmonAttribute> ParseHwmonAttributeName(std::string_view name) {
  for (const HwmonKind kind : kKinds) {
    const std::string_view prefix = HwmonKindPrefix(kind);
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) continue;
    const std::string_view rest = name.substr(prefix.size());
    int index = -1;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
    if (error != std::errc() || index < 0) continue;
    const std::size_t digits = static_cast<std::size_t>(end - rest.data());
    const std::optional<HwmonItem> item = ParseItem(kind, rest.substr(digits));
    if (!item) return std::nullopt;
    return HwmonAttribute{kind, index, *item};
  }
  return std::nullopt;
}

double HwmonScale(std::string_view chip_name, HwmonKind kind, int index) {
  switch (kind) {
    case HwmonKind::kTemp:
    case HwmonKind::kCurr:
      return 1e-3;
    case HwmonKind::kIn:
      if (chip_name == "ina3221" && index >= 4 && index <= 7) return 1e-6;
      return 1e-3;
    case HwmonKind::kPower:
    case HwmonKind::kEnergy:
      return 1e-6;
    case HwmonKind::kFan:
      return 1.0;
    case HwmonKind::kPwm:
      return 1.0 / 255.0;
  }
  return 1.0;
}

std::optional<std::string> HwmonValueProblem(HwmonKind kind, std::int64_t raw) {
  bool plausible = true;
  switch (kind) {
    case HwmonKind::kTemp:
      plausible = raw > -273150 && raw <= 2000000;
      break;
    case HwmonKind::kFan:
    case HwmonKind::kEnergy:
      plausible = raw >= 0;
      break;
    case HwmonKind::kPwm:
      plausible = raw >= 0 && raw <= 255;
      break;
    case HwmonKind::kIn:
    case HwmonKind::kCurr:
    case HwmonKind::kPower:
      break;  // Bidirectional shunts and chargers report negative values legitimately.
  }
  if (plausible) return std::nullopt;
  return "implausible value " + std::to_string(raw);
}

std::string_view BusFromSubsystemTarget(std::string_view target) {
  const std::size_t bus = target.rfind("/bus/");
  if (bus == std::string_view::npos && target.substr(0, 4) != "bus/") return {};
  std::string_view name = target.substr(bus == std::string_view::npos ? 4 : bus + 5);
  if (const std::size_t slash = name.find('/'); slash != std::string_view::npos) {
    name = name.substr(0, slash);
  }
  return name;
}

}  // namespace edgemond::collectors::internal
