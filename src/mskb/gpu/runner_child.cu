#include "mskb/gpu/runner_child.cuh"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <stdexcept>
#include <utility>

#include "mskb/util/process.hpp"
#include "mskb/util/sandbox.hpp"

namespace mskb::gpu {

RunnerChild::RunnerChild(const char* mode, int report_fd) : drain_(2) {
  auto [mine, theirs] = Channel::make_pair();
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) throw std::runtime_error("cannot find this runner's executable");
  exe[n] = '\0';
  // --- sandbox (issue 40): the child gets a scrubbed environment and its stdout/stderr as a pipe
  // this process drains into its own log (everything prepared before the fork: the child only
  // dup2s and execs). The verifier made itself not dumpable at its start (runner.cu).
  const std::vector<std::string> env = sandbox::scrub_environment(sandbox::current_environment());
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const int out_fd = drain_.child_fd();
  // --- end sandbox
  started_ = std::chrono::steady_clock::now();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    const int cfd = theirs.fd();
    if (cfd == 3) ::fcntl(3, F_SETFD, 0);
    else if (::dup2(cfd, 3) < 0) ::_exit(126);
    if (report_fd != 3) ::close(report_fd);
    if (::dup2(out_fd, 1) < 0 || ::dup2(out_fd, 2) < 0) ::_exit(126);
    ::close_range(4, ~0U, 0);
    char* const argv[] = {exe, const_cast<char*>(mode), const_cast<char*>("3"), nullptr};
    ::execve(exe, argv, envp.data());
    ::_exit(127);
  }
  drain_.parent_after_fork();
  ch_ = std::move(mine);
}

RunnerChild::~RunnerChild() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    int st = 0;
    ::waitpid(pid_, &st, 0);
  }
}

bool RunnerChild::send(const nlohmann::json& j, const std::vector<int>& fds) {
  try {
    ch_.send(j, fds);
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

bool RunnerChild::recv(Message& m) { return ch_.recv(m); }

std::string RunnerChild::reap(bool& signaled) {
  int st = 0;
  if (!reaped_) ::waitpid(pid_, &st, 0);
  reaped_ = true;
  signaled = WIFSIGNALED(st);
  if (sandbox::killed_by_seccomp(st)) return kSandboxKill;
  if (signaled) return std::string("died of ") + signal_name(WTERMSIG(st));
  return "exited with code " + std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

void RunnerChild::wait_exit() {
  if (pid_ <= 0 || reaped_) return;
  int st = 0;
  struct rusage ru {};
  const pid_t r = ::wait4(pid_, &st, 0, &ru);
  reaped_ = true;
  if (r != pid_) return;
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  usage_ = Usage{std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(), seconds(ru.ru_utime),
                 seconds(ru.ru_stime), ru.ru_nvcsw, ru.ru_nivcsw};
}

namespace {

RunnerChild start_candidate(int report_fd) {
  try {
    return RunnerChild("--candidate", report_fd);
  } catch (const std::runtime_error& e) {
    throw CandidateFatal(Disposition::harness_error, e.what());
  }
}

}  // namespace

CandidateProcess::CandidateProcess(int report_fd) : child_(start_candidate(report_fd)) {}

Message CandidateProcess::reply() {
  Message m;
  bool got = false;
  try {
    got = child_.recv(m);
  } catch (const std::runtime_error& e) {
    throw CandidateFatal(Disposition::harness_error, std::string("unreadable message from the kernel's process: ") + e.what());
  }
  if (!got) died();
  if (m.body.contains("fatal"))
    throw CandidateFatal(candidate_disposition(m.body.value("fatal", std::string())), m.body.value("message", std::string()));
  return m;
}

void CandidateProcess::died() {
  bool signaled = false;
  const std::string how = child_.reap(signaled);
  // issue 40: killed by the seccomp filter (SIGSYS): final; the call is named in the log in debug mode.
  if (how == RunnerChild::kSandboxKill)
    throw CandidateFatal(Disposition::sandbox_violation, "the kernel's process " + how +
                                                             ": exec, fork, a socket, ptrace, a signal to another process, ... "
                                                             "(MSKB_SANDBOX_DEBUG=trap names the call in the runner's log)");
  if (signaled) throw CandidateFatal(Disposition::crashed, "the kernel's process " + how);
  throw CandidateFatal(Disposition::crashed, "the kernel's process " + how + " in the middle of the evaluation");
}

Disposition candidate_disposition(const std::string& d) {
  const std::optional<Disposition> claimed = from_string<Disposition>(d);
  for (Disposition ok : {Disposition::launch_error, Disposition::out_of_memory, Disposition::missing_entry,
                        Disposition::sandbox_setup_failed})
    if (claimed == ok) return ok;
  return Disposition::harness_error;
}

}  // namespace mskb::gpu
