// Interpreting thermal zone attributes (Documentation/driver-api/thermal/sysfs-api.rst):
// `temp` and `trip_point_N_temp` are signed millidegrees Celsius, `mode` is "enabled" or
// "disabled", `trip_point_N_type` one of active, passive, hot, critical. Pure functions.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_THERMAL_PARSE_H_
#define EDGEMOND_COLLECTORS_INTERNAL_THERMAL_PARSE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace edgemond::collectors::internal {

// What NVIDIA's BPMP firmware reports for a zone whose sensor is absent or powered down (Orin CV
// zones on boards without DLA/PVA, the GPU zone while rail-gated).
inline constexpr std::int64_t kBpmpOfflineMillicelsius = -256000;

// Plausible die temperatures. Anything outside is a driver placeholder or a glitch, not a reading.
inline constexpr std::int64_t kMinZoneMillicelsius = -100000;
inline constexpr std::int64_t kMaxZoneMillicelsius = 200000;

// Why a zone temperature that parsed is not a reading, or nullopt when it is one:
//   -256000            -> "sensor offline (reads -256000)"
//   out of the range   -> "implausible value 512000 (millidegrees Celsius)"
std::optional<std::string> ZoneTemperatureProblem(std::int64_t millicelsius);

// Whether a zone is a placeholder that reports a constant rather than a temperature: NVIDIA's
// "PMIC-Die" zone on the Nano, TX1, TX2 and Xavier reads 100000 or 50000 forever (tegrastats prints
// PMIC@100C). Reporting it would show a Nano at 100 °C and set off every thermal alert.
bool IsPlaceholderZone(std::string_view type);

// The missing-value reason for a placeholder zone.
inline constexpr std::string_view kPlaceholderReason = "placeholder (reports a constant)";

// `mode` file content: true unless it says "disabled".
bool ZoneEnabled(std::string_view mode_text);

// The N of a trip point's type file: "trip_point_3_type" -> 3; -1 for any other name.
int TripIndexFromTypeFile(std::string_view file_name);

enum class TripType { kActive, kPassive, kHot, kCritical, kUnknown };

TripType ParseTripType(std::string_view text);
std::string_view TripTypeName(TripType type);  // "active", ..., "unknown"

// Whether a trip point is worth exporting: passive, hot and critical trips say where the kernel
// starts throttling or shuts down, which is what a "near the trip point" alert needs. Active trips
// (fan steps) are left out to keep cardinality low. Trips at or below 0 °C are unset placeholders
// (x86_pkg_temp has two writable passive trips that read 0 until set; THERMAL_TEMP_INVALID is
// -274000), and trips above 250 °C are firmware fillers.
bool IsExportedTrip(TripType type, std::int64_t millicelsius);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_THERMAL_PARSE_H_
