// Interpreting hwmon attribute names and values (Documentation/hwmon/sysfs-interface.rst).
// Pure functions: which files are sensors, what their raw units are, which readings are not
// readings, and how a chip's device path becomes a stable id.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_HWMON_PARSE_H_
#define EDGEMOND_COLLECTORS_INTERNAL_HWMON_PARSE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace edgemond::collectors::internal {

// Sensor kinds with their raw units in sysfs.
enum class HwmonKind {
  kTemp,    // tempN_*: millidegrees Celsius
  kIn,      // inN_*: millivolts
  kCurr,    // currN_*: milliamperes
  kPower,   // powerN_*: microwatts
  kEnergy,  // energyN_input: microjoules, cumulative
  kFan,     // fanN_input: revolutions per minute
  kPwm,     // pwmN: duty cycle 0..255
};

// The part of an attribute name after the stem: temp1_input -> kInput; pwm1 -> kValue.
enum class HwmonItem { kInput, kAverage, kLabel, kCrit, kValue };

struct HwmonAttribute {
  HwmonKind kind;
  int index;  // The N in temp<N>_input; 0 is valid (in0).
  HwmonItem item;

  friend bool operator==(const HwmonAttribute&, const HwmonAttribute&) = default;
};

// Recognizes the attributes edgemond reads: <kind>N_input for every kind but pwm, powerN_average,
// <kind>N_label, tempN_crit, and pwmN. Everything else (limits, alarms, *_enable, intervals,
// non-standard files) is nullopt.
std::optional<HwmonAttribute> ParseHwmonAttributeName(std::string_view file_name);

std::string_view HwmonKindPrefix(HwmonKind kind);  // "temp", "in", ...

// The sensor stem that names a series: ("temp", 1) -> "temp1".
std::string HwmonStem(HwmonKind kind, int index);

// Multiplier from the raw sysfs value to the exported base unit (celsius, volts, amperes, watts,
// joules, rpm, ratio). Knows one driver that breaks the ABI: the INA3221 reports its shunt
// voltages in4..in6 and their sum in7 in microvolts, not millivolts (Documentation/hwmon/
// ina3221.rst).
double HwmonScale(std::string_view chip_name, HwmonKind kind, int index);

// Why a raw reading that parsed is not a reading, or nullopt when it is one: temperatures at or
// below absolute zero or above 2000 °C (the -273150 and 65261850 an NVMe drive reports for unset
// thresholds are the typical case), negative fan speeds or energy, duty cycles outside 0..255.
std::optional<std::string> HwmonValueProblem(HwmonKind kind, std::int64_t raw);

// The bus name in a device's `subsystem` link target: "../../../bus/pci" -> "pci". Empty when the
// device belongs to a class rather than a bus ("../../../../class/nvme").
std::string_view BusFromSubsystemTarget(std::string_view link_target);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_HWMON_PARSE_H_
