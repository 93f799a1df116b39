// The configuration schema: one row per key. Internal to daemon/.

#ifndef EDGEMOND_DAEMON_CONFIG_SCHEMA_H_
#define EDGEMOND_DAEMON_CONFIG_SCHEMA_H_

#include <span>
#include <string>
#include <string_view>

#include "daemon/config.h"

namespace edgemond::daemon {

enum class FieldKind { kString, kUint32, kDouble, kBool, kStringList, kAlertRules, kModels };

// Whether a key's new value applies on reload (SIGHUP), or only once edgemond restarts: the
// running value is kept until then, and the reload says so.
inline constexpr bool kNeedsRestart = true;
inline constexpr bool kLive = false;

struct FieldSpec {
  std::string_view key;  // Dotted path: "http.listen".
  FieldKind kind;
  bool needs_restart;       // kNeedsRestart or kLive.
  void* (*field)(Config&);  // The member this key sets; null for a collector's switch.
  std::string_view help;    // One or two sentences; becomes the comment in edgemond.json.
  double min = 0;           // Inclusive bounds for numbers (ignored for other kinds).
  double max = 0;
  // Extra validation of the value as set; returns an error message, or "" when fine.
  std::string (*check)(const Config&) = nullptr;
  std::string_view flag = {};  // The command-line flag that sets this key, if any.
  // For --help, when there is a flag: what its value is ("DIR") and what it does, in one line
  // without the default (the help adds the compiled default).
  std::string_view flag_value = {};
  std::string_view flag_help = {};
  // For the switch of a built-in collector ("collectors.cpu"), the collector's name: these rows
  // come from the collectors' own table (collectors/builtin_collectors.h).
  std::string_view collector = {};
};

struct SectionSpec {
  std::string_view key;
  std::string_view help;
};

// Every key, in the order edgemond.json and --help list them.
std::span<const FieldSpec> ConfigSchema();
// The value `spec` sets in `config`, of the type its kind says.
void* FieldAddress(const FieldSpec& spec, Config& config);
std::span<const SectionSpec> ConfigSections();

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_CONFIG_SCHEMA_H_
