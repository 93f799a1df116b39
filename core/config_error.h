// A problem in configuration text, located: which file, which line and which key. The config
// file, its drop-ins, the alert rule files and the model list all report errors in this form, so
// that every one reads "file:line: key: message".

#ifndef EDGEMOND_CORE_CONFIG_ERROR_H_
#define EDGEMOND_CORE_CONFIG_ERROR_H_

#include <string>

namespace edgemond {

struct ConfigError {
  std::string file;  // Empty for values that come from no file (a command-line flag).
  int line = 0;      // 1-based; 0 when not known.
  std::string key;   // Dotted path of the offending key ("http.listen", "rules.2.op"); empty for
                     // syntax errors.
  std::string message;

  // "edgemond.json:12: http.listen: listen address \"x\": missing port", leaving out what is
  // unknown.
  std::string ToString() const;
};

}  // namespace edgemond

#endif  // EDGEMOND_CORE_CONFIG_ERROR_H_
