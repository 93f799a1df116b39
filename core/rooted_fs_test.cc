#include "core/rooted_fs.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/testing/temp_dir.h"

namespace edgemond {
namespace {

using testing::FakeSysfs;

TEST(RootedFsTest, ReadsFilesBelowTheRoot) {
  FakeSysfs fs;
  fs.Write("sys/class/thermal/thermal_zone0/temp", "45000\n");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->ReadFile("/sys/class/thermal/thermal_zone0/temp").value(), "45000\n");
  EXPECT_EQ(root->ReadFile("sys/class/thermal/thermal_zone0/temp").value(), "45000\n");
}

TEST(RootedFsTest, MissingRootIsAClearError) {
  auto root = RootedFs::Open("/nonexistent/edgemond/root");
  ASSERT_FALSE(root.ok());
  EXPECT_TRUE(root.status().IsNotFound());
  EXPECT_NE(root.status().message().find("/nonexistent/edgemond/root"), std::string::npos);
}

TEST(RootedFsTest, ErrorsNameTheDevicePathNotTheHostPath) {
  FakeSysfs fs;
  fs.Mkdir("sys");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  const auto missing = root->ReadFile("/sys/missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_EQ(missing.status().message().find(fs.path()), std::string::npos);
  EXPECT_NE(missing.status().message().find("/sys/missing"), std::string::npos);
}

TEST(RootedFsTest, ListsDirectoriesSorted) {
  FakeSysfs fs;
  fs.Write("sys/class/hwmon/hwmon2/name", "b\n");
  fs.Write("sys/class/hwmon/hwmon10/name", "c\n");
  fs.Write("sys/class/hwmon/hwmon0/name", "a\n");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  const auto names = root->ListDir("/sys/class/hwmon");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"hwmon0", "hwmon10", "hwmon2"}));
}

TEST(RootedFsTest, ResolvesRelativeLinksInsideTheRoot) {
  FakeSysfs fs;
  fs.Write("sys/devices/platform/coretemp.0/hwmon/hwmon2/name", "coretemp\n");
  fs.Symlink("sys/class/hwmon/hwmon2", "../../devices/platform/coretemp.0/hwmon/hwmon2");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->ReadFile("/sys/class/hwmon/hwmon2/name").value(), "coretemp\n");
  EXPECT_EQ(root->RealPath("/sys/class/hwmon/hwmon2").value(),
            "/sys/devices/platform/coretemp.0/hwmon/hwmon2");
  EXPECT_EQ(root->ReadLink("/sys/class/hwmon/hwmon2").value(),
            "../../devices/platform/coretemp.0/hwmon/hwmon2");
}

TEST(RootedFsTest, AbsoluteLinksStayInsideTheRoot) {
  FakeSysfs fs;
  fs.Write("sys/firmware/devicetree/base/model", std::string("NVIDIA Jetson\0", 14));
  fs.Symlink("proc/device-tree", "/sys/firmware/devicetree/base");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  const auto model = root->ReadFile("/proc/device-tree/model");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(*model, std::string("NVIDIA Jetson\0", 14));
}

TEST(RootedFsTest, UnreadableFileIsPermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads mode-0000 files";
  FakeSysfs fs;
  fs.Write("sys/class/powercap/intel-rapl:0/energy_uj", "1\n", 0000);
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  EXPECT_TRUE(
      root->ReadFile("/sys/class/powercap/intel-rapl:0/energy_uj").status().IsPermissionDenied());
}

TEST(RootedFsTest, LargeFilesAreReadToTheEnd) {
  FakeSysfs fs;
  std::string big(50000, 'x');
  big += "end\n";
  fs.Write("proc/stat", big);
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->ReadFile("/proc/stat").value(), big);
  EXPECT_EQ(root->ReadFile("/proc/stat", 1000).status().code(), StatusCode::kResourceExhausted);
}

TEST(PolledFileTest, RereadsTheSameFdAndReopensAfterTheFileIsReplaced) {
  FakeSysfs fs;
  fs.Write("sys/class/hwmon/hwmon0/temp1_input", "40000\n");
  auto root = RootedFs::Open(fs.path());
  ASSERT_TRUE(root.ok());
  PolledFile file(*root, "/sys/class/hwmon/hwmon0/temp1_input");
  EXPECT_EQ(file.Read().value(), "40000\n");
  // Rewriting in place is what a sensor update looks like through one open fd.
  fs.Write("sys/class/hwmon/hwmon0/temp1_input", "41000\n");
  EXPECT_EQ(file.Read().value(), "41000\n");
  fs.Remove("sys/class/hwmon/hwmon0");
  // The old fd still reads the unlinked inode; a vanished device shows up as ENODEV on sysfs.
  // What matters here is that a missing path is reported, not hidden, once it is reopened.
  PolledFile gone(*root, "/sys/class/hwmon/hwmon0/temp1_input");
  EXPECT_TRUE(gone.Read().status().IsNotFound());
}

}  // namespace
}  // namespace edgemond
