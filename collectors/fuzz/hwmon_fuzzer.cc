// Fuzz target for the hwmon names and readings (collectors/internal/hwmon_parse.h). A driver
// chooses its attribute names, its chip name and its values: any attribute name is recognized
// or not, a recognized one starts with its stem, every scale is finite, and any raw value is a
// reading or has a problem.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/internal/hwmon_parse.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace internal = edgemond::collectors::internal;
  const auto input = edgemond::fuzz::SplitNumberAndText(data, size);
  if (!input) return 0;
  const std::int64_t raw = input->number;
  const std::string_view text = input->text;
  if (const auto attribute = internal::ParseHwmonAttributeName(text)) {
    FUZZ_CHECK(attribute->index >= 0, "a sensor index");
    FUZZ_CHECK(text.starts_with(internal::HwmonStem(attribute->kind, attribute->index)) ||
                   text.starts_with(internal::HwmonKindPrefix(attribute->kind)),
               "an attribute starts with its kind");
  }
  for (const internal::HwmonKind kind :
       {internal::HwmonKind::kTemp, internal::HwmonKind::kIn, internal::HwmonKind::kCurr,
        internal::HwmonKind::kPower, internal::HwmonKind::kEnergy, internal::HwmonKind::kFan,
        internal::HwmonKind::kPwm}) {
    const int index = static_cast<int>(raw & 0xff);
    FUZZ_CHECK(std::isfinite(internal::HwmonScale(text, kind, index)), "a finite scale");
    (void)internal::HwmonValueProblem(kind, raw);
  }
  const std::string_view bus = internal::BusFromSubsystemTarget(text);
  FUZZ_CHECK(bus.find('/') == std::string_view::npos, "a bus name has no slash");
  return 0;
}
