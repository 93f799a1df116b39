// Fuzz target for /proc/cpuinfo (collectors/internal/cpuinfo_parse.h): any text gives blocks of
// trimmed fields, and the model and architecture derived from them, without a crash; the fields of
// every block are found by Get.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/internal/cpuinfo_parse.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace internal = edgemond::collectors::internal;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto blocks = internal::ParseCpuinfo(text);
  for (const internal::CpuinfoBlock& block : blocks) {
    for (const auto& [key, value] : block.fields) {
      FUZZ_CHECK(block.Get(key).has_value(), "every field is found by its key");
      FUZZ_CHECK(key.find('\n') == std::string_view::npos, "a key is on one line");
      FUZZ_CHECK(value.find('\n') == std::string_view::npos, "a value is on one line");
    }
  }
  (void)internal::CpuModel(blocks);
  (void)internal::Architecture(blocks);
  return 0;
}
