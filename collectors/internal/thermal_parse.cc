#include "collectors/internal/thermal_parse.h"

#include "collectors/internal/names.h"
#include "core/text.h"

namespace edgemond::collectors::internal {

std::optional<std::string> ZoneTemperatureProblem(std::int64_t millicelsius) {
  if (millicelsius == kBpmpOfflineMillicelsius) return "sensor offline (reads -256000)";
  if (millicelsius < kMinZoneMillicelsius || millicelsius > kMaxZoneMillicelsius) {
    return "implausible value " + std::to_string(millicelsius) + " (millidegrees Celsius)";
  }
  return std::nullopt;
}

int TripIndexFromTypeFile(std::string_view file_name) {
  constexpr std::string_view kPrefix = "trip_point_";
  constexpr std::string_view kSuffix = "_type";
  if (!EndsWith(file_name, kSuffix)) return -1;
  file_name.remove_suffix(kSuffix.size());
  return IndexedName(file_name, kPrefix);
}

bool IsPlaceholderZone(std::string_view type) { return Trim(type) == "PMIC-Die"; }

bool ZoneEnabled(std::string_view mode_text) { return Trim(mode_text) != "disabled"; }

TripType ParseTripType(std::string_view text) {
  text = Trim(text);
  if (text == "active") return TripType::kActive;
  if (text == "passive") return TripType::kPassive;
  if (text == "hot") return TripType::kHot;
  if (text == "critical") return TripType::kCritical;
  return TripType::kUnknown;
}

std::string_view TripTypeName(TripType type) {
  switch (type) {
    case TripType::kActive:
      return "active";
    case TripType::kPassive:
      return "passive";
    case TripType::kHot:
      return "hot";
    case TripType::kCritical:
      return "critical";
    case TripType::kUnknown:
      break;
  }
  return "unknown";
}

bool IsExportedTrip(TripType type, std::int64_t millicelsius) {
  if (type != TripType::kPassive && type != TripType::kHot && type != TripType::kCritical) {
    return false;
  }
  return millicelsius > 0 && millicelsius <= 250000;
}

}  // namespace edgemond::collectors::internal
