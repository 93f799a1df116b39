// Logging setup. Only daemon/ logs (parts return errors); spdlog writes to stderr, which the
// journal captures under systemd. When stderr is the journal (JOURNAL_STREAM matches it), lines
// carry syslog priority prefixes ("<4>") so journalctl shows their level, and no timestamps.

#ifndef EDGEMOND_DAEMON_LOGGING_H_
#define EDGEMOND_DAEMON_LOGGING_H_

#include <string_view>

namespace edgemond::daemon {

// Installs the default logger at `level` ("trace" .. "off"; unknown levels mean "info").
void SetupLogging(std::string_view level);

// Changes the level of the installed logger (configuration reload).
void SetLogLevel(std::string_view level);

// Whether stderr is connected to the systemd journal.
bool StderrIsJournal();

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_LOGGING_H_
