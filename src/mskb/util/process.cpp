#include "mskb/util/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mskb {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> v;
  for (const auto& a : argv) v.push_back(const_cast<char*>(a.c_str()));
  v.push_back(nullptr);
  return v;
}

void kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

// Whether the child has exited, without reaping it (the caller's waitpid still sees it).
bool exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// The watchdog's end of a child: SIGTERM first when it gets a grace period (srun cancels its
// job step on SIGTERM, not on SIGKILL), then SIGKILL to whatever is left of the group.
void stop_group(pid_t pid, double grace_s) {
  if (grace_s > 0) {
    ::kill(-pid, SIGTERM);
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace_s));
    while (!exited(pid) && Clock::now() < until) ::usleep(10000);
  }
  kill_group(pid);
}

struct Wait {
  int status = 0;
  bool done = false;
};

Wait try_wait(pid_t pid, bool block) {
  Wait w;
  const pid_t r = ::waitpid(pid, &w.status, block ? 0 : WNOHANG);
  w.done = r == pid;
  return w;
}

std::string read_file_tail(const std::string& path, std::size_t max_bytes) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return "";
  const std::streamoff size = f.tellg();
  const std::streamoff start = size > static_cast<std::streamoff>(max_bytes) ? size - static_cast<std::streamoff>(max_bytes) : 0;
  f.seekg(start);
  std::string s(static_cast<std::size_t>(size - start), '\0');
  f.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

}  // namespace

const char* signal_name(int s) {
  switch (s) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

std::string tail_lines(const std::string& text, std::size_t max_lines) {
  std::size_t pos = text.size();
  std::size_t lines = 0;
  while (pos > 0) {
    const std::size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    if (nl + 1 < text.size() && ++lines > max_lines) return text.substr(nl + 1);
    pos = nl;
  }
  return text;
}

namespace {

// In a forked child: raises its nice value by `by` (a lower priority needs no privilege; a failure
// leaves it as it was, which only costs speed elsewhere).
void lower_priority(int by) {
  if (by > 0 && ::nice(by) == -1) {
    // unchanged (or already at 19): the child runs at our priority
  }
}

// The child of run_process: own process group, stdin from /dev/null, stdout/stderr to the log
// (stdout stays the report pipe with report_on_stdout), the report pipe on report_fd, then exec.
[[noreturn]] void exec_child(const SpawnOptions& opt, int logfd, const int pipefd[2], std::vector<char*>& argv) {
  ::setpgid(0, 0);  // own process group: the watchdog kills everything the candidate started
  const int null_in = ::open("/dev/null", O_RDONLY);
  if (null_in > 0) {
    ::dup2(null_in, 0);
    ::close(null_in);
  }
  const int report_fd = opt.report_on_stdout ? 1 : opt.report_fd;
  if (!opt.report_on_stdout) ::dup2(logfd, 1);
  ::dup2(logfd, 2);
  if (pipefd[0] != report_fd) ::close(pipefd[0]);  // before dup2: it may already be report_fd
  if (pipefd[1] != report_fd) {
    ::dup2(pipefd[1], report_fd);  // dup2 clears FD_CLOEXEC on the copy
    ::close(pipefd[1]);
  } else {
    ::fcntl(report_fd, F_SETFD, 0);
  }
  for (const auto& [k, v] : opt.env) ::setenv(k.c_str(), v.c_str(), 1);
  lower_priority(opt.nice);
  ::execv(argv[0], argv.data());
  std::fprintf(stderr, "cannot execute %s: %s\n", argv[0], std::strerror(errno));
  ::_exit(127);
}

// Reads report lines until the pipe closes; each line restarts the deadline (on_line may set a
// new timeout). Past the deadline the group is stopped (res.timed_out). Returns the deadline.
Clock::time_point read_reports(int fd, pid_t pid, const SpawnOptions& opt, const std::function<double(const std::string&)>& on_line,
                               ProcessResult& res) {
  double timeout = opt.initial_timeout_s;
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout));
  std::string buf;
  while (true) {
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) {
      res.timed_out = true;
      stop_group(pid, opt.term_grace_s);
      break;
    }
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      const std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      const double t = on_line(line);
      if (t > 0) timeout = t;
      deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout));
    }
  }
  return deadline;
}

// The report pipe closed: the child is exiting (or closed fd 3). Give it the rest of its
// deadline to exit, then kill it.
Wait reap(pid_t pid, Clock::time_point deadline, const SpawnOptions& opt, ProcessResult& res) {
  Wait w;
  while (!(w = try_wait(pid, false)).done) {
    if (Clock::now() > deadline) {
      res.timed_out = true;
      stop_group(pid, opt.term_grace_s);
      w = try_wait(pid, true);
      break;
    }
    ::usleep(2000);
  }
  return w;
}

}  // namespace

ProcessResult run_process(const SpawnOptions& opt, const std::function<double(const std::string&)>& on_line) {
  ProcessResult res;
  int pipefd[2];
  // CLOEXEC: builds run in other threads and must not inherit our pipe ends.
  if (::pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const int logfd = ::open(opt.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (logfd < 0) throw std::runtime_error("cannot open log " + opt.log_path + ": " + std::strerror(errno));
  auto argv = c_argv(opt.argv);
  const auto t0 = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) exec_child(opt, logfd, pipefd, argv);
  ::setpgid(pid, pid);
  ::close(pipefd[1]);
  ::close(logfd);

  const Clock::time_point deadline = read_reports(pipefd[0], pid, opt, on_line, res);
  ::close(pipefd[0]);
  const Wait w = reap(pid, deadline, opt, res);
  kill_group(pid);  // anything the candidate left behind in the group
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (WIFSIGNALED(w.status)) {
    res.signaled = true;
    res.signal = WTERMSIG(w.status);
  } else if (WIFEXITED(w.status)) {
    res.exit_code = WEXITSTATUS(w.status);
  }
  res.log_tail = tail_lines(read_file_tail(opt.log_path, 16384), 20);
  return res;
}

int run_command(const std::vector<std::string>& argv, std::string& output, double timeout_s, const std::string& cwd,
                double term_grace_s, int nice, const std::function<bool()>& in_child) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return -1;
  auto cargv = c_argv(argv);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::setpgid(0, 0);
    const int null_in = ::open("/dev/null", O_RDONLY);
    if (null_in > 0) {
      ::dup2(null_in, 0);
      ::close(null_in);
    }
    ::dup2(pipefd[1], 1);
    ::dup2(pipefd[1], 2);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    lower_priority(nice);
    if (in_child && !in_child()) {
      static const char msg[] = "cannot confine the command (the sandbox could not be applied)\n";
      (void)!::write(2, msg, sizeof msg - 1);
      ::_exit(126);
    }
    ::execvp(cargv[0], cargv.data());
    std::fprintf(stderr, "cannot execute %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(pipefd[1]);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  bool killed = false;
  while (true) {
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) {
      stop_group(pid, term_grace_s);
      killed = true;
      break;
    }
    pollfd p{pipefd[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    char chunk[16384];
    const ssize_t n = ::read(pipefd[0], chunk, sizeof chunk);
    if (n <= 0) break;
    output.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (killed) {
    output += "\n(killed after " + std::to_string(static_cast<int>(timeout_s)) + " s)\n";
    return 124;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace mskb
