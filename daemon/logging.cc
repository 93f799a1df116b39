#include "daemon/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace edgemond::daemon {
namespace {

spdlog::level::level_enum ParseLevel(std::string_view level) {
  const auto parsed = spdlog::level::from_str(std::string(level));
  // from_str maps unknown names to "off"; the config has already validated the name.
  return parsed == spdlog::level::off && level != "off" ? spdlog::level::info : parsed;
}

// Maps spdlog levels to the kernel/syslog priority prefix that journald understands.
class JournalPrefixFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm& /*tm*/,
              spdlog::memory_buf_t& dest) override {
    char prefix = '6';
    switch (msg.level) {
      case spdlog::level::trace:
      case spdlog::level::debug:
        prefix = '7';
        break;
      case spdlog::level::info:
        prefix = '6';
        break;
      case spdlog::level::warn:
        prefix = '4';
        break;
      case spdlog::level::err:
        prefix = '3';
        break;
      case spdlog::level::critical:
        prefix = '2';
        break;
      default:
        break;
    }
    const char text[3] = {'<', prefix, '>'};
    dest.append(text, text + 3);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JournalPrefixFlag>();
  }
};

}  // namespace

bool StderrIsJournal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return false;
  unsigned long long device = 0, inode = 0;
  if (std::sscanf(stream, "%llu:%llu", &device, &inode) != 2) return false;
  return device == st.st_dev && inode == st.st_ino;
}

void SetupLogging(std::string_view level) {
  auto logger = spdlog::stderr_logger_mt("edgemond");
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  if (StderrIsJournal()) {
    formatter->add_flag<JournalPrefixFlag>('*').set_pattern("%*%v");
  } else {
    formatter->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
  }
  logger->set_formatter(std::move(formatter));
  logger->set_level(ParseLevel(level));
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
}

void SetLogLevel(std::string_view level) { spdlog::default_logger()->set_level(ParseLevel(level)); }

}  // namespace edgemond::daemon
