// Fuzz target for one-number sysfs attributes (collectors/internal/sysfs_value.h), what nearly
// every sensor read goes through: any text is a number, kUnavailable (empty), or kCorruption,
// and a missing value's reason is one line of printable ASCII (it ends up in JSON and labels).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "collectors/internal/sysfs_value.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace internal = edgemond::collectors::internal;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const edgemond::Result<std::int64_t> value = internal::ParseSysfsInt(text);
  if (value.ok()) {
    const edgemond::Result<std::int64_t> again = internal::ParseSysfsInt(std::to_string(*value));
    FUZZ_CHECK(again.ok() && *again == *value, "a number written back parses the same");
    FUZZ_CHECK(internal::MissingReasonFromStatus(value.status()).empty(), "no reason when OK");
    return 0;
  }
  const edgemond::StatusCode code = value.status().code();
  FUZZ_CHECK(
      code == edgemond::StatusCode::kUnavailable || code == edgemond::StatusCode::kCorruption,
      "error code");
  const std::string reason = internal::MissingReasonFromStatus(value.status());
  FUZZ_CHECK(!reason.empty(), "a reason");
  for (const char c : reason) {
    FUZZ_CHECK(c >= 0x20 && c < 0x7f, "a reason is one line of printable ASCII");
  }
  if (size >= 4) {
    int error_number;
    __builtin_memcpy(&error_number, data, sizeof(error_number));
    FUZZ_CHECK(!internal::ErrnoName(error_number).empty(), "every errno has a name");
  }
  return 0;
}
