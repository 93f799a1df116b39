#include "alerts/journal_sink.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "alerts/message_ids.h"

namespace edgemond::alerts {
namespace {

AlertTransition Critical() {
  AlertTransition t;
  t.rule = "zone_critical";
  t.state = AlertState::kFiring;
  t.severity = AlertSeverity::kCritical;
  t.labels = {{"zone", "cpu-thermal"}, {"trip-type", "passive"}};
  t.rule_labels = {{"team", "ops"}, {"zone", "ignored: the series' label wins"}};
  t.value = 99.5;
  t.op = ">";
  t.threshold = 95;
  t.clear_threshold = 90;
  t.active_since = FromUnixMillis(1767225600000);
  t.at = t.active_since;
  t.reason = "threshold";
  t.annotations = {{"summary", "hot"}};
  return t;
}

bool Has(const std::vector<std::string>& fields, const std::string& field) {
  return std::find(fields.begin(), fields.end(), field) != fields.end();
}

TEST(JournalSinkTest, FieldsCarryTheAlertForJournalctl) {
  const auto fields = JournalSink::Fields(Critical());
  EXPECT_EQ(fields[0], "MESSAGE=" + FormatTransition(Critical()));
  EXPECT_TRUE(Has(fields, "MESSAGE_ID=" + std::string(kAlertFiringMessageId)));
  EXPECT_TRUE(Has(fields, "PRIORITY=2"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_ALERT=zone_critical"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_STATE=firing"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_SEVERITY=critical"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_VALUE=99.5"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_THRESHOLD=95"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_CLEAR_THRESHOLD=90"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_ACTIVE_SINCE_USEC=1767225600000000"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_LABEL_ZONE=cpu-thermal"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_LABEL_TRIP_TYPE=passive"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_LABEL_TEAM=ops"));
  EXPECT_TRUE(Has(fields, "EDGEMOND_ANNOTATION_SUMMARY=hot"));

  AlertTransition warning = Critical();
  warning.severity = AlertSeverity::kWarning;
  EXPECT_EQ(JournalSink::Priority(warning), 4);
  AlertTransition resolved = Critical();
  resolved.state = AlertState::kResolved;
  resolved.value.reset();
  resolved.reason = "no_data";
  const auto resolved_fields = JournalSink::Fields(resolved);
  EXPECT_TRUE(Has(resolved_fields, "PRIORITY=5"));
  EXPECT_TRUE(Has(resolved_fields, "MESSAGE_ID=" + std::string(kAlertResolvedMessageId)));
  EXPECT_TRUE(Has(resolved_fields, "EDGEMOND_THRESHOLD=90"));
  EXPECT_TRUE(Has(resolved_fields, "EDGEMOND_REASON=no_data"));
  EXPECT_EQ(std::count_if(resolved_fields.begin(), resolved_fields.end(),
                          [](const std::string& f) { return f.rfind("EDGEMOND_VALUE=", 0) == 0; }),
            0);
  EXPECT_EQ(JournalSink::FieldName("EDGEMOND_LABEL_", std::string(80, 'x')).size(), 64u);
}

// Runs JournalSink::Emit in a child process whose /run is a private tmpfs with a datagram socket
// at /run/systemd/journal/socket, the journal's native protocol address, and returns what
// arrived there. Needs a mount namespace (root or CAP_SYS_ADMIN); returns nullopt without one.
std::optional<std::string> EmitIntoPrivateJournal(const AlertTransition& transition) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return std::nullopt;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    if (::unshare(CLONE_NEWNS) != 0) ::_exit(77);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(77);
    if (::mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") != 0) ::_exit(77);
    ::mkdir("/run/systemd", 0755);
    ::mkdir("/run/systemd/journal", 0755);
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, "/run/systemd/journal/socket");
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) ::_exit(3);
    if (!JournalSink::JournalAvailable()) ::_exit(4);
    if (!JournalSink().Emit(transition).ok()) ::_exit(5);
    char buffer[65536];
    const ssize_t n = ::recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n <= 0) ::_exit(6);
    if (::write(pipe_fds[1], buffer, static_cast<std::size_t>(n)) != n) ::_exit(7);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string received;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof(buffer))) > 0;) {
    received.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) return std::nullopt;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  return received;
}

TEST(JournalSinkTest, SendsOneNativeProtocolEntryToTheJournalSocket) {
  const auto received = EmitIntoPrivateJournal(Critical());
  if (!received) GTEST_SKIP() << "needs a private mount namespace (run as root)";
  // The native protocol: one "FIELD=value\n" per field (no value here contains a newline).
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = received->find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(received->substr(start, end - start));
  }
  EXPECT_EQ(lines, JournalSink::Fields(Critical()));
}

}  // namespace
}  // namespace edgemond::alerts
