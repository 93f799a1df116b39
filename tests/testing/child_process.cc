#include "tests/testing/child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace edgemond::testing {

namespace {

// Writes `value` in decimal at `out` (NUL-terminated); async-signal-safe.
void FormatPid(pid_t value, char* out) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  while (n > 0) *out++ = digits[--n];
  *out = '\0';
}

}  // namespace

ChildProcess::ChildProcess(std::vector<std::string> argv, std::string log_path,
                           std::vector<std::string> extra_env, ChildOptions options)
    : log_path_(std::move(log_path)) {
  const int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  for (std::string& e : extra_env) env_strings.push_back(std::move(e));
  // Room for the pid, filled in by the child.
  std::vector<std::size_t> pid_slots;
  for (const std::string& name : options.pid_env) {
    pid_slots.push_back(env_strings.size());
    env_strings.push_back(name + "=" + std::string(16, '\0'));
  }
  std::vector<char*> env;
  for (std::string& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);

  pid_ = ::fork();
  if (pid_ == 0) {
    // Child: only async-signal-safe calls from here on.
    if (log_fd >= 0) {
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
    }
    // Tests may block signals in their own thread; the child starts with a clean mask.
    sigset_t empty;
    sigemptyset(&empty);
    ::sigprocmask(SIG_SETMASK, &empty, nullptr);
    for (std::size_t i = 0; i < pid_slots.size(); ++i) {
      char* slot = env[pid_slots[i]];
      FormatPid(::getpid(), slot + options.pid_env[i].size() + 1);
    }
    if (options.pass_fd >= 0) {
      if (options.pass_fd == 3) {
        ::fcntl(3, F_SETFD, 0);  // Keep it across exec.
      } else {
        ::dup2(options.pass_fd, 3);  // dup2 clears close-on-exec on the new descriptor.
      }
    }
    ::execve(args[0], args.data(), env.data());
    ::_exit(127);
  }
  if (log_fd >= 0) ::close(log_fd);
}

ChildProcess::~ChildProcess() {
  if (Running()) {
    ::kill(pid_, SIGKILL);
    (void)Wait(std::chrono::seconds(5));
  }
}

bool ChildProcess::Signal(int signal) { return Running() && ::kill(pid_, signal) == 0; }

std::optional<int> ChildProcess::Wait(std::chrono::milliseconds timeout) {
  if (status_) return status_;
  if (pid_ <= 0) return std::nullopt;
  const bool exited = WaitFor(
      [&] {
        int status = 0;
        const pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) status_ = status;
        return status_.has_value() || (r < 0 && errno == ECHILD);
      },
      timeout);
  return exited ? status_ : std::nullopt;
}

bool ChildProcess::Running() {
  if (pid_ <= 0 || status_) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    status_ = status;
    return false;
  }
  return r == 0;
}

std::string ChildProcess::Output() const {
  std::ifstream in(log_path_);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string BuiltBinary(const std::string& relative) {
  return std::string(EDGEMOND_BINARY_DIR) + "/" + relative;
}

std::string FakeNvmlPath() { return BuiltBinary("tests/libfake_nvidia_ml.so"); }

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

}  // namespace edgemond::testing
