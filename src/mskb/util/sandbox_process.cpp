// Process hygiene around untrusted code (limits, environment, dumpability, the output drain) and
// the candidate's two sandbox steps (sandbox.hpp says why in this order).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mskb/util/sandbox.hpp"

extern char** environ;

namespace mskb::sandbox {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

#ifndef PR_GET_SPECULATION_CTRL
#define PR_GET_SPECULATION_CTRL 52
#endif
#ifndef PR_SPEC_STORE_BYPASS
#define PR_SPEC_STORE_BYPASS 0
#endif
#ifndef PR_SPEC_INDIRECT_BRANCH
#define PR_SPEC_INDIRECT_BRANCH 1
#endif
#ifndef PR_SPEC_FORCE_DISABLE
#define PR_SPEC_FORCE_DISABLE (1UL << 3)
#endif

// This thread's speculation controls (PR_GET_SPECULATION_CTRL; -1 where the kernel has none).
// A kernel booted with spec_store_bypass_disable=seccomp or spectre_v2_user=seccomp forces the
// mitigations on every thread a seccomp filter goes on: the candidate's host code (the timed
// call's launch and synchronization) may then run slower than the same code unconfined. The
// level names it, so a sandbox cost measured on such a kernel is explained where it is reported.
struct SpeculationState {
  long store_bypass = -1;
  long indirect_branch = -1;
};
SpeculationState speculation_state() {
  return {::prctl(PR_GET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, 0, 0, 0),
          ::prctl(PR_GET_SPECULATION_CTRL, PR_SPEC_INDIRECT_BRANCH, 0, 0, 0)};
}
bool forced(long state) { return state >= 0 && (state & static_cast<long>(PR_SPEC_FORCE_DISABLE)) != 0; }
std::string forced_mitigations(const SpeculationState& before, const SpeculationState& after) {
  std::string what;
  if (forced(after.store_bypass) && !forced(before.store_bypass)) what = "store bypass";
  if (forced(after.indirect_branch) && !forced(before.indirect_branch))
    what += what.empty() ? "indirect branch" : " and indirect branch";
  return what.empty() ? what : "the kernel forced the " + what + " speculation mitigation on with the filter";
}

std::string parent_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The folders of every file mapped into this process (the runner, libstdc++, libcuda, ...): what
// the process has already loaded, it may read again (the dynamic loader does, for dlopen).
std::vector<std::string> mapped_folders() {
  std::set<std::string> dirs;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const auto p = line.find(" /");
    if (p == std::string::npos) continue;
    std::string file = line.substr(p + 1);
    if (file.rfind("/dev/", 0) == 0 || file.rfind("/proc/", 0) == 0 || file.rfind("/memfd:", 0) == 0) continue;
    const auto del = file.find(" (deleted)");
    if (del != std::string::npos) file.resize(del);
    dirs.insert(parent_dir(file));
  }
  return {dirs.begin(), dirs.end()};
}

std::vector<std::string> split_colon(const char* v) {
  std::vector<std::string> out;
  if (!v) return out;
  std::stringstream s(v);
  std::string part;
  while (std::getline(s, part, ':'))
    if (!part.empty() && part[0] == '/') out.push_back(part);
  return out;
}

// The folders /etc/ld.so.conf.d/*.conf name (one absolute path a line).
std::vector<std::string> loader_folders() {
  std::vector<std::string> out;
  DIR* d = ::opendir("/etc/ld.so.conf.d");
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() < 6 || name.compare(name.size() - 5, 5, ".conf") != 0) continue;
    std::ifstream in("/etc/ld.so.conf.d/" + name);
    std::string line;
    while (std::getline(in, line)) {
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
      if (!line.empty() && line[0] == '/') out.push_back(line);
    }
  }
  ::closedir(d);
  return out;
}

bool secret_name(const std::string& name) {
  std::string up = name;
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const char* w : {"KEY", "TOKEN", "SECRET", "PASSW", "CREDENTIAL", "AUTH", "COOKIE", "SESSION"})
    if (up.find(w) != std::string::npos) return true;
  return false;
}

// The SIGSYS diagnostic (debug mode): async-signal-safe, then dies of SIGSYS as the kill would.
void on_sigsys(int, siginfo_t* info, void*) {
  char buf[160];
  const char head[] = "mskb sandbox: refused system call ";
  std::size_t n = 0;
  for (const char* c = head; *c; ++c) buf[n++] = *c;
  long nr = info ? info->si_syscall : -1;
  char digits[24];
  int d = 0;
  if (nr < 0) {
    buf[n++] = '-';
    nr = -nr;
  }
  do {
    digits[d++] = static_cast<char>('0' + nr % 10);
    nr /= 10;
  } while (nr > 0 && d < 20);
  while (d > 0) buf[n++] = digits[--d];
  buf[n++] = '\n';
  (void)!::write(2, buf, n);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGSYS, &dfl, nullptr);
  ::syscall(SYS_tgkill, ::getpid(), ::syscall(SYS_gettid), SIGSYS);  // delivered when this handler returns
}

}  // namespace

int thread_count() {
  DIR* d = ::opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  while (const dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n;
}

void apply_limits(const Limits& limits) {
  auto set = [](int resource, rlim_t value, const char* name) {
    rlimit cur{};
    if (::getrlimit(resource, &cur) != 0) throw std::runtime_error(std::string("getrlimit ") + name + ": " + errno_text(errno));
    const rlim_t v = cur.rlim_max == RLIM_INFINITY ? value : std::min(value, cur.rlim_max);
    const rlimit r{v, v};
    if (::setrlimit(resource, &r) != 0) throw std::runtime_error(std::string("setrlimit ") + name + ": " + errno_text(errno));
  };
  set(RLIMIT_CORE, 0, "RLIMIT_CORE");
  set(RLIMIT_FSIZE, static_cast<rlim_t>(limits.file_size), "RLIMIT_FSIZE");
  set(RLIMIT_NOFILE, static_cast<rlim_t>(limits.open_files), "RLIMIT_NOFILE");
}

std::vector<std::string> scrub_environment(const std::vector<std::string>& env) {
  static const char* const exact[] = {"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "HOME", "LANG", "TZ", "TMPDIR", "USER", "TERM"};
  static const char* const prefixes[] = {"CUDA_", "NVIDIA_", "NV_", "__NV", "NVTX_", "MSKB_", "LC_", "OMPI_", "SLURM_"};
  // Under an injected tool (compute-sanitizer follows the child through variables of its own):
  // everything but the secrets.
  bool tool = false;
  for (const std::string& kv : env) tool = tool || (kv.rfind("CUDA_INJECTION64_PATH=", 0) == 0 && kv.size() > 22);
  std::vector<std::string> out;
  for (const std::string& kv : env) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string name = kv.substr(0, eq);
    if (secret_name(name)) continue;
    bool keep = tool;
    for (const char* e : exact) keep = keep || name == e;
    for (const char* p : prefixes) keep = keep || name.rfind(p, 0) == 0;
    if (keep) out.push_back(kv);
  }
  return out;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
  return out;
}

void make_not_dumpable() {
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) throw std::runtime_error("PR_SET_DUMPABLE: " + errno_text(errno));
}

bool killed_by_seccomp(int wait_status) { return WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGSYS; }

OutputDrain::OutputDrain(int sink_fd, std::size_t cap) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error("pipe for the child's output: " + errno_text(errno));
  read_fd_ = p[0];
  write_fd_ = p[1];
  const int rfd = read_fd_;
  thread_ = std::thread([rfd, sink_fd, cap] {
    char buf[16384];
    std::size_t written = 0;
    bool said = false;
    for (;;) {
      const ssize_t n = ::read(rfd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::size_t keep = written >= cap ? 0 : std::min<std::size_t>(static_cast<std::size_t>(n), cap - written);
      if (keep > 0 && sink_fd >= 0) {
        (void)!::write(sink_fd, buf, keep);
        written += keep;
      }
      if (keep < static_cast<std::size_t>(n) && !said && sink_fd >= 0) {
        const char note[] = "\n[mskb: the kernel's process wrote more output than the log keeps; the rest is dropped]\n";
        (void)!::write(sink_fd, note, sizeof note - 1);
        said = true;
      }
    }
  });
}

void OutputDrain::parent_after_fork() {
  if (write_fd_ >= 0) ::close(write_fd_);
  write_fd_ = -1;
}

void OutputDrain::join() {
  parent_after_fork();
  if (thread_.joinable()) thread_.join();
  if (read_fd_ >= 0) ::close(read_fd_);
  read_fd_ = -1;
}

OutputDrain::~OutputDrain() { join(); }

// ---------------------------------------------------------------------------------------------

std::vector<FsRule> CandidateSandbox::candidate_rules(const CandidatePaths& paths) {
  std::vector<FsRule> rules;
  auto add = [&](const std::string& p, unsigned rights) { rules.push_back({p, rights, true}); };
  for (const char* p : {"/usr", "/lib", "/lib64", "/lib32", "/opt", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                        "/etc/localtime", "/etc/nvidia", "/etc/OpenCL", "/etc/vulkan"})
    add(p, kRead | kExec);
  for (const std::string& d : mapped_folders()) add(d, kRead | kExec);
  for (const std::string& d : split_colon(std::getenv("LD_LIBRARY_PATH"))) add(d, kRead | kExec);
  // The loader's configured folders, and the operator's own (MSKB_SANDBOX_READ: a library folder
  // elsewhere, e.g. a cuDNN found through a RUNPATH).
  for (const std::string& d : loader_folders()) add(d, kRead | kExec);
  for (const std::string& d : split_colon(std::getenv("MSKB_SANDBOX_READ"))) add(d, kRead | kExec);
  if (!paths.library.empty()) add(parent_dir(paths.library), kRead | kExec);
  if (!paths.task_file.empty()) add(parent_dir(paths.task_file), kRead);
  for (const std::string& l : paths.libraries)
    if (!l.empty()) add(parent_dir(l), kRead | kExec);
  // What CUDA's start-up reads, and /proc/<pid>/task written (the threads' names): not /proc as a
  // whole (the verifier's environ and maps are there).
  add("/sys", kRead);
  for (const char* p : {"/proc/self", "/proc/driver/nvidia", "/proc/devices", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat",
                        "/proc/sys/vm", "/proc/sys/kernel/numa_balancing", "/proc/modules", "/proc/filesystems"})
    add(p, kRead);
  add("/proc/self/task", kRead | kWrite);
  // The device files: read, write and ioctl (the control file, the GPUs, UVM, the capabilities).
  if (DIR* d = ::opendir("/dev")) {
    while (const dirent* e = ::readdir(d))
      if (std::strncmp(e->d_name, "nvidia", 6) == 0) add(std::string("/dev/") + e->d_name, kRead | kWrite | kDevIoctl);
    ::closedir(d);
  }
  add("/dev/null", kRead | kWrite | kDevIoctl);
  add("/dev/zero", kRead | kWrite);
  if (paths.under_tool || under_injection_tool()) {
    for (const char* p : {static_cast<const char*>("/tmp"), static_cast<const char*>("/dev/shm"), static_cast<const char*>(std::getenv("TMPDIR"))})
      if (p && *p == '/') add(p, kRead | kWrite);
  }
  add("/dev/urandom", kRead);
  add("/dev/random", kRead);
  return rules;
}

void CandidateSandbox::confine_files(const CandidatePaths& paths) {
  if (step1_) return;
  tool_ = paths.under_tool || under_injection_tool();
  const int threads = thread_count();
  if (threads != 1) {
    // An injected CUDA tool (ncu, compute-sanitizer) starts its own thread before main. Landlock
    // then binds this thread and the threads it creates (CUDA's, the kernel's), not the tool's:
    // said in the level. Without a tool, more than one thread here is a harness error.
    if (!tool_)
      throw std::runtime_error("the sandbox's first step needs a single-threaded process (" + std::to_string(threads) +
                               " threads): Landlock would bind only this thread");
    tool_threads_note_ = "landlock binds the candidate's threads, not the " + std::to_string(threads - 1) +
                         " thread(s) the injected tool started";
  }
  mode_ = mode_from_environment();       // throws on a value it does not know
  spec_allow_ = speculation_allowed();  // likewise, before anything is confined
  apply_limits(Limits{});
  if (mode_ == Mode::off || mode_ == Mode::calls) {  // no Landlock; level() says so in every report
    step1_ = true;
    return;
  }
  LandlockRuleset::Scopes scopes;
  if (tool_) scopes.tcp = scopes.abstract_unix = false;
  LandlockRuleset rs(candidate_rules(paths), scopes);
  if (rs.abi() <= 0 && !rs.ok()) {
    landlock_note_ = "landlock: " + (rs.error().empty() ? std::string("not available") : rs.error());
    // Where Landlock is missing (or the kernel refuses a ruleset), seccomp alone still holds
    // (read-only opens); the level records it. Anything else that fails is a setup failure.
    std::string why;
    if (landlock_abi(&why) > 0) throw std::runtime_error("Landlock is available but the ruleset failed: " + rs.error());
  } else {
    const int e = rs.restrict_self();
    if (e != 0) throw std::runtime_error("landlock_restrict_self: " + errno_text(e));
    landlock_abi_ = rs.abi();
  }
  step1_ = true;
}

void CandidateSandbox::confine_calls() {
  if (!step1_) throw std::runtime_error("the sandbox's second step before its first");
  if (seccomp_ || mode_ == Mode::off || mode_ == Mode::files) return;
  if (tool_ && !strict_under_tools()) {
    tool_note_ = "no seccomp under an injected CUDA tool";
    return;
  }
  const OnViolation mode = violation_mode_from_environment();
  if (mode == OnViolation::trap) install_debug_sigsys_handler();
  const SpeculationState before = speculation_state();
  install_seccomp(SeccompPolicy{::getpid(), mode, spec_allow_});
  seccomp_ = true;
  speculation_note_ = forced_mitigations(before, speculation_state());
  if (spec_allow_) speculation_note_ += std::string(speculation_note_.empty() ? "" : "; ") + "MSKB_SANDBOX_SPEC=allow";
}

std::string CandidateSandbox::level() const {
  if (mode_ == Mode::off) return "off (MSKB_SANDBOX=off: the kernel ran unconfined, for measurement only)";
  std::string s;
  if (landlock_abi_ > 0) s = "landlock-" + std::to_string(landlock_abi_);
  if (seccomp_) s += s.empty() ? "seccomp" : "+seccomp";
  if (s.empty()) s = "none";
  if (landlock_abi_ <= 0 && !landlock_note_.empty()) s += " (" + landlock_note_ + ")";
  if (!tool_threads_note_.empty()) s += " (" + tool_threads_note_ + ")";
  if (!tool_note_.empty()) s += " (" + tool_note_ + ")";
  if (!speculation_note_.empty()) s += " (" + speculation_note_ + ")";
  if (mode_ == Mode::files) s += " (MSKB_SANDBOX=files: no seccomp, for measurement only)";
  if (mode_ == Mode::calls) s += " (MSKB_SANDBOX=calls: no Landlock, for measurement only)";
  if (violation_mode_from_environment() == OnViolation::trap) s += " [debug: trap]";
  return s;
}

bool CandidateSandbox::under_injection_tool() {
  const char* v = std::getenv("CUDA_INJECTION64_PATH");
  if (v && *v) return true;
  // ncu launches its target with its interceptor preloaded (it sets the CUDA injection later,
  // inside the process): measured on the H200, the target starts with a second thread and no
  // CUDA_INJECTION64_PATH.
  const char* pre = std::getenv("LD_PRELOAD");
  if (!pre) return false;
  const std::string p(pre);
  for (const char* mark : {"InjectionTarget", "Nsight", "nsight", "compute-sanitizer", "sanitizer-public"})
    if (p.find(mark) != std::string::npos) return true;
  return false;
}

CandidateSandbox::Mode CandidateSandbox::mode_from_environment() {
  const char* v = std::getenv("MSKB_SANDBOX");
  if (!v || !*v || std::strcmp(v, "on") == 0) return Mode::on;
  if (std::strcmp(v, "off") == 0) return Mode::off;
  if (std::strcmp(v, "files") == 0) return Mode::files;
  if (std::strcmp(v, "calls") == 0) return Mode::calls;
  throw std::runtime_error(std::string("MSKB_SANDBOX=") + v + ": expected on, off, files or calls");
}

bool CandidateSandbox::speculation_allowed() {
  const char* v = std::getenv("MSKB_SANDBOX_SPEC");
  if (!v || !*v || std::strcmp(v, "kernel") == 0) return false;
  if (std::strcmp(v, "allow") == 0) return true;
  throw std::runtime_error(std::string("MSKB_SANDBOX_SPEC=") + v + ": expected kernel or allow");
}

bool CandidateSandbox::strict_under_tools() {
  const char* v = std::getenv("MSKB_SANDBOX_TOOLS");
  return v && std::strcmp(v, "strict") == 0;
}

OnViolation violation_mode_from_environment() {
  const char* v = std::getenv("MSKB_SANDBOX_DEBUG");
  return v && std::strcmp(v, "trap") == 0 ? OnViolation::trap : OnViolation::kill;
}

void install_debug_sigsys_handler() {
  (void)syscall_name(0);  // the tables exist before the handler may read them
  struct sigaction sa {};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGSYS, &sa, nullptr) != 0) throw std::runtime_error("sigaction(SIGSYS): " + errno_text(errno));
}

}  // namespace mskb::sandbox
