// TempDir: a directory that exists for the life of the object, for real files in tests.
// FakeSysfs: builds a small device tree in a TempDir to pin one edge case, in the manner of
// node_exporter's buildFakeSysfs: fs.Write("sys/class/hwmon/hwmon3/in1_input", "5040\n").

#ifndef EDGEMOND_TESTS_TESTING_TEMP_DIR_H_
#define EDGEMOND_TESTS_TESTING_TEMP_DIR_H_

#include <string>
#include <string_view>

namespace edgemond::testing {

class TempDir {
 public:
  TempDir();   // Creates a fresh directory under $TMPDIR (or /tmp).
  ~TempDir();  // Removes it recursively.
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + relative.
  std::string Join(std::string_view relative) const;

 private:
  std::string path_;
};

class FakeSysfs : public TempDir {
 public:
  // Writes a file, creating parent directories. `mode` applies to the file.
  void Write(std::string_view relative, std::string_view content, int mode = 0644) const;
  void Mkdir(std::string_view relative) const;
  // Creates a symbolic link at `relative` whose target is `target`, stored verbatim.
  void Symlink(std::string_view relative, std::string_view target) const;
  void Remove(std::string_view relative) const;  // File, link or whole directory.
  // Copies a directory tree (e.g. a checked-in fixture) into this one, links preserved.
  void CopyTree(const std::string& from, std::string_view relative = "") const;
};

// The repository root (for fixture paths), from the build system.
std::string SourceDir();
// A checked-in fixture tree: SourceDir() + "/tests/fixtures/" + name.
std::string FixturePath(std::string_view name);

}  // namespace edgemond::testing

#endif  // EDGEMOND_TESTS_TESTING_TEMP_DIR_H_
