// ReloadPlan: what a configuration reload (SIGHUP) changes, decided from the running and the new
// configuration alone, so that Daemon::ApplyConfig only carries it out and the decision is
// unit-tested. Sections are compared through the schema (ConfigToJson), so a key added to a
// section is compared too.

#ifndef EDGEMOND_DAEMON_RELOAD_PLAN_H_
#define EDGEMOND_DAEMON_RELOAD_PLAN_H_

#include <cstddef>
#include <vector>

#include "daemon/config.h"

namespace edgemond::daemon {

struct ReloadPlan {
  // The configuration to put in force: the new one, with the running value of every key that
  // needs a restart.
  Config next;
  std::vector<RestartPending> kept;  // Those keys, where the new value differed.

  bool log_level = false;       // Set the log level.
  bool interval = false;        // Reschedule the collection from now.
  bool collectors = false;      // Rebuild the collectors (if the new selection is valid).
  bool flush_interval = false;  // Next flush one new interval from now.
  bool http = false;            // Serve with the new HTTP settings...
  bool http_listen = false;     // ... on a new address (unless socket-activated).
  bool alert_sink = false;      // Send transitions to the new sink.

  // The alert rules, by name: new ones, ones whose definition differs (SameDefinition), and
  // running ones that are gone.
  std::size_t rules_added = 0;
  std::size_t rules_changed = 0;
  std::size_t rules_removed = 0;
};

ReloadPlan PlanReload(const Config& running, Config next);

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_RELOAD_PLAN_H_
