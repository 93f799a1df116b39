#include "core/status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>

#include "core/result.h"

namespace edgemond {
namespace {

TEST(StatusTest, DefaultIsOkAndCostsNoAllocation) {
  Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOk);
  EXPECT_EQ(status.message(), "");
  EXPECT_EQ(status.ToString(), "OK");
  EXPECT_EQ(sizeof(Status), sizeof(void*));
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  const Status status = Status::NotFound("/sys/class/thermal");
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(status.IsNotFound());
  EXPECT_EQ(status.ToString(), "not_found: /sys/class/thermal");
}

TEST(StatusTest, CopiesAreIndependent) {
  Status a = Status::IoError("first");
  Status b = a;
  a = Status::Ok();
  EXPECT_TRUE(a.ok());
  EXPECT_EQ(b.message(), "first");
}

TEST(StatusTest, FromErrnoMapsEveryClassOfError) {
  EXPECT_EQ(Status::FromErrno(ENOENT, "x").code(), StatusCode::kNotFound);
  EXPECT_EQ(Status::FromErrno(ENODEV, "x").code(), StatusCode::kNotFound);
  EXPECT_EQ(Status::FromErrno(EACCES, "x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Status::FromErrno(EPERM, "x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Status::FromErrno(EAGAIN, "x").code(), StatusCode::kUnavailable);
  EXPECT_EQ(Status::FromErrno(ENOSPC, "x").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(Status::FromErrno(EINVAL, "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Status::FromErrno(EIO, "x").code(), StatusCode::kIoError);
  EXPECT_EQ(Status::FromErrno(ENODATA, "x").code(), StatusCode::kIoError);
  const Status status = Status::FromErrno(EAGAIN, "/sys/class/thermal/thermal_zone4/temp");
  EXPECT_EQ(status.error_number(), EAGAIN);
  EXPECT_EQ(status.message(),
            "/sys/class/thermal/thermal_zone4/temp: Resource temporarily unavailable");
}

TEST(StatusTest, WithContextPrefixesTheMessage) {
  EXPECT_EQ(Status::Corruption("bad").WithContext("model.onnx").ToString(),
            "corruption: model.onnx: bad");
  EXPECT_TRUE(Status::Ok().WithContext("ignored").ok());
}

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  EDGEMOND_ASSIGN_OR_RETURN(const int half, Half(x));
  EDGEMOND_ASSIGN_OR_RETURN(const int quarter, Half(half));
  return quarter;
}

Status CheckEven(int x) {
  EDGEMOND_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(ResultTest, HoldsValueOrError) {
  EXPECT_EQ(Quarter(8).value(), 2);
  EXPECT_TRUE(Quarter(6).status().IsInvalidArgument());
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_FALSE(CheckEven(3).ok());
  EXPECT_EQ(Half(3).value_or(-1), -1);
}

TEST(ResultTest, HoldsMoveOnlyTypes) {
  Result<std::unique_ptr<int>> result = std::make_unique<int>(7);
  ASSERT_TRUE(result.ok());
  std::unique_ptr<int> owned = std::move(result).value();
  EXPECT_EQ(*owned, 7);
}

TEST(ResultTest, AnOkStatusIsNotAValue) {
  Result<int> result = Status::Ok();
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace edgemond
