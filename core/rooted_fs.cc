#include "core/rooted_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "core/text.h"

namespace edgemond {
namespace {

// Strips leading slashes: device paths are absolute, but openat wants them relative to the root.
std::string_view Relative(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return path.empty() ? std::string_view(".") : path;
}

std::string DevicePath(std::string_view path) {
  std::string out;
  if (path.empty() || path.front() != '/') out.push_back('/');
  out.append(path);
  return out;
}

// Whether this kernel has openat2 with RESOLVE_IN_ROOT (Linux 5.6+).
bool HaveOpenat2() {
  static const bool have = [] {
    struct open_how how = {};
    how.flags = O_RDONLY | O_CLOEXEC | O_DIRECTORY;
    how.resolve = RESOLVE_IN_ROOT;
    const long fd = ::syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
    if (fd >= 0) {
      ::close(static_cast<int>(fd));
      return true;
    }
    return false;
  }();
  return have;
}

}  // namespace

Result<RootedFs> RootedFs::Open(const std::string& root, LinkResolution resolution) {
  if (root.empty()) return Status::InvalidArgument("root directory is empty");
  char resolved[PATH_MAX];
  if (::realpath(root.c_str(), resolved) == nullptr) {
    return Status::FromErrno(errno, "root directory " + root);
  }
  const int fd = ::open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "root directory " + root);
  std::string canonical(resolved);
  if (canonical == "/") canonical.clear();
  const bool use_openat2 = resolution == LinkResolution::kAuto && HaveOpenat2();
  return RootedFs(UniqueFd(fd), std::move(canonical), use_openat2);
}

int RootedFs::OpenRaw(std::string_view path, int flags) const {
  const std::string rel(Relative(path));
  long fd;
  if (root_.empty()) {
    fd = ::openat(root_fd_.get(), rel.c_str(), flags | O_CLOEXEC);
  } else if (use_openat2_) {
    struct open_how how = {};
    how.flags = static_cast<unsigned long long>(flags | O_CLOEXEC);
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    // openat2 returns EAGAIN when a concurrent rename raced the lookup; it asks for a retry and
    // says nothing about the device, so retry a bounded number of times.
    int attempts = 0;
    do {
      fd = ::syscall(SYS_openat2, root_fd_.get(), rel.c_str(), &how, sizeof(how));
    } while (fd < 0 && errno == EAGAIN && ++attempts < 3);
  } else {
    return OpenByWalking(rel, flags);
  }
  return fd < 0 ? -errno : static_cast<int>(fd);
}

namespace {

// Pushes the components of `path` onto `pending` so that the first component ends up on top.
void PushComponents(std::string_view path, std::vector<std::string>& pending) {
  std::size_t end = path.size();
  while (end > 0) {
    const std::size_t slash = path.rfind('/', end - 1);
    const std::size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
    const std::string_view name = path.substr(begin, end - begin);
    if (!name.empty() && name != ".") pending.emplace_back(name);
    if (slash == std::string_view::npos) break;
    end = slash;
  }
}

}  // namespace

int RootedFs::OpenByWalking(std::string_view path, int flags) const {
  // The kernel's own limit on links followed in one lookup.
  constexpr int kMaxLinks = 40;
  // Directories from below the root down to the current one: ".." pops one, never past the root,
  // and an absolute link target starts again from the root.
  std::vector<UniqueFd> dirs;
  const auto current = [&] { return dirs.empty() ? root_fd_.get() : dirs.back().get(); };
  std::vector<std::string> pending;
  PushComponents(path, pending);
  int links = 0;
  while (!pending.empty()) {
    const std::string name = std::move(pending.back());
    pending.pop_back();
    if (name == "..") {
      if (!dirs.empty()) dirs.pop_back();
      continue;
    }
    char target[PATH_MAX];
    const ssize_t n = ::readlinkat(current(), name.c_str(), target, sizeof(target));
    if (n >= 0) {
      if (static_cast<std::size_t>(n) == sizeof(target)) return -ENAMETOOLONG;
      if (++links > kMaxLinks) return -ELOOP;
      const std::string_view link(target, static_cast<std::size_t>(n));
      if (!link.empty() && link.front() == '/') dirs.clear();
      PushComponents(link, pending);
      continue;
    }
    if (errno != EINVAL) return -errno;  // EINVAL: it exists and is not a link.
    if (pending.empty()) {
      const int fd = ::openat(current(), name.c_str(), flags | O_CLOEXEC | O_NOFOLLOW);
      return fd < 0 ? -errno : fd;
    }
    const int fd = ::openat(current(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -errno;
    dirs.emplace_back(fd);
  }
  // The path ended in a link to a directory, in "..", or named the root itself.
  const int fd = ::openat(current(), ".", flags | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

Result<UniqueFd> RootedFs::OpenFile(std::string_view path, int flags) const {
  const int fd = OpenRaw(path, flags);
  if (fd < 0) return Status::FromErrno(-fd, DevicePath(path));
  return UniqueFd(fd);
}

namespace {

// How PreadAll knows it has read the whole file.
enum class FileEnd {
  // Only a read that returns nothing ends the file. seq_file-backed /proc files need this: one
  // that lists many records (/proc/vmstat) may return less than asked for before its end.
  kEmptyRead,
  // A read that returns less than asked for ends the file too, which saves a pread per poll.
  // Right for sysfs attributes, which the kernel serves whole to a read from offset 0, and for
  // regular files (a fixture tree).
  kShortRead,
};

// Reads from `fd` at offset 0 until the end (`file_end`) or `max_bytes`, into `out`. Most device
// files fit in one page, so the first read goes to a stack buffer: growing `out` first would
// zero-fill it, which costs more than the read itself.
Status PreadAll(int fd, std::size_t max_bytes, std::string_view path, std::string& out,
                FileEnd file_end = FileEnd::kEmptyRead) {
  char page[4096];
  // A single read per chunk, no retry on EAGAIN: broken drivers return EAGAIN forever.
  std::size_t wanted = std::min(sizeof(page), max_bytes);
  ssize_t n = ::pread(fd, page, wanted, 0);
  if (n < 0) {
    const int err = errno;
    out.clear();
    return Status::FromErrno(err, DevicePath(path));
  }
  out.assign(page, static_cast<std::size_t>(n));
  off_t offset = n;
  while (n > 0) {
    if (file_end == FileEnd::kShortRead && static_cast<std::size_t>(n) < wanted) break;
    if (out.size() >= max_bytes) {
      // Only an error if there is more to read.
      n = ::pread(fd, page, 1, offset);
      if (n == 0) return Status::Ok();
      out.clear();
      return Status::ResourceExhausted(DevicePath(path) + ": larger than " +
                                       std::to_string(max_bytes) + " bytes");
    }
    wanted = std::min(sizeof(page), max_bytes - out.size());
    n = ::pread(fd, page, wanted, offset);
    if (n < 0) {
      const int err = errno;
      out.clear();
      return Status::FromErrno(err, DevicePath(path));
    }
    out.append(page, static_cast<std::size_t>(n));
    offset += n;
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> RootedFs::ReadFile(std::string_view path, std::size_t max_bytes) const {
  const int fd = OpenRaw(path, O_RDONLY);
  if (fd < 0) return Status::FromErrno(-fd, DevicePath(path));
  UniqueFd owned(fd);
  std::string out;
  // As for PolledFile: outside /proc, a short read ends the file (sysfs attributes, regular files).
  const FileEnd file_end =
      StartsWith(Relative(path), "proc/") ? FileEnd::kEmptyRead : FileEnd::kShortRead;
  EDGEMOND_RETURN_IF_ERROR(PreadAll(owned.get(), max_bytes, path, out, file_end));
  return out;
}

Result<std::vector<std::string>> RootedFs::ListDir(std::string_view path) const {
  const int fd = OpenRaw(path, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return Status::FromErrno(-fd, DevicePath(path));
  DIR* dir = ::fdopendir(fd);  // Takes ownership of fd.
  if (dir == nullptr) {
    const int err = errno;
    ::close(fd);
    return Status::FromErrno(err, DevicePath(path));
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name(entry->d_name);
    if (name != "." && name != "..") names.emplace_back(name);
  }
  const int err = errno;
  ::closedir(dir);
  if (err != 0) return Status::FromErrno(err, DevicePath(path));
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> RootedFs::RealPath(std::string_view path) const {
  const int fd = OpenRaw(path, O_PATH);
  if (fd < 0) return Status::FromErrno(-fd, DevicePath(path));
  UniqueFd owned(fd);
  const std::string proc_link = "/proc/self/fd/" + std::to_string(fd);
  char target[PATH_MAX];
  const ssize_t n = ::readlink(proc_link.c_str(), target, sizeof(target) - 1);
  if (n < 0) return Status::FromErrno(errno, "resolving " + DevicePath(path));
  std::string host(target, static_cast<std::size_t>(n));
  if (root_.empty()) return host;
  if (host == root_) return std::string("/");
  if (host.size() > root_.size() && host.compare(0, root_.size(), root_) == 0 &&
      host[root_.size()] == '/') {
    return host.substr(root_.size());
  }
  return Status::InvalidArgument(DevicePath(path) + " resolves outside the root (" + host + ")");
}

Result<std::string> RootedFs::ReadLink(std::string_view path) const {
  const std::string rel(Relative(path));
  const std::size_t slash = rel.rfind('/');
  // Open the parent inside the root, then read the link itself without following it.
  UniqueFd parent;
  std::string leaf = rel;
  if (slash != std::string::npos) {
    const int fd = OpenRaw(rel.substr(0, slash), O_PATH | O_DIRECTORY);
    if (fd < 0) return Status::FromErrno(-fd, DevicePath(path));
    parent.reset(fd);
    leaf = rel.substr(slash + 1);
  }
  char target[PATH_MAX];
  const ssize_t n = ::readlinkat(parent.valid() ? parent.get() : root_fd_.get(), leaf.c_str(),
                                 target, sizeof(target) - 1);
  if (n < 0) return Status::FromErrno(errno, DevicePath(path));
  return std::string(target, static_cast<std::size_t>(n));
}

bool RootedFs::Exists(std::string_view path) const {
  const int fd = OpenRaw(path, O_PATH);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

bool RootedFs::IsDirectory(std::string_view path) const {
  const int fd = OpenRaw(path, O_PATH | O_DIRECTORY);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

PolledFile::PolledFile(const RootedFs& fs, std::string path)
    : fs_(&fs), path_(std::move(path)), read_to_empty_(StartsWith(path_, "/proc/")) {}

Result<std::string> PolledFile::Read() {
  std::string out;
  EDGEMOND_RETURN_IF_ERROR(ReadInto(out));
  return out;
}

Status PolledFile::ReadInto(std::string& out) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!fd_.valid()) {
      EDGEMOND_ASSIGN_OR_RETURN(fd_, fs_->OpenFile(path_, O_RDONLY));
    }
    // Everything polled outside /proc is a sysfs attribute (or a regular file).
    const FileEnd file_end = read_to_empty_ ? FileEnd::kEmptyRead : FileEnd::kShortRead;
    Status status = PreadAll(fd_.get(), RootedFs::kDefaultMaxBytes, path_, out, file_end);
    if (status.ok()) return status;
    const int err = status.error_number();
    if (err == ENODEV || err == ENOENT || err == ENXIO || err == ESTALE) {
      fd_.reset();  // The device went away under the open fd: reopen once.
      if (attempt == 0) continue;
    }
    return status;
  }
  return Status::Internal("unreachable");
}

}  // namespace edgemond
