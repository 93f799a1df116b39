// Result<T>: either a value of type T or a non-OK Status (modelled on absl::StatusOr).
//
// Functions that can fail and produce a value return Result<T>; constructors never fail, so
// fallible construction goes through `static Result<std::unique_ptr<T>> Create(...)` or
// `static Result<T> Open(...)`.
//
//   EDGEMOND_ASSIGN_OR_RETURN(auto db, sqlite::Database::Open(path));
//
// Accessing value() of an error Result is a programmer error and aborts.

#ifndef EDGEMOND_CORE_RESULT_H_
#define EDGEMOND_CORE_RESULT_H_

#include <cstdlib>
#include <optional>
#include <type_traits>
#include <utility>

#include "core/status.h"

namespace edgemond {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::decay_t<T>, Status>, "use Status directly");

 public:
  // Implicit from a value or from an error status, so `return value;` and `return status;` both
  // work inside a function returning Result<T>.
  Result(const T& value) : value_(value) {}             // NOLINT(runtime/explicit)
  Result(T&& value) : value_(std::move(value)) {}       // NOLINT(runtime/explicit)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(runtime/explicit)
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK status");
  }
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, T> &&
                                                    !std::is_same_v<std::decay_t<U>, Status> &&
                                                    !std::is_same_v<std::decay_t<U>, Result<T>>>>
  Result(U&& value) : value_(std::forward<U>(value)) {}  // NOLINT(runtime/explicit)

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & {
    CheckOk();
    return *value_;
  }
  const T& value() const& {
    CheckOk();
    return *value_;
  }
  T&& value() && {
    CheckOk();
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The value, or `fallback` when this holds an error.
  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void CheckOk() const {
    if (!value_.has_value()) std::abort();  // Programmer error: value() of an error Result.
  }

  Status status_;  // OK whenever value_ holds a value.
  std::optional<T> value_;
};

}  // namespace edgemond

#define EDGEMOND_INTERNAL_CONCAT_(a, b) a##b
#define EDGEMOND_INTERNAL_CONCAT(a, b) EDGEMOND_INTERNAL_CONCAT_(a, b)
#define EDGEMOND_INTERNAL_ASSIGN_OR_RETURN(tmp, lhs, expr) \
  auto tmp = (expr);                                       \
  if (!tmp.ok()) return tmp.status();                      \
  lhs = std::move(tmp).value()

// Evaluates `expr` (a Result<T>); on error returns its Status from the enclosing function,
// otherwise move-assigns the value to `lhs`, which may be a declaration (`auto x`).
#define EDGEMOND_ASSIGN_OR_RETURN(lhs, expr)                                                     \
  EDGEMOND_INTERNAL_ASSIGN_OR_RETURN(EDGEMOND_INTERNAL_CONCAT(edgemond_result_macro_, __LINE__), \
                                     lhs, expr)

#endif  // EDGEMOND_CORE_RESULT_H_
