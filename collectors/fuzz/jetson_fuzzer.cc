// Fuzz target for the Jetson files (collectors/internal/jetson_parse.h): /etc/nv_tegra_release,
// /var/lib/nvpmodel/status, /etc/nvpmodel.conf and the ina3221x limit files. Any text gives an
// answer or none, never a crash: a broken nvpmodel.conf yields the modes it can (jtop crashed on
// one), and an L4T release that parses has the shape "R.M.P".

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "collectors/internal/jetson_parse.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace internal = edgemond::collectors::internal;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto release = internal::ParseL4tRelease(text)) {
    FUZZ_CHECK(std::count(release->begin(), release->end(), '.') == 2, "an L4T release is R.M.P");
    (void)internal::JetPackForL4t(*release);
  }
  if (const auto mode = internal::ParseNvpmodelStatus(text)) FUZZ_CHECK(*mode >= 0, "a mode id");
  const internal::NvpmodelConf conf = internal::ParseNvpmodelConf(text);
  for (const internal::NvpmodelMode& mode : conf.modes) {
    FUZZ_CHECK(conf.NameOf(mode.id).has_value(), "every mode has its name");
  }
  for (const std::string_view unit : {"ma", "mw"}) {
    const auto value = internal::ParseValueWithUnit(text, unit);
    if (!value.ok()) FUZZ_CHECK(!value.status().message().empty(), "an error says what is wrong");
  }
  return 0;
}
