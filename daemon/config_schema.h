// The configuration schema: one row per key. Internal to daemon/.

#ifndef EDGEMOND_DAEMON_CONFIG_SCHEMA_H_
#define EDGEMOND_DAEMON_CONFIG_SCHEMA_H_

#include <span>
#include <string>
#include <string_view>

#include "daemon/config.h"

namespace edgemond::daemon {

enum class FieldKind { kString, kUint32, kDouble, kBool, kStringList, kAlertRules, kModels };

struct FieldSpec {
  std::string_view key;  // Dotted path: "http.listen".
  FieldKind kind;
  void* (*field)(Config&);  // The member this key sets.
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
};

struct SectionSpec {
  std::string_view key;
  std::string_view help;
};

std::span<const FieldSpec> ConfigSchema();
std::span<const SectionSpec> ConfigSections();

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_CONFIG_SCHEMA_H_
