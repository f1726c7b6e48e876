#include "mskb/harness/slurm_units.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "mskb/util/text.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace mskb {

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) { g_signal = sig; }

// SIGINT and SIGTERM set g_signal while the batch runs; the old handlers come back after.
class StopSignals {
 public:
  StopSignals() {
    g_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// srun's environment: this process's, less `unset` and the keys `set` gives, plus `set`.
std::vector<std::string> child_environment(const SlurmUnitsOptions& opt) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    bool drop = false;
    for (const std::string& u : opt.unset_env) drop |= key == u;
    for (const auto& [k, v] : opt.env) drop |= key == k;
    if (!drop) out.push_back(kv);
  }
  for (const auto& [k, v] : opt.env) out.push_back(k + "=" + v);
  return out;
}

// Starts `argv` in its own process group (a Ctrl-C at the terminal reaches us, not srun), stdin
// /dev/null, stdout and stderr to `log`. Everything the child needs is prepared before fork.
pid_t spawn_logged(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log) {
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) throw std::runtime_error("cannot write " + log + ": " + std::strerror(errno));
  const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (in >= 0) ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execve(args[0], args.data(), envp.data());
    const char msg[] = "cannot start srun\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(out);
  if (in >= 0) ::close(in);
  if (pid < 0) throw std::runtime_error(std::string("cannot start srun: ") + std::strerror(errno));
  ::setpgid(pid, pid);  // also here: no race with a signal sent right after
  return pid;
}

ProcessResult result_of(int status, double seconds) {
  ProcessResult r;
  r.seconds = seconds;
  if (WIFSIGNALED(status)) {
    r.signaled = true;
    r.signal = WTERMSIG(status);
  } else {
    r.exit_code = WEXITSTATUS(status);
  }
  return r;
}

struct Running {
  std::size_t unit = 0;
  int attempt = 0;
  pid_t pid = -1;
  std::string log;
  std::chrono::steady_clock::time_point started;
};

}  // namespace

std::string scancel_program(const std::string& srun_path) {
  if (srun_path.find('/') != std::string::npos) {
    const fs::path next = fs::path(srun_path).parent_path() / "scancel";
    if (::access(next.c_str(), X_OK) == 0) return next.string();
  }
  if (const char* path = std::getenv("PATH"))
    for (const std::string& dir : split(path, ':', true)) {
      const fs::path p = fs::path(dir) / "scancel";
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  return "";
}

std::string slurm_failure(const ProcessResult& r, const std::string& log) {
  std::istringstream in(log);
  std::string cancelled;
  for (std::string line; std::getline(in, line);) {
    if (line.find("DUE TO TIME LIMIT") != std::string::npos) return "the job hit its time limit (--time)";
    if (line.find("CANCELLED AT") != std::string::npos && cancelled.empty()) cancelled = "the job was cancelled (scancel or the scheduler)";
    if (line.find("DUE TO NODE FAILURE") != std::string::npos) return "its node failed";
    if (line.find("PREEMPTION") != std::string::npos) return "the job was preempted";
  }
  if (!cancelled.empty()) return cancelled;
  Launcher slurm;
  slurm.kind = "slurm";
  slurm.work_root = "/";
  if (const std::string why = launch_failure(slurm, r, false, log); !why.empty()) return why;
  const std::string last = last_child_line(log);
  // srun ended by SIGTERM that the driver did not send (its own cancellations are reported
  // before this is asked): scancel or the scheduler stopped the job, and srun went before it
  // logged why (seen on a one-node cluster: the "CANCELLED AT" line is sometimes not written).
  if (r.signaled && r.signal == SIGTERM && last.empty())
    return "the job was cancelled or stopped by Slurm (srun ended by SIGTERM before it logged why)";
  std::string how = r.signaled ? std::string("killed by ") + signal_name(r.signal) : "exit code " + std::to_string(r.exit_code);
  return last.empty() ? how : how + ": " + last;
}

SlurmUnitsOutcome run_slurm_units(const std::vector<std::string>& names, const SlurmUnitsOptions& opt, const SlurmUnitsCallbacks& cb) {
  SlurmUnitsOutcome out;
  out.failed.assign(names.size(), "");
  out.attempts.assign(names.size(), 0);
  const std::string srun = srun_program(opt.launcher);
  const std::vector<std::string> env = child_environment(opt);
  auto say = [&](const std::string& line) {
    if (cb.say) cb.say(line);
  };
  std::deque<std::size_t> waiting;
  for (std::size_t i = 0; i < names.size(); ++i) waiting.push_back(i);
  std::vector<Running> running;
  const StopSignals guard;
  const std::size_t max_jobs = static_cast<std::size_t>(std::max(1, opt.max_jobs));

  // Cancels the jobs in flight (those still queued too), then makes sure srun is gone.
  auto cancel_running = [&] {
    out.cancelled = running.size();
    if (const std::string scancel = scancel_program(srun); !scancel.empty())
      for (const Running& r : running) {
        std::string ignored;
        run_command({scancel, "--quiet", "--name=" + names[r.unit]}, ignored, 30);
      }
    for (const Running& r : running) ::kill(-r.pid, SIGTERM);  // srun cancels its step (inside an allocation)
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.cancel_grace_s);
    for (const Running& r : running) {
      int status = 0;
      while (::waitpid(r.pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          ::kill(-r.pid, SIGKILL);
          ::waitpid(r.pid, &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      out.failed[r.unit] = "cancelled (interrupted)";
    }
    running.clear();
  };

  try {
    while ((!waiting.empty() || !running.empty()) && g_signal == 0) {
      while (!waiting.empty() && running.size() < max_jobs) {
        const std::size_t u = waiting.front();
        Running r;
        r.unit = u;
        r.attempt = out.attempts[u] + 1;
        const UnitAttempt a = cb.start(u, r.attempt);
        std::vector<std::string> argv = srun_prefix(opt.launcher, srun, names[u]);
        argv.insert(argv.end(), a.command.begin(), a.command.end());
        r.log = a.log_path;
        r.started = std::chrono::steady_clock::now();
        r.pid = spawn_logged(argv, env, a.log_path);
        waiting.pop_front();
        out.attempts[u] = r.attempt;
        running.push_back(r);
      }
      bool reaped = false;
      for (std::size_t k = 0; k < running.size();) {
        int status = 0;
        if (::waitpid(running[k].pid, &status, WNOHANG) != running[k].pid) {
          ++k;
          continue;
        }
        reaped = true;
        const Running done = running[k];
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - done.started).count();
        const ProcessResult r = as_local_result(opt.launcher, result_of(status, s));
        const UnitVerdict v = cb.judge(done.unit, done.attempt, r, read_all(done.log));
        if (v.ok) continue;
        const std::string reason = v.reason.empty() ? "failed" : v.reason;
        if (done.attempt <= opt.retries && g_signal == 0) {
          say(names[done.unit] + ": attempt " + std::to_string(done.attempt) + " failed (" + reason + "); retrying");
          waiting.push_front(done.unit);
        } else {
          out.failed[done.unit] = reason;
        }
      }
      if (!reaped && g_signal == 0) std::this_thread::sleep_for(std::chrono::duration<double>(opt.poll_s));
    }
  } catch (...) {
    cancel_running();  // no job outlives a driver that gives up
    throw;
  }
  if (g_signal == 0) return out;

  out.interrupted_by = g_signal;
  say("interrupted: cancelling " + std::to_string(running.size()) + " Slurm job" + (running.size() == 1 ? "" : "s"));
  cancel_running();
  for (const std::size_t u : waiting)
    if (out.failed[u].empty()) out.failed[u] = "not started (interrupted)";
  return out;
}

}  // namespace mskb
