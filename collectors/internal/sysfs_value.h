// Turning what a sysfs or procfs read produced into a value or into the reason it has none.
//
// Every collector reads one-number attributes ("45000\n") and has to say, for each one that fails,
// why it has no value. These are the only functions that do either, so the reasons stored next to
// missing samples read the same whatever collector produced them. Pure functions; no I/O.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_SYSFS_VALUE_H_
#define EDGEMOND_COLLECTORS_INTERNAL_SYSFS_VALUE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "collectors/internal/tick_files.h"
#include "core/result.h"
#include "core/rooted_fs.h"

namespace edgemond::collectors::internal {

// Parses a one-number attribute: optional blanks, a decimal integer, optional blanks or NULs.
// An empty attribute (some drivers return "" or "\n" while the sensor has no data) is
// kUnavailable with the message "empty file"; anything else that is not a number is kCorruption.
Result<std::int64_t> ParseSysfsInt(std::string_view text);

// The symbolic name of an errno value ("EAGAIN"), or "errno <n>" for one not in the table.
std::string ErrnoName(int error_number);

// The reason for a file that only root may read (debugfs, RAPL energy_uj, some Jetson rails):
// the value exists, edgemond lacks the privilege to see it.
inline constexpr std::string_view kNeedsPrivilege = "needs privilege";

// The reason stored with a missing sample when a read or a parse failed. Short and stable, so
// that a dashboard can group by it, and free of host paths:
//   EACCES or EPERM          -> "needs privilege"
//   EAGAIN from a read       -> "EAGAIN: Resource temporarily unavailable"
//   EIO                      -> "EIO: Input/output error"
//   ENODATA                  -> "ENODATA: No data available"
//   an empty file            -> "empty file"
//   text that is not a number -> "not a number: \"abc\""
// OK yields "" (there is no reason).
std::string MissingReasonFromStatus(const Status& status);

// Reads a one-number attribute through a kept-open file (one pread) and parses it; `buffer` is
// reused between calls to avoid an allocation per read.
Result<std::int64_t> ReadSysfsInt(PolledFile& file, std::string& buffer);
Result<std::int64_t> ReadSysfsInt(TickFile& file, std::string& buffer);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_SYSFS_VALUE_H_
