#include "storage/damaged_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string_view>

#include "core/unique_fd.h"

namespace edgemond::storage {
namespace {

constexpr std::string_view kSqliteHeader("SQLite format 3\0", 16);

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

std::string UtcStamp(WallTime now) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(
      std::chrono::time_point_cast<std::chrono::system_clock::duration>(now));
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

Status RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return Status(StatusCode::kIoError,
                  "storage: cannot move " + from + " to " + to + ": " + std::strerror(errno),
                  errno);
  }
  return Status::Ok();
}

}  // namespace

bool HasSqliteHeader(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  char header[16];
  return ::pread(fd.get(), header, sizeof(header), 0) == static_cast<ssize_t>(sizeof(header)) &&
         std::string_view(header, sizeof(header)) == kSqliteHeader;
}

Result<std::string> MoveDamagedAside(const std::string& path, WallTime now) {
  const std::string stem = path + ".damaged-" + UtcStamp(now);
  std::string target = stem;
  for (int n = 2; Exists(target) || Exists(target + "-wal"); ++n) {
    target = stem + "-" + std::to_string(n);
  }
  // The WAL first: a database file moved without its WAL would be opened later with none.
  if (Exists(path + "-wal")) EDGEMOND_RETURN_IF_ERROR(RenameFile(path + "-wal", target + "-wal"));
  EDGEMOND_RETURN_IF_ERROR(RenameFile(path, target));
  ::unlink((path + "-shm").c_str());
  return target;
}

}  // namespace edgemond::storage
