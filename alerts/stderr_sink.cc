#include "alerts/stderr_sink.h"

#include <cerrno>
#include <ctime>

namespace edgemond::alerts {

Status StderrSink::Emit(const AlertTransition& transition) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(transition.at.time_since_epoch())
          .count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  char stamp[40];
  const std::size_t n = std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
  std::snprintf(stamp + n, sizeof(stamp) - n, ".%03lld ", static_cast<long long>(ms % 1000));
  const std::string line = stamp + FormatTransition(transition) + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t r = ::write(fd_, line.data() + written, line.size() - written);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "writing an alert line");
    }
    written += static_cast<std::size_t>(r);
  }
  return Status::Ok();
}

}  // namespace edgemond::alerts
