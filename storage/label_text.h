// The text form in which the series catalog stores labels: `chip="coretemp",sensor="temp1"`,
// labels sorted by name, values escaped as in the Prometheus text format (\\, \", \n). It is
// exactly what sits between the braces of SeriesKey(), so a row of the `series` table reads the
// same in the sqlite3 shell as on /metrics, and the catalog key is `name{labels}`.

#ifndef EDGEMOND_STORAGE_LABEL_TEXT_H_
#define EDGEMOND_STORAGE_LABEL_TEXT_H_

#include <string>
#include <string_view>

#include "core/result.h"
#include "core/sample.h"
#include "core/status.h"

namespace edgemond::storage {

// Prometheus naming rules: metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names
// [a-zA-Z_][a-zA-Z0-9_]*. kInvalidArgument naming the offender otherwise.
Status ValidateMetricName(std::string_view name);
Status ValidateLabelName(std::string_view name);

// Sorts by name and rejects invalid or duplicated label names.
Result<Labels> CanonicalLabels(const Labels& labels);

// REQUIRES: `labels` is canonical (CanonicalLabels). "" for no labels.
std::string FormatLabelText(const Labels& labels);

// The inverse of FormatLabelText; kCorruption when `text` is not in that form.
Result<Labels> ParseLabelText(std::string_view text);

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_LABEL_TEXT_H_
