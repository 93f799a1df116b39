// Fuzz target for /proc/stat (collectors/internal/proc_stat_parse.h): any text gives the CPU
// lines with the aggregate first, or kCorruption; a second parse into the same, reused vector
// gives the same answer (the collector reuses it every tick).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "collectors/internal/proc_stat_parse.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using edgemond::collectors::internal::CpuTimes;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<CpuTimes> times;
  const edgemond::Status status = edgemond::collectors::internal::ParseProcStat(text, times);
  if (!status.ok()) {
    FUZZ_CHECK(status.code() == edgemond::StatusCode::kCorruption, "error code");
    FUZZ_CHECK(!status.message().empty(), "an error says what is wrong");
  } else {
    FUZZ_CHECK(!times.empty() && times[0].cpu == CpuTimes::kAggregate, "the aggregate comes first");
    for (std::size_t i = 1; i < times.size(); ++i) {
      FUZZ_CHECK(times[i].cpu > times[i - 1].cpu, "CPU numbers ascend: one value per series");
    }
  }
  std::vector<CpuTimes> again = times;
  const edgemond::Status second = edgemond::collectors::internal::ParseProcStat(text, again);
  FUZZ_CHECK(second.ok() == status.ok() && (!status.ok() || again == times),
             "parsing into a reused vector gives the same answer");
  return 0;
}
