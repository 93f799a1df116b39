// Fuzz target for the thermal zone files (collectors/internal/thermal_parse.h): zone types, mode
// files, trip point names and types, and temperatures. Any text and any millidegree value give
// an answer; a temperature is a reading or has a reason, and a trip index is -1 or a number.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/internal/thermal_parse.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace internal = edgemond::collectors::internal;
  const auto input = edgemond::fuzz::SplitNumberAndText(data, size);
  if (!input) return 0;
  const std::int64_t millicelsius = input->number;
  const std::string_view text = input->text;
  const auto problem = internal::ZoneTemperatureProblem(millicelsius);
  const bool plausible = millicelsius >= internal::kMinZoneMillicelsius &&
                         millicelsius <= internal::kMaxZoneMillicelsius &&
                         millicelsius != internal::kBpmpOfflineMillicelsius;
  FUZZ_CHECK(problem.has_value() != plausible, "a temperature is a reading or has a reason");
  if (problem) FUZZ_CHECK(!problem->empty(), "a reason is not empty");
  (void)internal::IsPlaceholderZone(text);
  (void)internal::ZoneEnabled(text);
  FUZZ_CHECK(internal::TripIndexFromTypeFile(text) >= -1, "a trip index");
  const internal::TripType type = internal::ParseTripType(text);
  FUZZ_CHECK(!internal::TripTypeName(type).empty(), "a trip type has a name");
  (void)internal::IsExportedTrip(type, millicelsius);
  return 0;
}
