// Parsing of the small text formats that /proc and /sys use: one number per file, range lists,
// whitespace-separated fields. Pure functions; no I/O.

#ifndef EDGEMOND_CORE_TEXT_H_
#define EDGEMOND_CORE_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace edgemond {

// Strips leading and trailing whitespace and NUL bytes (device-tree strings end in NUL).
std::string_view Trim(std::string_view text);

// Parses a whole trimmed string as a decimal integer / floating-point number. Trailing text is an
// error (kCorruption), so "45000 mC" does not parse; use FirstField() first where units follow.
Result<std::int64_t> ParseInt64(std::string_view text);
Result<std::uint64_t> ParseUint64(std::string_view text);
Result<double> ParseDouble(std::string_view text);

// The first whitespace-separated token ("850 ma\n" -> "850"); "" when there is none.
std::string_view FirstField(std::string_view text);

// Splits on runs of spaces and tabs; no empty fields.
std::vector<std::string_view> SplitFields(std::string_view text);

// Splits on '\n'; a trailing newline does not produce an empty last line.
std::vector<std::string_view> SplitLines(std::string_view text);

// Parses a kernel CPU list such as "0-3,5\n" into {0,1,2,3,5}. An empty list ("\n") is valid.
Result<std::vector<int>> ParseCpuList(std::string_view text);
// Same, into `cpus` (cleared first), reusing its capacity; on an error `cpus` holds a prefix.
Status ParseCpuListInto(std::string_view text, std::vector<int>& cpus);

bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);

}  // namespace edgemond

#endif  // EDGEMOND_CORE_TEXT_H_
