#include "collectors/internal/sysfs_value.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace edgemond::collectors::internal {
namespace {

TEST(ParseSysfsIntTest, ParsesOneNumberAttributes) {
  EXPECT_EQ(ParseSysfsInt("45000\n").value(), 45000);
  EXPECT_EQ(ParseSysfsInt("-256000\n").value(), -256000);
  EXPECT_EQ(ParseSysfsInt("  7 \n").value(), 7);
  EXPECT_EQ(ParseSysfsInt(std::string("12\0", 3)).value(), 12);
}

TEST(ParseSysfsIntTest, EmptyFileIsUnavailableNotZero) {
  const auto empty = ParseSysfsInt("");
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(empty.status().IsUnavailable());
  EXPECT_EQ(MissingReasonFromStatus(empty.status()), "empty file");
  EXPECT_TRUE(ParseSysfsInt("\n").status().IsUnavailable());
}

TEST(ParseSysfsIntTest, TextIsCorruption) {
  const auto text = ParseSysfsInt("N/A\n");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(MissingReasonFromStatus(text.status()), "not a number: \"N/A\"");
}

TEST(MissingReasonTest, NamesTheErrnoAndDropsTheHostPath) {
  EXPECT_EQ(MissingReasonFromStatus(Status::FromErrno(EAGAIN, "/tmp/x/sys/class/thermal/temp")),
            "EAGAIN: Resource temporarily unavailable");
  EXPECT_EQ(MissingReasonFromStatus(Status::FromErrno(EIO, "/sys/class/hwmon/hwmon1/in1_input")),
            "EIO: Input/output error");
  EXPECT_EQ(MissingReasonFromStatus(Status::FromErrno(ENODATA, "temp")),
            "ENODATA: No data available");
  EXPECT_EQ(MissingReasonFromStatus(Status::FromErrno(EINVAL, "temp")), "EINVAL: Invalid argument");
  EXPECT_EQ(MissingReasonFromStatus(Status::FromErrno(EISDIR, "temp")), "EISDIR: Is a directory");
  EXPECT_EQ(MissingReasonFromStatus(Status::Ok()), "");
}

TEST(MissingReasonTest, RootOnlyFilesNeedPrivilege) {
  // debugfs, RAPL energy_uj (mode 0400), some JetPack 4 rail files: the value exists.
  EXPECT_EQ(MissingReasonFromStatus(Status::FromErrno(EACCES, "energy_uj")), "needs privilege");
  EXPECT_EQ(MissingReasonFromStatus(Status::FromErrno(EPERM, "clk_rate")), "needs privilege");
}

TEST(MissingReasonTest, UnknownErrnoIsStillNamed) {
  EXPECT_EQ(ErrnoName(EAGAIN), "EAGAIN");
  EXPECT_EQ(ErrnoName(4095), "errno 4095");
}

}  // namespace
}  // namespace edgemond::collectors::internal
