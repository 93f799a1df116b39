#include "selfbench/bench_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "selfbench/landlock.h"

extern char** environ;

namespace edgemond::selfbench {
namespace {

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Result<Pipe> MakePipe(int flags) {
  int fds[2];
  if (::pipe2(fds, flags) != 0) return Status::FromErrno(errno, "pipe2");
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Only async-signal-safe calls from here on: the parent may have other threads.
[[noreturn]] void ChildAfterFork(char* const* argv, int out_fd, int err_fd, int report_fd,
                                 const BenchLimits& limits, int max_fd) {
  const auto fail = [report_fd](int error) {
    const int value = error;
    (void)!::write(report_fd, &value, sizeof(value));
    ::_exit(127);
  };
  if (::setpgid(0, 0) != 0) fail(errno);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(errno);
  // Privileges granted to the daemon to read sensors (an ambient CAP_DAC_READ_SEARCH) are not
  // the benchmark's. Kernels before 4.3 have no ambient set: nothing to clear there.
  (void)::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  sigset_t none;
  sigemptyset(&none);
  if (::sigprocmask(SIG_SETMASK, &none, nullptr) != 0) fail(errno);
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  (void)::sigaction(SIGPIPE, &default_action, nullptr);

  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0) fail(errno);
  if (::dup2(null_fd, STDIN_FILENO) < 0 || ::dup2(out_fd, STDOUT_FILENO) < 0 ||
      ::dup2(err_fd, STDERR_FILENO) < 0) {
    fail(errno);
  }
  // Everything else goes (the report pipe is close-on-exec and closes at exec). close_range()
  // needs Linux 5.9; older kernels (JetPack 4 and 5) get the loop.
  bool closed = false;
#ifdef SYS_close_range
  closed = ::syscall(SYS_close_range, STDERR_FILENO + 1, report_fd - 1, 0) == 0 &&
           ::syscall(SYS_close_range, report_fd + 1, ~0U, 0) == 0;
#endif
  for (int fd = STDERR_FILENO + 1; !closed && fd <= max_fd; ++fd) {
    if (fd != report_fd) (void)::close(fd);
  }
  if (::chdir("/") != 0) fail(errno);

  const auto set = [&](int resource, rlim_t soft, rlim_t hard) {
    const struct rlimit limit = {soft, hard};
    if (::prlimit(0, static_cast<__rlimit_resource>(resource), &limit, nullptr) != 0) {
      fail(errno);
    }
  };
  if (limits.memory_bytes > 0) set(RLIMIT_AS, limits.memory_bytes, limits.memory_bytes);
  if (limits.cpu_seconds > 0) set(RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5);
  set(RLIMIT_CORE, 0, 0);
  set(RLIMIT_FSIZE, 0, 0);
  // Where the kernel has Landlock (and the service's system call filter lets it through): no file
  // changes anywhere and no TCP (landlock.h).
  if (const int abi = LandlockAbi(); abi > 0) {
    if (const int error = ConfineToReadOnly(abi); error != 0) fail(error);
  }

  ::execve(argv[0], argv, environ);
  fail(errno);
  ::_exit(127);  // Not reached.
}

}  // namespace

std::string ChildConfinement() {
  const int abi = LandlockAbi();
  if (abi == 0) {
    return "no Landlock on this kernel (or the system call filter denies it): rlimits and the "
           "service's sandbox only";
  }
  std::string text = "Landlock ABI " + std::to_string(abi) + ": no file changes";
  if (abi >= 4) text += ", no TCP";
  if (abi >= 6) text += ", no signals or abstract sockets outside the benchmark";
  return text;
}

namespace {

const char* SignalDescription(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "segmentation fault";
    case SIGBUS:
      return "bus error";
    case SIGABRT:
      return "aborted";
    case SIGILL:
      return "illegal instruction";
    case SIGFPE:
      return "arithmetic exception";
    case SIGKILL:
      return "killed";
    case SIGXCPU:
      return "CPU time limit exceeded";
    case SIGXFSZ:
      return "file size limit exceeded";
    case SIGTERM:
      return "terminated";
    default:
      return nullptr;
  }
}

}  // namespace

std::string ChildExit::Describe() const {
  if (exit_code) return "exit status " + std::to_string(*exit_code);
  if (signal) {
    std::string out = "killed by ";
    const char* abbrev = ::sigabbrev_np(*signal);
    out += abbrev != nullptr ? "SIG" + std::string(abbrev) : "signal " + std::to_string(*signal);
    if (const char* what = SignalDescription(*signal)) out += " (" + std::string(what) + ")";
    return out;
  }
  return "still running";
}

Result<std::unique_ptr<BenchProcess>> BenchProcess::Start(const std::vector<std::string>& argv,
                                                          const BenchLimits& limits) {
  if (argv.empty() || argv[0].empty() || argv[0].front() != '/') {
    return Status::InvalidArgument("the program to run must be an absolute path");
  }
  EDGEMOND_ASSIGN_OR_RETURN(Pipe out, MakePipe(O_CLOEXEC));
  EDGEMOND_ASSIGN_OR_RETURN(Pipe err, MakePipe(O_CLOEXEC));
  EDGEMOND_ASSIGN_OR_RETURN(Pipe report, MakePipe(O_CLOEXEC));

  // Everything the child needs is prepared before fork: it may not allocate.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  struct rlimit open_files = {};
  int max_fd = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &open_files) == 0 && open_files.rlim_cur != RLIM_INFINITY) {
    max_fd = static_cast<int>(std::min<rlim_t>(open_files.rlim_cur, 1 << 20));
  }

  const pid_t pid = ::fork();
  if (pid < 0) return Status::FromErrno(errno, "fork");
  if (pid == 0) {
    ChildAfterFork(args.data(), out.write.get(), err.write.get(), report.write.get(), limits,
                   max_fd);
  }
  // Also in the parent, so that the group exists before anyone signals it.
  (void)::setpgid(pid, pid);
  out.write.reset();
  err.write.reset();
  report.write.reset();

  // The report pipe closes at a successful exec, or carries the errno of what failed.
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(report.read.get(), &child_errno, sizeof(child_errno));
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof(child_errno))) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return Status::FromErrno(child_errno, "cannot run " + argv[0]);
  }
  for (int fd : {out.read.get(), err.read.get()}) {
    const int flags = ::fcntl(fd, F_GETFL);
    (void)::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  }
  return std::unique_ptr<BenchProcess>(
      new BenchProcess(pid, std::move(out.read), std::move(err.read)));
}

BenchProcess::~BenchProcess() {
  if (!exit_) {
    Kill();
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void BenchProcess::Drain() {
  char buffer[16384];
  const auto drain = [&](UniqueFd& fd, std::string& text, std::size_t max) {
    while (fd) {
      const ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
      if (n > 0) {
        const std::size_t room = max > text.size() ? max - text.size() : 0;
        const std::size_t keep = std::min(room, static_cast<std::size_t>(n));
        text.append(buffer, keep);
        if (keep < static_cast<std::size_t>(n)) truncated_ = true;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      fd.reset();  // EOF or an error: nothing more will come.
    }
  };
  drain(out_fd_, out_, kMaxStdoutBytes);
  drain(err_fd_, err_, kMaxStderrBytes);
}

std::optional<ChildExit> BenchProcess::Poll() {
  if (exit_) return exit_;
  Drain();
  // Look without reaping first: while the child is a zombie its process group still exists, so
  // killing the group cannot hit a process that reused the id.
  siginfo_t info = {};
  int waited;
  do {
    waited = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (waited < 0 && errno == EINTR);
  if (waited != 0 || info.si_pid != pid_) return std::nullopt;
  (void)::kill(-pid_, SIGKILL);  // Anything it started goes with it.
  int status = 0;
  struct rusage usage = {};
  pid_t reaped;
  do {
    reaped = ::wait4(pid_, &status, 0, &usage);
  } while (reaped < 0 && errno == EINTR);
  if (reaped != pid_) return std::nullopt;
  ChildExit exit;
  if (WIFEXITED(status)) exit.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  exit.user_cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec) + usage.ru_utime.tv_usec / 1e6;
  exit.system_cpu_seconds =
      static_cast<double>(usage.ru_stime.tv_sec) + usage.ru_stime.tv_usec / 1e6;
  exit.max_rss_bytes = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // KiB on Linux.
  Drain();  // Whatever it left in the pipes.
  out_fd_.reset();
  err_fd_.reset();
  exit_ = exit;
  return exit_;
}

void BenchProcess::Kill() {
  if (exit_) return;
  (void)::kill(-pid_, SIGKILL);
  (void)::kill(pid_, SIGKILL);
}

}  // namespace edgemond::selfbench
