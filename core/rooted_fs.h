// RootedFs: a read-only view of the device's files below a root directory.
//
// Every read of device state (/proc, /sys, /etc/nv_tegra_release, ...) goes through a RootedFs,
// so tests point edgemond at fixture trees laid out exactly like real devices. Paths are written
// as they are on the device ("/sys/class/thermal"); the leading slash is optional. Symbolic links
// are resolved inside the root, absolute ones included (/proc/device-tree -> /sys/firmware/...),
// using openat2(RESOLVE_IN_ROOT) where the kernel has it and a walk of the path one component at a
// time otherwise (kernels before 5.6, such as JetPack 4's 4.9, where a containerised edgemond may
// read the host through --root /host).
//
// The string "/sys" appears only in configuration: this class knows nothing about sysfs.
//
// Thread safety: all methods are const and may be called concurrently.

#ifndef EDGEMOND_CORE_ROOTED_FS_H_
#define EDGEMOND_CORE_ROOTED_FS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"

namespace edgemond {

class RootedFs final {
 public:
  // Reads of device files stop at this size unless the caller asks for more; sysfs attributes
  // are at most one page, /proc/stat on many-core machines is tens of KiB.
  static constexpr std::size_t kDefaultMaxBytes = 1 << 20;

  // How symbolic links below the root are resolved. kAuto uses openat2(RESOLVE_IN_ROOT) where the
  // kernel has it and walks the path in user space otherwise; kUserspaceWalk always walks, which
  // lets tests cover old kernels on new ones. Both give the same answers.
  enum class LinkResolution { kAuto, kUserspaceWalk };

  // Opens `root`, which must be an existing directory.
  static Result<RootedFs> Open(const std::string& root,
                               LinkResolution resolution = LinkResolution::kAuto);

  RootedFs(RootedFs&&) noexcept = default;
  RootedFs& operator=(RootedFs&&) noexcept = default;

  // The canonical host path of the root, without a trailing slash ("" for "/").
  const std::string& root() const { return root_; }

  // Reads a whole file. Errors map through Status::FromErrno and name the device path. Below
  // /proc, only an empty read ends the file (seq_files may return less before their end);
  // elsewhere a short read does, which saves a pread per sysfs attribute.
  Result<std::string> ReadFile(std::string_view path,
                               std::size_t max_bytes = kDefaultMaxBytes) const;

  // Names in a directory, sorted, without "." and "..".
  Result<std::vector<std::string>> ListDir(std::string_view path) const;

  // Opens a file or directory below the root (O_CLOEXEC is always added).
  Result<UniqueFd> OpenFile(std::string_view path, int flags) const;

  // The device path (starting with "/") that `path` resolves to, all links followed inside the
  // root: RealPath("/sys/class/hwmon/hwmon2") == "/sys/devices/platform/coretemp.0/hwmon/hwmon2".
  Result<std::string> RealPath(std::string_view path) const;

  // The target of a symbolic link, as stored in the link.
  Result<std::string> ReadLink(std::string_view path) const;

  bool Exists(std::string_view path) const;
  bool IsDirectory(std::string_view path) const;

 private:
  RootedFs(UniqueFd root_fd, std::string root, bool use_openat2)
      : root_fd_(std::move(root_fd)), root_(std::move(root)), use_openat2_(use_openat2) {}

  int OpenRaw(std::string_view path, int flags) const;  // Returns fd or -errno.
  // Resolves `path` below the root one component at a time, following links inside the root.
  int OpenByWalking(std::string_view path, int flags) const;  // Returns fd or -errno.

  UniqueFd root_fd_;  // Constant after construction.
  std::string root_;  // Constant after construction.
  bool use_openat2_;  // Constant after construction.
};

// A device file kept open and re-read from offset 0 with pread on every poll, which is how
// sysfs attributes and seq_file-backed /proc files are meant to be polled cheaply.
// If the device went away (ENODEV, ENOENT, ENXIO) the next Read() reopens the path once.
class PolledFile final {
 public:
  PolledFile(const RootedFs& fs, std::string path);

  // The file's whole content (up to RootedFs::kDefaultMaxBytes).
  Result<std::string> Read();
  // Same, into `out`, reusing its capacity.
  Status ReadInto(std::string& out);

  const std::string& path() const { return path_; }

 private:
  const RootedFs* fs_;  // Not owned; outlives this object.
  std::string path_;
  // Whether only an empty read ends the file (/proc's seq_files) rather than a short one (sysfs
  // attributes, regular files). Decided once: comparing the path on every read costs a cache miss.
  bool read_to_empty_;
  UniqueFd fd_;
};

}  // namespace edgemond

#endif  // EDGEMOND_CORE_ROOTED_FS_H_
