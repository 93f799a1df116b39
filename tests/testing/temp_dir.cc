#include "tests/testing/temp_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace edgemond::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/edgemond-test-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << pattern;
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  // Make read-protected test files removable again before deleting.
  for (auto it = fs::recursive_directory_iterator(path_, ignored);
       it != fs::recursive_directory_iterator(); it.increment(ignored)) {
    if (!it->is_symlink())
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ignored);
  }
  fs::remove_all(path_, ignored);
}

std::string TempDir::Join(std::string_view relative) const {
  std::string out = path_;
  if (!relative.empty() && relative.front() != '/') out.push_back('/');
  out.append(relative);
  return out;
}

void FakeSysfs::Write(std::string_view relative, std::string_view content, int mode) const {
  const fs::path file = Join(relative);
  fs::create_directories(file.parent_path());
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    ASSERT_TRUE(out.good()) << "writing " << file;
  }
  ASSERT_EQ(::chmod(file.c_str(), static_cast<mode_t>(mode)), 0) << file;
}

void FakeSysfs::Mkdir(std::string_view relative) const { fs::create_directories(Join(relative)); }

void FakeSysfs::Symlink(std::string_view relative, std::string_view target) const {
  const fs::path link = Join(relative);
  fs::create_directories(link.parent_path());
  std::error_code ignored;
  fs::remove(link, ignored);
  fs::create_symlink(fs::path(std::string(target)), link);
}

void FakeSysfs::Remove(std::string_view relative) const {
  std::error_code ignored;
  fs::remove_all(Join(relative), ignored);
}

void FakeSysfs::CopyTree(const std::string& from, std::string_view relative) const {
  const fs::path to = Join(relative);
  fs::create_directories(to);
  fs::copy(from, to,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks |
               fs::copy_options::overwrite_existing);
}

std::string SourceDir() { return EDGEMOND_SOURCE_DIR; }

std::string FixturePath(std::string_view name) {
  return SourceDir() + "/tests/fixtures/" + std::string(name);
}

}  // namespace edgemond::testing
