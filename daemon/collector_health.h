// How the daemon tells people which collectors work: one start-up line that sums them up, a log
// line per change of health, and the JSON of GET /api/v1/collectors. A collector that found no
// hardware of its kind is not failing (collectors/collector_runner.h).

#ifndef EDGEMOND_DAEMON_COLLECTOR_HEALTH_H_
#define EDGEMOND_DAEMON_COLLECTOR_HEALTH_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collectors/collector_runner.h"

namespace edgemond::daemon {

// "collectors: cpu, memory read their hardware; thermal, hwmon found none; nvidia_gpu failing
// (see above); disabled: emc". Built-in collectors without a state are the disabled ones.
std::string CollectorSummary(const std::vector<collectors::CollectorState>& states);

// The log line of one change of a collector's health ("collector thermal recovered"). The daemon
// logs a change to kFailing as a warning, the others as information.
std::string DescribeCollectorEvent(const collectors::CollectorEvent& event);

// Every built-in collector in run order: {"collector", "state", "reason"}, state being one of
// CollectorHealthName()'s or "disabled", reason null unless no_hardware or failing.
nlohmann::json CollectorsToJson(const std::vector<collectors::CollectorState>& states);

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_COLLECTOR_HEALTH_H_
