// The candidate's OS sandbox, installed for real in forked children: what the kernel under test
// must not do fails (file creation, writing a file, exec, fork, sockets, a signal to the parent),
// through libc's wrappers and through a raw system-call instruction (the gadget a kernel would
// find in libc), while what the candidate needs (read-only opens, mmap, threads, futexes, clocks)
// still works. As root (CI) each case also runs as an ordinary user (uid nobody). Where the
// kernel has no Landlock, the Landlock cases are skipped and the level says so.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mskb/util/sandbox.hpp"

namespace fs = std::filesystem;
namespace sb = mskb::sandbox;

namespace {

// A system call through the instruction itself, as a kernel that located one in libc's text would
// make it: no libc wrapper, no errno.
long raw_syscall(long nr, long a = 0, long b = 0, long c = 0, long d = 0) {
  long ret;
#if defined(__x86_64__)
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = nr;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  ret = x0;
#endif
  return ret;
}

struct Scratch {
  fs::path dir;
  fs::path existing;  // a file the sandboxed child must not be able to write (or, outside the rules, read)
  fs::path library;   // stands for the kernel library: its folder is readable
  Scratch() {
    char tmpl[] = "/tmp/mskb_sandbox_test_XXXXXX";
    dir = ::mkdtemp(tmpl);
    fs::permissions(dir, fs::perms::all);
    existing = dir / "existing.txt";
    std::ofstream(existing) << "original\n";
    fs::permissions(existing, fs::perms::owner_all | fs::perms::group_all | fs::perms::others_all);
    fs::create_directories(dir / "lib");
    fs::permissions(dir / "lib", fs::perms::all);
    library = dir / "lib" / "kernel.so";
    std::ofstream(library) << "not really a library\n";
    fs::permissions(library, fs::perms::owner_all | fs::perms::others_read | fs::perms::group_read);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

enum class As { self, nobody };

// Forks; the child (optionally as uid nobody) installs both steps and runs `body`, whose return
// value is its exit code (0: as expected). Returns the wait status. Setup failure: exit 90.
int sandboxed(const Scratch& s, As as, const std::function<int()>& body, bool calls = true) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (as == As::nobody && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(91);
    try {
      sb::CandidateSandbox box;
      box.confine_files({s.library.string(), "", {}, false});
      if (calls) box.confine_calls();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "setup: %s\n", e.what());
      ::_exit(90);
    }
    ::_exit(body());
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return st;
}

std::string describe(int st) {
  if (WIFEXITED(st)) return "exit " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return std::string("signal ") + strsignal(WTERMSIG(st));
  return "?";
}

class Sandbox : public ::testing::TestWithParam<As> {
 protected:
  void SetUp() override {
    if (GetParam() == As::nobody && ::geteuid() != 0) GTEST_SKIP() << "already an ordinary user (covered by the 'self' case)";
  }
  void expect_ok(const std::function<int()>& body, const char* what) {
    const int st = sandboxed(s_, GetParam(), body);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << what << ": " << describe(st);
  }
  void expect_killed(const std::function<int()>& body, const char* what) {
    const int st = sandboxed(s_, GetParam(), body);
    EXPECT_TRUE(sb::killed_by_seccomp(st)) << what << ": " << describe(st);
  }
  Scratch s_;
};

// errno read here, after the call (an argument beside the call could be read before it).
int eperm_or_eacces(long rc) { return rc < 0 && (errno == EPERM || errno == EACCES) ? 0 : 1; }
int raw_refused(long rc) { return rc == -EPERM || rc == -EACCES ? 0 : 1; }

TEST_P(Sandbox, WhatTheCandidateNeedsStillWorks) {
  const std::string lib = s_.library.string();
  expect_ok([&] {
    // Read-only opens: the kernel library's folder, a system library, this process's own maps.
    for (const char* p : {lib.c_str(), "/proc/self/maps", "/proc/self/status"}) {
      const int fd = ::open(p, O_RDONLY | O_CLOEXEC);
      if (fd < 0) return 10;
      char c;
      if (::read(fd, &c, 1) != 1) return 11;
      ::close(fd);
    }
    // mmap: anonymous, a file read-only, executable (as dlopen maps a library).
    void* a = ::mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED) return 12;
    static_cast<char*>(a)[4096] = 1;
    if (::mprotect(a, 1 << 20, PROT_READ | PROT_EXEC) != 0) return 13;
    ::munmap(a, 1 << 20);
    const int fd = ::open(lib.c_str(), O_RDONLY | O_CLOEXEC);
    void* m = ::mmap(nullptr, 16, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) return 14;
    ::munmap(m, 16);
    ::close(fd);
    // Threads (clone as a thread; glibc tries clone3 first and falls back) and futexes.
    std::mutex mu;
    std::condition_variable cv;
    int stage = 0;
    std::thread t([&] {
      std::unique_lock<std::mutex> l(mu);
      stage = 1;
      cv.notify_all();
      cv.wait(l, [&] { return stage == 2; });
    });
    {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return stage == 1; });
      stage = 2;
      cv.notify_all();
    }
    t.join();
    // A signal to itself, clocks, ids, writing to an inherited descriptor.
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    ::sigaction(SIGUSR1, &sa, nullptr);
    if (::kill(::getpid(), SIGUSR1) != 0) return 15;
    timespec ts{};
    if (::clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 16;
    if (::write(2, "", 0) != 0) return 17;
    return 0;
  }, "needed calls");
}

TEST_P(Sandbox, FilesCannotBeCreatedOrWritten) {
  const std::string existing = s_.existing.string(), created = (s_.dir / "created.txt").string();
  const std::string in_lib = (s_.dir / "lib" / "dropped.so").string();
  expect_ok([&] {
    if (eperm_or_eacces(::open(created.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644))) return 20;
    if (eperm_or_eacces(::open(in_lib.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644))) return 21;
    if (eperm_or_eacces(::open(existing.c_str(), O_WRONLY | O_CLOEXEC))) return 22;
    if (eperm_or_eacces(::open(existing.c_str(), O_RDWR | O_CLOEXEC))) return 23;
    if (eperm_or_eacces(::open(existing.c_str(), O_RDONLY | O_APPEND | O_CLOEXEC))) return 24;
    if (eperm_or_eacces(::open(existing.c_str(), O_RDONLY | O_TRUNC | O_CLOEXEC))) return 25;
    if (eperm_or_eacces(::truncate(existing.c_str(), 0))) return 26;
    if (eperm_or_eacces(::unlink(existing.c_str()))) return 27;
    if (eperm_or_eacces(::rename(existing.c_str(), created.c_str()))) return 28;
    if (eperm_or_eacces(::mkdir((s_.dir / "d").c_str(), 0755))) return 29;
    // The same through the instruction itself.
    if (raw_refused(raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>(created.c_str()), O_WRONLY | O_CREAT, 0644))) return 30;
    if (raw_refused(raw_syscall(SYS_openat, AT_FDCWD, reinterpret_cast<long>(existing.c_str()), O_RDWR))) return 31;
    if (raw_refused(raw_syscall(SYS_unlinkat, AT_FDCWD, reinterpret_cast<long>(existing.c_str()), 0))) return 32;
    return 0;
  }, "file writes");
  std::ifstream in(s_.existing);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "original");
  EXPECT_FALSE(fs::exists(s_.dir / "created.txt"));
  EXPECT_FALSE(fs::exists(s_.dir / "lib" / "dropped.so"));
}

TEST_P(Sandbox, ExecKillsTheProcess) {
  expect_killed([] {
    char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
    ::execv("/bin/true", argv);
    return 40;
  }, "execv");
  expect_killed([] {
    const char* path = "/bin/true";
    const long argv[] = {reinterpret_cast<long>(path), 0};
    raw_syscall(SYS_execve, reinterpret_cast<long>(path), reinterpret_cast<long>(argv), 0);
    return 41;
  }, "raw execve");
}

TEST_P(Sandbox, ForkKillsTheProcess) {
  expect_killed([] {
    const pid_t p = ::fork();  // glibc: clone without CLONE_THREAD
    if (p == 0) ::_exit(0);
    return 42;
  }, "fork");
  expect_killed([] {
    raw_syscall(SYS_clone, SIGCHLD, 0, 0, 0);
    return 43;
  }, "raw clone as a process");
#if defined(__x86_64__)
  expect_killed([] {
    raw_syscall(SYS_fork);
    return 44;
  }, "raw fork");
#endif
}

TEST_P(Sandbox, SocketsKillTheProcess) {
  expect_killed([] {
    ::socket(AF_INET, SOCK_STREAM, 0);
    return 45;
  }, "socket");
  expect_killed([] {
    raw_syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
    return 46;
  }, "raw socket");
}

TEST_P(Sandbox, SignalToTheParentKillsTheProcess) {
  expect_killed([] {
    ::kill(::getppid(), SIGTERM);
    return 47;
  }, "kill(parent)");
  expect_killed([] {
    raw_syscall(SYS_kill, ::getppid(), SIGTERM);
    return 48;
  }, "raw kill(parent)");
  expect_killed([] {
    raw_syscall(SYS_kill, 0, SIGTERM);  // the process group: the verifier is in it
    return 49;
  }, "kill(0)");
}

TEST_P(Sandbox, PtraceKillsTheProcess) {
  expect_killed([] {
    raw_syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, ::getppid());
    return 50;
  }, "ptrace");
}

TEST_P(Sandbox, LandlockHidesFilesOutsideTheRules) {
  std::string why;
  if (sb::landlock_abi(&why) <= 0) GTEST_SKIP() << "Landlock: " << why << " (the candidate runs seccomp-only)";
  // Landlock alone (no seccomp): a read of a file outside the rules, a write-open anywhere.
  const std::string existing = s_.existing.string(), lib = s_.library.string();
  const int st = sandboxed(s_, GetParam(), [&] {
    if (eperm_or_eacces(::open(existing.c_str(), O_RDONLY | O_CLOEXEC))) return 60;
    if (eperm_or_eacces(::open("/etc/passwd", O_RDONLY | O_CLOEXEC))) return 61;
    if (eperm_or_eacces(::open(lib.c_str(), O_RDWR | O_CLOEXEC))) return 62;
    if (eperm_or_eacces(::open("/proc/1/environ", O_RDONLY | O_CLOEXEC))) return 63;
    const int fd = ::open(lib.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 64;
    // What CUDA's start-up does under Landlock (before the filter): names another thread through
    // /proc/self/task/<tid>/comm (it fails with error 304 when that is refused).
    std::atomic<bool> stop{false};
    std::thread t([&] {
      while (!stop) std::this_thread::yield();
    });
    const int named = ::pthread_setname_np(t.native_handle(), "cuda-like");
    stop = true;
    t.join();
    return named == 0 ? 0 : 65;
  }, false);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe(st);
}

INSTANTIATE_TEST_SUITE_P(Users, Sandbox, ::testing::Values(As::self, As::nobody),
                         [](const ::testing::TestParamInfo<As>& p) { return p.param == As::self ? std::string("self") : std::string("nobody"); });

// A library the harness loads itself after step 1 (CUPTI, for device time): its folder is readable
// and executable, a folder beside it is not.
TEST(SandboxPieces, HarnessLibrariesFoldersAreReadable) {
  Scratch s;
  fs::create_directories(s.dir / "cupti");
  fs::permissions(s.dir / "cupti", fs::perms::all);
  const fs::path cupti = s.dir / "cupti" / "libcupti.so.13";
  std::ofstream(cupti) << "not really CUPTI\n";
  fs::permissions(cupti, fs::perms::owner_all | fs::perms::others_read | fs::perms::group_read);
  bool listed = false;
  for (const sb::FsRule& r : sb::CandidateSandbox::candidate_rules({s.library.string(), "", {cupti.string()}, false}))
    listed = listed || (r.path == (s.dir / "cupti").string() && r.rights == (sb::kRead | sb::kExec));
  EXPECT_TRUE(listed);
  std::string why;
  if (sb::landlock_abi(&why) <= 0) GTEST_SKIP() << "Landlock: " << why;
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      sb::CandidateSandbox box;
      box.confine_files({s.library.string(), "", {cupti.string()}, false});
    } catch (const std::exception&) {
      ::_exit(90);
    }
    const int fd = ::open(cupti.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) ::_exit(1);
    ::close(fd);
    ::_exit(eperm_or_eacces(::open(s.existing.c_str(), O_RDONLY | O_CLOEXEC)) ? 2 : 0);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe(st);
}

TEST(SandboxPieces, ProgramAndNames) {
  EXPECT_GT(sb::seccomp_program_size({::getpid(), sb::OnViolation::kill}), 100u);
  EXPECT_LT(sb::seccomp_program_size({::getpid(), sb::OnViolation::kill}), 4096u);
  EXPECT_EQ(sb::syscall_name(SYS_execve), "execve");
  EXPECT_EQ(sb::syscall_name(SYS_openat), "openat");
}

TEST(SandboxPieces, LevelIsRecorded) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    sb::CandidateSandbox box;
    box.confine_files({"/nonexistent/kernel.so", "", {}, false});
    box.confine_calls();
    const std::string level = box.level();
    (void)!::write(fds[1], level.data(), level.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  char buf[256] = {};
  const ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_GT(n, 0);
  const std::string level(buf, static_cast<std::size_t>(n));
  std::string why;
  if (sb::landlock_abi(&why) > 0)
    EXPECT_EQ(level.rfind("landlock-", 0), 0u) << level;
  else
    EXPECT_NE(level.find("seccomp (landlock:"), std::string::npos) << level;
  EXPECT_NE(level.find("seccomp"), std::string::npos) << level;
  std::printf("sandbox level here: %s\n", level.c_str());
}

namespace {
// Forks; the child runs `body` and exits with its return value (0: as expected). Returns the
// wait status.
int in_child(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int st = 0;
  ::waitpid(pid, &st, 0);
  return st;
}

// A second thread in this process for as long as it lives (as CUDA's, or an injected tool's).
class SpinningThread {
 public:
  SpinningThread()
      : t_([this] {
          while (!stop_) std::this_thread::yield();
        }) {}
  ~SpinningThread() {
    stop_ = true;
    t_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread t_;
};
}  // namespace

TEST(SandboxPieces, MultiThreadedProcessIsRefused) {
  const int st = in_child([] {
    SpinningThread other;
    try {
      sb::CandidateSandbox box;
      box.confine_files({"/nonexistent/kernel.so", "", {}, false});
      return 1;  // must have refused
    } catch (const std::runtime_error&) {
      return 0;
    }
  });
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe(st);
}

// Under an injected CUDA tool (ncu starts a thread before main) the first step binds the
// candidate's thread and says so; it still refuses writes on that thread.
namespace {
// How the tool is known: CUDA_INJECTION64_PATH, ncu's preloaded interceptor, or the caller.
enum class ToolSignal { injection_env, preload, caller };
void expect_tool_thread_named(ToolSignal how) {
  const int st = in_child([how] {
    ::unsetenv("CUDA_INJECTION64_PATH");
    if (how == ToolSignal::injection_env) ::setenv("CUDA_INJECTION64_PATH", "/nonexistent/libInjection.so", 1);
    if (how == ToolSignal::preload)
      ::setenv("LD_PRELOAD", "/opt/nvidia/nsight-compute/target/linux-desktop-glibc_2_11_3-x64/libInterceptorInjectionTarget.so", 1);
    SpinningThread tool;
    try {
      sb::CandidateSandbox box;
      sb::CandidatePaths paths{"/nonexistent/kernel.so", "", {}, false};
      paths.under_tool = how == ToolSignal::caller;
      box.confine_files(paths);
      if (box.level().find("thread(s) the injected tool started") == std::string::npos) return 2;
      std::string why;
      if (sb::landlock_abi(&why) > 0 && ::open("/var/tmp/mskb_sandbox_injected_probe", O_WRONLY | O_CREAT, 0600) >= 0)
        return 3;  // Landlock must hold on this thread
      return 0;
    } catch (const std::runtime_error&) {
      return 1;
    }
  });
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe(st);
}
}  // namespace

TEST(SandboxPieces, InjectedToolThreadIsNamedNotRefused) {
  expect_tool_thread_named(ToolSignal::injection_env);
  expect_tool_thread_named(ToolSignal::preload);
  expect_tool_thread_named(ToolSignal::caller);
}

// MSKB_SANDBOX=off: resource limits only, and the level says the kernel ran unconfined.
TEST(SandboxPieces, SwitchedOffSaysSo) {
  const int st = in_child([] {
    ::setenv("MSKB_SANDBOX", "off", 1);
    sb::CandidateSandbox box;
    box.confine_files({"/nonexistent/kernel.so", "", {}, false});
    box.confine_calls();
    return box.level().rfind("off (MSKB_SANDBOX=off", 0) == 0 && !box.calls_confined() && !box.files_confined() ? 0 : 1;
  });
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe(st);
}

// MSKB_SANDBOX=files / calls: one step each, named in the level; what that step refuses still fails.
TEST(SandboxPieces, OneStepModesSaySoAndHold) {
  const int files = in_child([] {
    ::setenv("MSKB_SANDBOX", "files", 1);
    sb::CandidateSandbox box;
    box.confine_files({"/nonexistent/kernel.so", "", {}, false});
    box.confine_calls();
    if (box.calls_confined()) return 1;
    if (box.level().find("(MSKB_SANDBOX=files: no seccomp") == std::string::npos) return 2;
    std::string why;
    if (sb::landlock_abi(&why) > 0 && ::open("/var/tmp/mskb_sandbox_files_probe", O_WRONLY | O_CREAT, 0600) >= 0) return 3;
    return 0;
  });
  EXPECT_TRUE(WIFEXITED(files) && WEXITSTATUS(files) == 0) << describe(files);
  const int calls = in_child([] {
    ::setenv("MSKB_SANDBOX", "calls", 1);
    sb::CandidateSandbox box;
    box.confine_files({"/nonexistent/kernel.so", "", {}, false});
    box.confine_calls();
    if (!box.calls_confined() || box.files_confined()) return 1;
    if (box.level().rfind("seccomp (MSKB_SANDBOX=calls: no Landlock", 0) != 0) return 2;
    errno = 0;
    if (::open("/var/tmp/mskb_sandbox_calls_probe", O_WRONLY | O_CREAT, 0600) >= 0 || errno != EPERM) return 3;
    return 0;
  });
  EXPECT_TRUE(WIFEXITED(calls) && WEXITSTATUS(calls) == 0) << describe(calls);
}

// A value the harness does not know fails closed with a line that names it.
TEST(SandboxPieces, UnknownModeIsRefused) {
  // In a child: `var`=`value`, then the sandbox's first step must throw `message` (0), not go on (1)
  // or throw another message (2).
  const auto refused = [](const char* var, const char* value, const char* message) {
    return in_child([=] {
      ::setenv(var, value, 1);
      try {
        sb::CandidateSandbox box;
        box.confine_files({"/nonexistent/kernel.so", "", {}, false});
        return 1;
      } catch (const std::runtime_error& e) {
        return std::string(e.what()).find(message) == 0 ? 0 : 2;
      }
    });
  };
  const int st = refused("MSKB_SANDBOX", "of", "MSKB_SANDBOX=of: expected on, off, files or calls");
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe(st);
  const int spec = refused("MSKB_SANDBOX_SPEC", "alow", "MSKB_SANDBOX_SPEC=alow: expected kernel or allow");
  EXPECT_TRUE(WIFEXITED(spec) && WEXITSTATUS(spec) == 0) << describe(spec);
}

// MSKB_SANDBOX_SPEC=allow: the same filter (still refusing), installed without the kernel's
// speculation mitigations, and the level says so.
TEST(SandboxPieces, SpeculationAllowIsNamedAndStillFilters) {
  const int st = in_child([] {
    ::setenv("MSKB_SANDBOX_SPEC", "allow", 1);
    sb::CandidateSandbox box;
    box.confine_files({"/nonexistent/kernel.so", "", {}, false});
    box.confine_calls();
    if (!box.calls_confined() || box.level().find("MSKB_SANDBOX_SPEC=allow") == std::string::npos) return 1;
    errno = 0;
    if (::open("/var/tmp/mskb_sandbox_spec_probe", O_WRONLY | O_CREAT, 0600) >= 0 || (errno != EPERM && errno != EACCES)) return 2;
    return 0;
  });
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe(st);
}

// The candidate may read its own speculation controls under the filter (the level reports what
// the kernel forced on), and still may not change them.
TEST(SandboxPieces, SpeculationControlsReadableNotWritable) {
  const int st = in_child([] {
    sb::CandidateSandbox box;
    box.confine_files({"/nonexistent/kernel.so", "", {}, false});
    box.confine_calls();
    errno = 0;
    if (::prctl(52 /* PR_GET_SPECULATION_CTRL */, 0 /* store bypass */, 0, 0, 0) < 0 && errno == EPERM) return 1;
    errno = 0;
    if (::prctl(53 /* PR_SET_SPECULATION_CTRL */, 0, 2 /* enable */, 0, 0) == 0 || errno != EPERM) return 2;
    std::printf("sandbox level with the filter: %s\n", box.level().c_str());
    return 0;
  });
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe(st);
}

TEST(SandboxPieces, EnvironmentIsScrubbed) {
  const auto out = sb::scrub_environment({"PATH=/usr/bin", "OPENAI_API_KEY=sk-x", "ANTHROPIC_API_KEY=y", "GITHUB_TOKEN=z",
                                          "CUDA_VISIBLE_DEVICES=0", "MSKB_LLM_TOKEN=t", "AWS_SECRET_ACCESS_KEY=a",
                                          "HOME=/root", "RANDOM_THING=1", "LD_LIBRARY_PATH=/x"});
  EXPECT_EQ(out, (std::vector<std::string>{"PATH=/usr/bin", "CUDA_VISIBLE_DEVICES=0", "HOME=/root", "LD_LIBRARY_PATH=/x"}));
}

TEST(SandboxPieces, OutputDrainCapsAndEnds) {
  char tmpl[] = "/tmp/mskb_drain_XXXXXX";
  const int sink = ::mkstemp(tmpl);
  ASSERT_GE(sink, 0);
  {
    sb::OutputDrain drain(sink, 100);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(drain.child_fd(), 1);
      for (int i = 0; i < 50; ++i) (void)!::write(1, "0123456789", 10);
      ::_exit(0);
    }
    drain.parent_after_fork();
    int st = 0;
    ::waitpid(pid, &st, 0);
    drain.join();
  }
  ::close(sink);
  std::ifstream in(tmpl);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(tmpl);
  std::string expected;
  for (int i = 0; i < 10; ++i) expected += "0123456789";
  EXPECT_EQ(text.substr(0, 100), expected);
  EXPECT_NE(text.find("rest is dropped"), std::string::npos);
}

TEST(SandboxPieces, BuildRulesConfineAChild) {
  std::string why;
  if (sb::landlock_abi(&why) <= 0) GTEST_SKIP() << "Landlock: " << why;
  Scratch s;
  const fs::path out = s.dir / "build";
  fs::create_directories(out);
  sb::LandlockRuleset rs(sb::build_rules({{(s.dir / "lib").string()}, {out.string()}}), sb::LandlockRuleset::Scopes{});
  ASSERT_TRUE(rs.ok()) << rs.error();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (rs.restrict_self() != 0) ::_exit(90);
    if (::open((out / "a.o").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644) < 0) ::_exit(1);       // the build folder
    if (::open(s.library.c_str(), O_RDONLY | O_CLOEXEC) < 0) ::_exit(2);                            // a read folder
    if (::open(s.existing.c_str(), O_RDONLY | O_CLOEXEC) >= 0) ::_exit(3);                          // elsewhere
    if (::open("/etc/passwd", O_RDONLY | O_CLOEXEC) >= 0) ::_exit(4);                               // a host file
    if (::open((s.dir / "x").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644) >= 0) ::_exit(5);       // elsewhere
    char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
    ::execv("/bin/true", argv);  // system folders: read + execute
    ::_exit(6);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe(st);
}

}  // namespace
