#include "collectors/internal/sysfs_value.h"

#include <cerrno>
#include <cstring>

#include "core/text.h"

namespace edgemond::collectors::internal {

Result<std::int64_t> ParseSysfsInt(std::string_view text) {
  if (Trim(text).empty()) return Status::Unavailable("empty file");
  return ParseInt64(text);
}

std::string ErrnoName(int error_number) {
  switch (error_number) {
    case EPERM:
      return "EPERM";
    case ENOENT:
      return "ENOENT";
    case EINTR:
      return "EINTR";
    case EIO:
      return "EIO";
    case ENXIO:
      return "ENXIO";
    case EAGAIN:
      return "EAGAIN";
    case ENOMEM:
      return "ENOMEM";
    case EACCES:
      return "EACCES";
    case EFAULT:
      return "EFAULT";
    case EBUSY:
      return "EBUSY";
    case ENODEV:
      return "ENODEV";
    case ENOTDIR:
      return "ENOTDIR";
    case EISDIR:
      return "EISDIR";
    case EINVAL:
      return "EINVAL";
    case EMFILE:
      return "EMFILE";
    case ENFILE:
      return "ENFILE";
    case ERANGE:
      return "ERANGE";
    case ENODATA:
      return "ENODATA";
    case ETIME:
      return "ETIME";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
    case ETIMEDOUT:
      return "ETIMEDOUT";
    case EREMOTEIO:  // What I2C sensors return when the chip does not acknowledge.
      return "EREMOTEIO";
    case ESTALE:
      return "ESTALE";
    default:
      return "errno " + std::to_string(error_number);
  }
}

std::string MissingReasonFromStatus(const Status& status) {
  if (status.ok()) return std::string();
  if (status.IsPermissionDenied()) return std::string(kNeedsPrivilege);
  if (const int error_number = status.error_number(); error_number != 0) {
    std::string reason = ErrnoName(error_number);
    reason += ": ";
    reason += std::strerror(error_number);
    return reason;
  }
  // Errors we produced ourselves (parsing, size limits) carry no path, only what was wrong.
  return std::string(status.message());
}

Result<std::int64_t> ReadSysfsInt(PolledFile& file, std::string& buffer) {
  EDGEMOND_RETURN_IF_ERROR(file.ReadInto(buffer));
  return ParseSysfsInt(buffer);
}

Result<std::int64_t> ReadSysfsInt(TickFile& file, std::string& buffer) {
  EDGEMOND_RETURN_IF_ERROR(file.ReadInto(buffer));
  return ParseSysfsInt(buffer);
}

}  // namespace edgemond::collectors::internal
