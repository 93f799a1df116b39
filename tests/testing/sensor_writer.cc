#include "tests/testing/sensor_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace edgemond::testing {
namespace {

// Wide enough for any value a test writes; leading blanks are valid in a sysfs attribute.
constexpr int kWidth = 15;

}  // namespace

void SensorWriter::Add(const std::string& path, Value value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::ftruncate(fd, kWidth + 1), 0) << path;
  files_.push_back(File{fd, std::move(value)});
}

void SensorWriter::WriteAll(double seconds) {
  for (const File& file : files_) {
    char text[kWidth + 2];
    std::snprintf(text, sizeof(text), "%*lld\n", kWidth,
                  static_cast<long long>(file.value(seconds)));
    // One write of the whole attribute at offset 0: a reader sees the old or the new number.
    if (::pwrite(file.fd, text, kWidth + 1, 0) != kWidth + 1) ADD_FAILURE() << "pwrite failed";
  }
}

void SensorWriter::Start() {
  start_ = std::chrono::system_clock::now();
  steady_start_ = std::chrono::steady_clock::now();
  WriteAll(0);
  thread_ = std::thread([this] {
    auto next = steady_start_;
    while (!stop_.load()) {
      next += period_;
      std::this_thread::sleep_until(next);
      WriteAll(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - steady_start_).count());
    }
  });
}

void SensorWriter::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  for (const File& file : files_) ::close(file.fd);
  files_.clear();
}

std::string ResolveInTree(const std::string& root, const std::string& relative) {
  namespace fs = std::filesystem;
  fs::path path = fs::path(root);
  for (const fs::path& part : fs::path(relative)) {
    if (part.empty() || part == "/") continue;
    path /= part;
    for (int hops = 0; hops < 40 && fs::is_symlink(path); ++hops) {
      const fs::path target = fs::read_symlink(path);
      path = target.is_absolute() ? fs::path(root) / target.relative_path()
                                  : (path.parent_path() / target).lexically_normal();
    }
  }
  return path.string();
}

}  // namespace edgemond::testing
