// Status: the result of an operation that returns no value.
//
// A Status is a cheap value: OK is a null pointer, so success costs nothing. An error carries a
// code, a human-readable message and, where the error came from the OS, the errno value.
// Library code returns Status and never logs above debug; the caller decides what to report.
//
// Thread safety: a Status is a value; distinct objects may be used from distinct threads.

#ifndef EDGEMOND_CORE_STATUS_H_
#define EDGEMOND_CORE_STATUS_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace edgemond {

enum class StatusCode {
  kOk = 0,
  kNotFound,            // The thing asked for does not exist (file, series, hardware).
  kInvalidArgument,     // The caller passed something malformed (config, query, model).
  kIoError,             // A read or write failed (EIO, ENODATA, short read).
  kCorruption,          // Data exists but does not parse (bad sysfs text, broken model).
  kUnsupported,         // Valid, but not implemented here (an ONNX op, a kernel feature).
  kUnavailable,         // Transient: busy or not answering (EAGAIN, ETIMEDOUT, EBUSY).
  kPermissionDenied,    // Needs privilege (EACCES, EPERM): debugfs, RAPL, some rails.
  kResourceExhausted,   // Out of memory, disk full (ENOSPC), limits hit.
  kFailedPrecondition,  // The system is not in a state that allows the operation.
  kDeadlineExceeded,    // Took longer than allowed.
  kInternal,            // A bug or an impossible state.
};

// Returns a stable lower_snake_case name ("not_found"), used in logs and JSON error bodies.
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;  // OK.
  Status(StatusCode code, std::string_view message, int error_number = 0);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;
  ~Status() = default;

  static Status Ok() { return Status(); }
  static Status NotFound(std::string_view message) { return {StatusCode::kNotFound, message}; }
  static Status InvalidArgument(std::string_view message) {
    return {StatusCode::kInvalidArgument, message};
  }
  static Status IoError(std::string_view message) { return {StatusCode::kIoError, message}; }
  static Status Corruption(std::string_view message) { return {StatusCode::kCorruption, message}; }
  static Status Unsupported(std::string_view message) {
    return {StatusCode::kUnsupported, message};
  }
  static Status Unavailable(std::string_view message) {
    return {StatusCode::kUnavailable, message};
  }
  static Status PermissionDenied(std::string_view message) {
    return {StatusCode::kPermissionDenied, message};
  }
  static Status ResourceExhausted(std::string_view message) {
    return {StatusCode::kResourceExhausted, message};
  }
  static Status FailedPrecondition(std::string_view message) {
    return {StatusCode::kFailedPrecondition, message};
  }
  static Status DeadlineExceeded(std::string_view message) {
    return {StatusCode::kDeadlineExceeded, message};
  }
  static Status Internal(std::string_view message) { return {StatusCode::kInternal, message}; }

  // Maps an errno value to a Status. This is the only place where errno is interpreted:
  // ENOENT/ENODEV/ENXIO -> kNotFound, EACCES/EPERM -> kPermissionDenied,
  // EAGAIN/EBUSY/ETIMEDOUT/EINTR -> kUnavailable, ENOSPC/ENOMEM/EMFILE/ENFILE/EDQUOT ->
  // kResourceExhausted, EINVAL -> kInvalidArgument, anything else -> kIoError.
  // The message reads "<context>: <strerror>".
  static Status FromErrno(int error_number, std::string_view context);

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return ok() ? StatusCode::kOk : state_->code; }
  // The message without the code name; empty for OK.
  std::string_view message() const;
  // errno when the error came from a system call, else 0.
  int error_number() const { return ok() ? 0 : state_->error_number; }

  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsInvalidArgument() const { return code() == StatusCode::kInvalidArgument; }
  bool IsPermissionDenied() const { return code() == StatusCode::kPermissionDenied; }
  bool IsUnavailable() const { return code() == StatusCode::kUnavailable; }
  bool IsUnsupported() const { return code() == StatusCode::kUnsupported; }

  // Returns a copy whose message is "<context>: <message>". OK stays OK.
  Status WithContext(std::string_view context) const;

  // "OK" or "<code name>: <message>".
  std::string ToString() const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }
  friend bool operator!=(const Status& a, const Status& b) { return !(a == b); }

 private:
  struct State {
    StatusCode code;
    int error_number;
    std::string message;
  };
  std::unique_ptr<State> state_;  // Null means OK.
};

std::ostream& operator<<(std::ostream& os, const Status& status);

}  // namespace edgemond

// Evaluates an expression that yields a Status and returns it from the enclosing function if it
// is not OK.
#define EDGEMOND_RETURN_IF_ERROR(expr)                  \
  do {                                                  \
    ::edgemond::Status edgemond_status_macro_ = (expr); \
    if (!edgemond_status_macro_.ok()) {                 \
      return edgemond_status_macro_;                    \
    }                                                   \
  } while (false)

#endif  // EDGEMOND_CORE_STATUS_H_
