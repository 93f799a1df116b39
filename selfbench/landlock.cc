#include "selfbench/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace edgemond::selfbench {
namespace {

// The kernel's UAPI (linux/landlock.h), spelled out here because Debian 12's kernel headers
// (6.1) stop at ABI 2 and the kernel this runs on may be newer: the struct grows with the ABI and
// the kernel reads as much of it as the size passed says.
struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4.
  std::uint64_t scoped;              // ABI 6.
};

constexpr std::uint32_t kCreateRulesetVersion = 1U << 0;

// File-system rights, each by the ABI that added it.
constexpr std::uint64_t kWriteFile = 1ULL << 1;
constexpr std::uint64_t kRemoveDir = 1ULL << 4;
constexpr std::uint64_t kRemoveFile = 1ULL << 5;
constexpr std::uint64_t kMakeChar = 1ULL << 6;
constexpr std::uint64_t kMakeDir = 1ULL << 7;
constexpr std::uint64_t kMakeReg = 1ULL << 8;
constexpr std::uint64_t kMakeSock = 1ULL << 9;
constexpr std::uint64_t kMakeFifo = 1ULL << 10;
constexpr std::uint64_t kMakeBlock = 1ULL << 11;
constexpr std::uint64_t kMakeSym = 1ULL << 12;
constexpr std::uint64_t kRefer = 1ULL << 13;                   // ABI 2.
constexpr std::uint64_t kTruncate = 1ULL << 14;                // ABI 3.
constexpr std::uint64_t kNetBindTcp = 1ULL << 0;               // ABI 4.
constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;            // ABI 4.
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6.
constexpr std::uint64_t kScopeSignal = 1ULL << 1;              // ABI 6.

}  // namespace

#ifdef SYS_landlock_create_ruleset

int LandlockAbi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

int ConfineToReadOnly(int abi) {
  RulesetAttr attr = {};
  attr.handled_access_fs = kWriteFile | kRemoveDir | kRemoveFile | kMakeChar | kMakeDir | kMakeReg |
                           kMakeSock | kMakeFifo | kMakeBlock | kMakeSym;
  if (abi >= 2) attr.handled_access_fs |= kRefer;
  if (abi >= 3) attr.handled_access_fs |= kTruncate;
  std::size_t size = sizeof(attr.handled_access_fs);
  if (abi >= 4) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    size += sizeof(attr.handled_access_net);
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    size += sizeof(attr.scoped);
  }
  // No rule grants any of these rights back: they are denied everywhere.
  const long ruleset = ::syscall(SYS_landlock_create_ruleset, &attr, size, 0U);
  if (ruleset < 0) return errno;
  const int fd = static_cast<int>(ruleset);
  int error = 0;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::syscall(SYS_landlock_restrict_self, fd, 0U) != 0) {
    error = errno;
  }
  ::close(fd);
  return error;
}

#else  // Headers older than Linux 5.13: no Landlock system calls to make.

int LandlockAbi() { return 0; }
int ConfineToReadOnly(int) { return ENOSYS; }

#endif

}  // namespace edgemond::selfbench
