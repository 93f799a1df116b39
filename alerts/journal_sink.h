// JournalSink: alert transitions as structured journal entries (sd_journal_sendv), one entry per
// transition:
//
//   MESSAGE=alert thermal_zone_hot{zone="cpu-thermal"} FIRING (warning): value 86.4 > 85 ...
//   MESSAGE_ID=<alerts/message_ids.h: one id per event kind>
//   PRIORITY=4 (firing warning) | 2 (firing critical) | 5 (resolved)
//   SYSLOG_IDENTIFIER=edgemond
//   EDGEMOND_ALERT=thermal_zone_hot      EDGEMOND_STATE=firing|resolved
//   EDGEMOND_SEVERITY=warning|critical   EDGEMOND_REASON=threshold|cleared|no_data|...
//   EDGEMOND_VALUE=86.4 (absent when data was missing)
//   EDGEMOND_THRESHOLD=85 (the trigger when firing, the clear threshold when resolved)
//   EDGEMOND_TRIGGER_THRESHOLD=85  EDGEMOND_CLEAR_THRESHOLD=80  EDGEMOND_OP=>
//   EDGEMOND_ACTIVE_SINCE_USEC=<realtime µs when the condition was first met>
//   EDGEMOND_LABEL_<NAME>=<value> for each series label, then each rule label the series lacks
//   EDGEMOND_ANNOTATION_<NAME>=<rendered text> for each annotation
//
// Label and annotation names become journal field names: upper-cased, anything but A-Z, 0-9 and
// '_' replaced by '_', cut to the journal's 64-character limit.
//
// Thread safety: Emit() may be called from any thread (sd_journal_sendv is thread-safe).

#ifndef EDGEMOND_ALERTS_JOURNAL_SINK_H_
#define EDGEMOND_ALERTS_JOURNAL_SINK_H_

#include <string>
#include <vector>

#include "alerts/alert_sink.h"

namespace edgemond::alerts {

class JournalSink final : public AlertSink {
 public:
  Status Emit(const AlertTransition& transition) override;

  // The journal fields of a transition, in the order they are sent ("FIELD=value").
  static std::vector<std::string> Fields(const AlertTransition& transition);

  // The syslog priority of a transition: 4 warning, 2 critical, 5 resolved.
  static int Priority(const AlertTransition& transition);

  // "zone" -> "EDGEMOND_LABEL_ZONE".
  static std::string FieldName(std::string_view prefix, std::string_view name);

  // Whether the journal's socket is there to write to (/run/systemd/journal/socket).
  static bool JournalAvailable();
};

// Sends each transition to `primary`; when that fails, to `fallback`, returning the primary's
// error so the caller can report it. Both are borrowed and must outlive this object.
class FallbackSink final : public AlertSink {
 public:
  FallbackSink(AlertSink& primary, AlertSink& fallback) : primary_(primary), fallback_(fallback) {}
  Status Emit(const AlertTransition& transition) override;

 private:
  AlertSink& primary_;
  AlertSink& fallback_;
};

}  // namespace edgemond::alerts

#endif  // EDGEMOND_ALERTS_JOURNAL_SINK_H_
