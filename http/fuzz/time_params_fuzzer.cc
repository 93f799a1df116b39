// Fuzz target for the API's time parameters (`from`, `to`, `step`; http/time_params.h): any text
// is a time or a positive duration, or kInvalidArgument with a message. A time given in Unix
// seconds or relative to now lands where it says, whatever "now" is.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/time_params.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"

namespace edgemond::http {
namespace {

void CheckError(const Status& status) {
  FUZZ_CHECK(status.code() == StatusCode::kInvalidArgument, "error code");
  FUZZ_CHECK(!status.message().empty(), "an error says what is wrong");
}

void Check(std::int64_t now_ms, std::string_view text) {
  Result<std::int64_t> time = ParseTimeMillis(text, now_ms);
  if (!time.ok()) CheckError(time.status());
  if (text == "now") FUZZ_CHECK(time.ok() && *time == now_ms, "now is now");
  // The same text an hour later is an hour later when relative, the same time otherwise.
  Result<std::int64_t> later = ParseTimeMillis(text, now_ms + 3'600'000);
  FUZZ_CHECK(later.ok() == time.ok(), "whether a time parses does not depend on now");
  if (time.ok()) {
    const std::int64_t moved = *later - *time;
    FUZZ_CHECK(moved == 0 || moved == 3'600'000, "a relative time moves with now");
  }

  Result<std::int64_t> duration = ParseDurationMillis(text);
  if (duration.ok()) {
    FUZZ_CHECK(*duration > 0, "a duration is positive");
  } else {
    CheckError(duration.status());
  }
}

}  // namespace
}  // namespace edgemond::http

// The first 8 bytes are "now" (within ±2^40 ms of 2026, so that relative times cannot overflow
// on their own); the rest is the parameter's text.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = edgemond::fuzz::SplitNumberAndText(data, size);
  if (!input) return 0;
  edgemond::http::Check(1'767'225'600'000 + input->number % (std::int64_t{1} << 40), input->text);
  return 0;
}
