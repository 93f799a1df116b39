// Real child processes (/bin/sh and what it runs): exits, crashes, hangs, limits, output.

#include "selfbench/bench_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "core/text.h"
#include "selfbench/landlock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::selfbench {
namespace {

using namespace std::chrono_literals;

// Polls until the child has ended (at most `timeout`).
std::optional<ChildExit> WaitExit(BenchProcess& process, std::chrono::milliseconds timeout = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto exit = process.Poll()) return exit;
    std::this_thread::sleep_for(5ms);
  }
  return process.Poll();
}

std::unique_ptr<BenchProcess> Shell(const std::string& script, BenchLimits limits = {}) {
  auto process = BenchProcess::Start({"/bin/sh", "-c", script}, limits);
  EXPECT_TRUE(process.ok()) << process.status().ToString();
  return process.ok() ? std::move(process).value() : nullptr;
}

TEST(BenchProcessTest, CapturesOutputAndExitStatus) {
  auto process = Shell("echo report; echo complaint >&2; exit 3");
  ASSERT_TRUE(process);
  const auto exit = WaitExit(*process);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->exit_code, 3);
  EXPECT_FALSE(exit->signal);
  EXPECT_EQ(exit->Describe(), "exit status 3");
  EXPECT_EQ(process->stdout_text(), "report\n");
  EXPECT_EQ(process->stderr_text(), "complaint\n");
  EXPECT_GT(exit->max_rss_bytes, 0);
}

TEST(BenchProcessTest, ACrashIsAnExitWithItsSignal) {
  auto process = Shell("echo before; kill -SEGV $$");
  ASSERT_TRUE(process);
  const auto exit = WaitExit(*process);
  ASSERT_TRUE(exit);
  EXPECT_FALSE(exit->exit_code);
  EXPECT_EQ(exit->signal, SIGSEGV);
  EXPECT_EQ(exit->Describe(), "killed by SIGSEGV (segmentation fault)");
  EXPECT_EQ(process->stdout_text(), "before\n");
}

TEST(BenchProcessTest, KillEndsAHangAndWhatItStarted) {
  auto process = Shell("sleep 300 & echo $!; wait");
  ASSERT_TRUE(process);
  std::string pid_text;
  for (int i = 0; i < 400 && pid_text.find('\n') == std::string::npos; ++i) {
    EXPECT_FALSE(process->Poll());
    pid_text = process->stdout_text();
    std::this_thread::sleep_for(5ms);
  }
  const auto sleeper = ParseInt64(pid_text);
  ASSERT_TRUE(sleeper.ok()) << pid_text;
  process->Kill();
  const auto exit = WaitExit(*process);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->signal, SIGKILL);
  // The background sleep was in the child's process group: it is gone (or a zombie that init
  // has not reaped yet).
  std::this_thread::sleep_for(50ms);
  std::ifstream stat("/proc/" + std::to_string(*sleeper) + "/stat");
  std::string line;
  if (std::getline(stat, line)) {
    const std::size_t paren = line.rfind(')');
    ASSERT_NE(paren, std::string::npos);
    EXPECT_EQ(line.substr(paren + 2, 1), "Z") << line;
  }
}

TEST(BenchProcessTest, AProgramThatCannotRunIsAnError) {
  const auto missing = BenchProcess::Start({"/nonexistent/edgemond-bench", "--json"}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
  EXPECT_NE(missing.status().ToString().find("/nonexistent/edgemond-bench"), std::string::npos);
  const auto relative = BenchProcess::Start({"edgemond-bench"}, {});
  EXPECT_TRUE(relative.status().IsInvalidArgument());
}

// Whether setrlimit(RLIMIT_AS) takes effect in a child of this process. qemu-user (the arm64 test
// leg) accepts the call and ignores it, because the limit would apply to the emulator itself.
bool AddressSpaceLimitsApply() {
  const pid_t child = ::fork();
  if (child == 0) {
    const rlimit limit{256ULL << 20, 256ULL << 20};
    rlimit read{};
    ::_exit(::setrlimit(RLIMIT_AS, &limit) == 0 && ::getrlimit(RLIMIT_AS, &read) == 0 &&
                    read.rlim_cur == limit.rlim_cur
                ? 0
                : 1);
  }
  int status = 0;
  return child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

TEST(BenchProcessTest, TheChildRunsUnderItsLimits) {
  BenchLimits limits;
  limits.memory_bytes = 256ULL << 20;
  limits.cpu_seconds = 30;
  // ulimit prints KiB for -v and seconds for -t.
  auto process = Shell("ulimit -v; ulimit -t; ulimit -c; ulimit -f", limits);
  ASSERT_TRUE(process);
  const auto exit = WaitExit(*process);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->exit_code, 0);
  const std::string out = process->stdout_text();
  const std::size_t first_line = out.find('\n') + 1;
  EXPECT_EQ(out.substr(first_line), "30\n0\n0\n") << out;
  if (!AddressSpaceLimitsApply()) {
    GTEST_SKIP() << "this machine ignores RLIMIT_AS (an emulator?): the memory limit is unchecked";
  }
  EXPECT_EQ(out.substr(0, first_line), "262144\n") << out;
}

TEST(BenchProcessTest, TheChildGetsNoInheritedDescriptorsAndNoBlockedSignals) {
  const int leaked = ::open("/dev/null", O_RDONLY);  // Deliberately without O_CLOEXEC.
  ASSERT_GE(leaked, 0);
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &block, &old), 0);
  // exec: the programs report on themselves, without a shell in between.
  auto fds = Shell("exec ls /proc/self/fd");
  auto mask = Shell("exec grep SigBlk /proc/self/status");
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(leaked);
  ASSERT_TRUE(fds && mask);
  ASSERT_TRUE(WaitExit(*fds));
  ASSERT_TRUE(WaitExit(*mask));
  // 3 is the directory ls itself opened to list.
  EXPECT_EQ(fds->stdout_text(), "0\n1\n2\n3\n");
  EXPECT_EQ(mask->stdout_text(), "SigBlk:\t0000000000000000\n");
}

// What a malicious model that took over the benchmark could try: change files the service's user
// may write (the database's directory), and reach the network. Each attempt runs in a subshell
// and reports its own status, so that one refused attempt does not stop the next. (No redirection
// to /dev/null: opening it for writing is a file change Landlock refuses too.)
TEST(BenchProcessTest, TheChildCanChangeNoFileAndOpenNoTcpConnection) {
  const int abi = LandlockAbi();
  if (abi == 0) GTEST_SKIP() << "no Landlock on this kernel: " << ChildConfinement();
  testing::FakeSysfs dir;  // A temporary directory with a file writer.
  dir.Write("edgemond.db", "precious\n");
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string port = std::to_string(ntohs(address.sin_port));

  std::string script =
      "try() { if (eval \"$2\"); then echo \"$1 done\"; else echo \"$1 refused\"; fi; }; "
      "trap '' XFSZ; cd " +
      dir.path() + "; ";
  for (const char* attempt :
       {"create ': > new'", "truncate ': > edgemond.db'", "remove 'rm edgemond.db'",
        "rename 'mv edgemond.db moved'", "mkdir 'mkdir sub'", "symlink 'ln -s x link'",
        "read 'read -r line < edgemond.db'"}) {
    script += std::string("try ") + attempt + "; ";
  }
  script += "try connect 'exec 3<>/dev/tcp/127.0.0.1/" + port + "'";
  auto process = BenchProcess::Start({"/bin/bash", "-c", script}, {});
  ASSERT_TRUE(process.ok()) << process.status();
  const auto exit = WaitExit(**process);
  ASSERT_TRUE(exit);
  const std::string out = (*process)->stdout_text();
  for (const char* attempt : {"create", "truncate", "remove", "rename", "mkdir", "symlink"}) {
    EXPECT_NE(out.find(std::string(attempt) + " refused"), std::string::npos) << out;
  }
  // Reading the model stays allowed.
  EXPECT_NE(out.find("read done"), std::string::npos) << out << (*process)->stderr_text();
  std::ifstream kept(dir.Join("edgemond.db"));
  std::string content((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "precious\n");
  EXPECT_FALSE(std::ifstream(dir.Join("new")).good());
  if (abi >= 4) {
    EXPECT_NE(out.find("connect refused"), std::string::npos) << out;
    EXPECT_LT(::accept(listener, nullptr, nullptr), 0) << "the child connected";
  }
  ::close(listener);
}

TEST(BenchProcessTest, ACpuLimitEndsABusyLoop) {
  BenchLimits limits;
  limits.cpu_seconds = 1;
  auto process = Shell("while :; do :; done", limits);
  ASSERT_TRUE(process);
  const auto exit = WaitExit(*process, 60s);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->signal, SIGXCPU);
  // The kernel checks the limit on its own accounting, which wait4's lags on a busy machine.
  EXPECT_GE(exit->user_cpu_seconds + exit->system_cpu_seconds, 0.5);
}

TEST(BenchProcessTest, OutputBeyondTheCapIsDropped) {
  auto process = Shell("head -c 9000000 /dev/zero");
  ASSERT_TRUE(process);
  const auto exit = WaitExit(*process);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->exit_code, 0);
  EXPECT_EQ(process->stdout_text().size(), BenchProcess::kMaxStdoutBytes);
  EXPECT_TRUE(process->output_truncated());
}

TEST(BenchProcessTest, DestroyingARunningChildKillsAndReapsIt) {
  pid_t pid = 0;
  {
    auto process = Shell("sleep 300");
    ASSERT_TRUE(process);
    pid = process->pid();
  }
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

}  // namespace
}  // namespace edgemond::selfbench
