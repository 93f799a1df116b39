// Fuzz target for the configuration (daemon/config.h): the main file, JSON with comments, then one
// conf.d drop-in over it, as LoadConfigFile applies them. The input is the main file's text, then
// a NUL byte and the drop-in's text (none when there is no NUL). Any text gives a configuration
// or an error naming the file that has the problem, and the line of the key it names; a
// configuration that loads passes validation, and its effective JSON (what `edgemond
// --print-config` shows) loads back to the same configuration.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "daemon/config.h"
#include "tests/fuzz/config_error_check.h"
#include "tests/fuzz/fuzz_check.h"

namespace edgemond::daemon {
namespace {

constexpr const char* kMain = "/etc/edgemond/edgemond.json";
constexpr const char* kDropIn = "/etc/edgemond/conf.d/50-fuzz.json";

// Parses `text` from `file` over `base`, checking the error if there is one.
std::variant<Config, ConfigError> Load(std::string_view text, const char* file, Config base) {
  auto parsed = ParseConfig(text, file, std::move(base));
  if (const auto* error = std::get_if<ConfigError>(&parsed))
    fuzz::CheckConfigError(*error, file, text);
  return parsed;
}

void Check(std::string_view main_text, std::optional<std::string_view> drop_in) {
  auto config = Load(main_text, kMain, Config());
  if (std::holds_alternative<ConfigError>(config)) return;
  if (drop_in) {
    config = Load(*drop_in, kDropIn, std::get<Config>(std::move(config)));
    if (std::holds_alternative<ConfigError>(config)) return;
  }
  const Config& loaded = std::get<Config>(config);
  const std::optional<ConfigError> invalid = ValidateConfig(loaded);
  FUZZ_CHECK(!invalid.has_value(), "a configuration that loads is valid");
  const nlohmann::ordered_json effective = ConfigToJson(loaded);
  auto again = ParseConfig(effective.dump(2), kMain);
  FUZZ_CHECK(std::holds_alternative<Config>(again), "the effective configuration loads");
  FUZZ_CHECK(ConfigToJson(std::get<Config>(again)) == effective,
             "the effective configuration loads back to the same");
}

}  // namespace
}  // namespace edgemond::daemon

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  if (nul == std::string_view::npos) {
    edgemond::daemon::Check(input, std::nullopt);
  } else {
    edgemond::daemon::Check(input.substr(0, nul), input.substr(nul + 1));
  }
  return 0;
}
