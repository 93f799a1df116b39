#include "alerts/journal_sink.h"

#include <sys/socket.h>
#include <sys/uio.h>
// No CODE_FILE/CODE_LINE/CODE_FUNC fields: they would name our source tree, not the alert.
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <systemd/sd-journal.h>
#include <unistd.h>

#include <algorithm>

#include "alerts/message_ids.h"
#include "alerts/rule.h"

namespace edgemond::alerts {

int JournalSink::Priority(const AlertTransition& transition) {
  if (transition.state != AlertState::kFiring) return 5;           // LOG_NOTICE
  return transition.severity == AlertSeverity::kCritical ? 2 : 4;  // LOG_CRIT : LOG_WARNING
}

std::string JournalSink::FieldName(std::string_view prefix, std::string_view name) {
  std::string field(prefix);
  for (const char c : name) {
    if (c >= 'a' && c <= 'z') {
      field.push_back(static_cast<char>(c - 'a' + 'A'));
    } else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
      field.push_back(c);
    } else {
      field.push_back('_');
    }
  }
  if (field.size() > 64) field.resize(64);
  return field;
}

std::vector<std::string> JournalSink::Fields(const AlertTransition& transition) {
  const bool firing = transition.state == AlertState::kFiring;
  std::vector<std::string> fields;
  fields.push_back("MESSAGE=" + FormatTransition(transition));
  fields.push_back("MESSAGE_ID=" +
                   std::string(firing ? kAlertFiringMessageId : kAlertResolvedMessageId));
  fields.push_back("PRIORITY=" + std::to_string(Priority(transition)));
  fields.push_back("SYSLOG_IDENTIFIER=edgemond");
  fields.push_back("EDGEMOND_ALERT=" + transition.rule);
  fields.push_back("EDGEMOND_STATE=" + std::string(AlertStateName(transition.state)));
  fields.push_back("EDGEMOND_SEVERITY=" + std::string(AlertSeverityName(transition.severity)));
  fields.push_back("EDGEMOND_REASON=" + transition.reason);
  if (transition.value) fields.push_back("EDGEMOND_VALUE=" + FormatNumber(*transition.value));
  fields.push_back("EDGEMOND_THRESHOLD=" +
                   FormatNumber(firing ? transition.threshold : transition.clear_threshold));
  fields.push_back("EDGEMOND_TRIGGER_THRESHOLD=" + FormatNumber(transition.threshold));
  fields.push_back("EDGEMOND_CLEAR_THRESHOLD=" + FormatNumber(transition.clear_threshold));
  fields.push_back("EDGEMOND_OP=" + transition.op);
  fields.push_back("EDGEMOND_ACTIVE_SINCE_USEC=" +
                   std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(
                                      transition.active_since.time_since_epoch())
                                      .count()));
  std::vector<std::string> label_fields;
  const auto add_label = [&](const Label& label) {
    std::string name = FieldName("EDGEMOND_LABEL_", label.name);
    if (std::find(label_fields.begin(), label_fields.end(), name) != label_fields.end()) return;
    label_fields.push_back(name);
    fields.push_back(name + "=" + label.value);
  };
  for (const Label& label : transition.labels) add_label(label);
  for (const Label& label : transition.rule_labels) add_label(label);
  for (const Label& annotation : transition.annotations) {
    fields.push_back(FieldName("EDGEMOND_ANNOTATION_", annotation.name) + "=" + annotation.value);
  }
  return fields;
}

Status JournalSink::Emit(const AlertTransition& transition) {
  const std::vector<std::string> fields = Fields(transition);
  std::vector<iovec> iov;
  iov.reserve(fields.size());
  for (const std::string& field : fields) {
    iov.push_back(iovec{const_cast<char*>(field.data()), field.size()});
  }
  const int r = sd_journal_sendv(iov.data(), static_cast<int>(iov.size()));
  if (r < 0) return Status::FromErrno(-r, "sending an alert to the journal");
  return Status::Ok();
}

bool JournalSink::JournalAvailable() { return ::access("/run/systemd/journal/socket", W_OK) == 0; }

Status FallbackSink::Emit(const AlertTransition& transition) {
  Status status = primary_.Emit(transition);
  if (!status.ok()) (void)fallback_.Emit(transition);
  return status;
}

}  // namespace edgemond::alerts
