// CheckConfigError: what every configuration error must say, whatever text caused it (the
// config file, its drop-ins, alert rule files): the file, what is wrong, a line inside the file,
// and for an error about a key, that key's line. Shared by the fuzz targets of those parsers.

#ifndef EDGEMOND_TESTS_FUZZ_CONFIG_ERROR_CHECK_H_
#define EDGEMOND_TESTS_FUZZ_CONFIG_ERROR_CHECK_H_

#include <algorithm>
#include <string_view>

#include "core/config_error.h"
#include "tests/fuzz/fuzz_check.h"

namespace edgemond::fuzz {

inline void CheckConfigError(const ConfigError& error, std::string_view file,
                             std::string_view text) {
  FUZZ_CHECK(error.file == file, "an error names the file");
  FUZZ_CHECK(!error.message.empty(), "an error says what is wrong");
  const auto lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  FUZZ_CHECK(error.line >= 0 && error.line <= lines, "an error's line is in the file");
  if (!error.key.empty()) FUZZ_CHECK(error.line > 0, "an error about a key names its line");
}

}  // namespace edgemond::fuzz

#endif  // EDGEMOND_TESTS_FUZZ_CONFIG_ERROR_CHECK_H_
