// Fuzz target for /proc/meminfo (collectors/internal/meminfo_parse.h): any text gives the known
// keys or kCorruption, and the available memory, estimated or reported, never exceeds MemTotal.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/internal/meminfo_parse.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace internal = edgemond::collectors::internal;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  edgemond::Result<internal::Meminfo> meminfo = internal::ParseMeminfo(text);
  if (!meminfo.ok()) {
    FUZZ_CHECK(meminfo.status().code() == edgemond::StatusCode::kCorruption, "error code");
    FUZZ_CHECK(!meminfo.status().message().empty(), "an error says what is wrong");
    return 0;
  }
  const auto available = internal::AvailableKib(*meminfo);
  FUZZ_CHECK(available.has_value() ==
                 (meminfo->mem_available_kib.has_value() || meminfo->mem_free_kib.has_value()),
             "available memory is known exactly when MemAvailable or MemFree is");
  if (available && meminfo->mem_total_kib) {
    FUZZ_CHECK(*available <= *meminfo->mem_total_kib, "available memory within MemTotal");
  }
  return 0;
}
