// Fuzz target for edgemond-bench's --json report as the daemon reads it (selfbench/bench_output.h).
// The benchmark child runs the model, which is outside input, and may die mid-write: any text is a
// report, an error report, or kCorruption, and a refused report leaves the run's record as it
// was.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "selfbench/bench_output.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  edgemond::BenchmarkRun run;
  run.model = "m";
  run.peak_rss_bytes = 12345;
  edgemond::Result<edgemond::selfbench::BenchOutput> output =
      edgemond::selfbench::ParseBenchOutput(text, run);
  if (!output.ok()) {
    FUZZ_CHECK(output.status().code() == edgemond::StatusCode::kCorruption, "error code");
    FUZZ_CHECK(!output.status().message().empty(), "an error says what is wrong");
  }
  if (!output.ok() || output->error_code) {
    FUZZ_CHECK(run.model == "m" && run.peak_rss_bytes == 12345 && !run.runs.has_value(),
               "a refused report leaves the run unchanged");
  } else {
    FUZZ_CHECK(run.peak_rss_bytes == 12345, "the daemon's own peak RSS measurement stays");
  }
  return 0;
}
