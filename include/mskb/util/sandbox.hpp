// The OS sandbox for untrusted code: the candidate process (the only process that loads a kernel
// library under test) and the nvcc build of an untrusted kernel file. Host-only, no CUDA headers,
// no libseccomp: the seccomp-bpf program is written here by hand; Landlock through its system
// calls, with the ABI detected and the rights it lacks masked. docs/harness.md section 10 is the
// threat model; the order the candidate installs the pieces in matters (see CandidateSandbox).
//
//   Landlock (filesystem, TCP, signal and abstract-socket scopes) binds the thread that applies it
//   and the threads it creates later: it goes on while the process is single-threaded. seccomp
//   (SECCOMP_FILTER_FLAG_TSYNC: every thread) goes on after the CUDA context exists, because CUDA's
//   start-up opens device files read-write and creates a socket; the kernel library is dlopened
//   after both. A refused call of the dangerous class (exec, fork, sockets, ptrace, ...) kills the
//   process with SIGSYS (SECCOMP_RET_KILL_PROCESS: no handler of the kernel's can intercept it);
//   anything else not allowed returns EPERM. MSKB_SANDBOX_DEBUG=trap makes the kill a SIGSYS trap
//   whose handler (installed by the harness before the kernel is loaded; the kernel can replace
//   it, so this is diagnostics, never a defence) names the call on stderr before dying of SIGSYS.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace mskb::sandbox {

// ---------------------------------------------------------------------------------------------
// Landlock

// What a rule grants beneath a path (combined with |). Rights the running kernel's ABI lacks are
// masked (they are then neither handled nor granted).
enum FsRight : unsigned {
  kRead = 1u << 0,     // read files, list directories
  kExec = 1u << 1,     // execute files (and map them executable through execve)
  kWrite = 1u << 2,    // open files for writing, truncate; in directories create/remove/rename
  kDevIoctl = 1u << 3, // ioctl on device files (Landlock ABI 5)
};

struct FsRule {
  std::string path;
  unsigned rights = kRead;
  bool optional = true;  // a missing path is skipped (else: the ruleset cannot be built)
};

// The running kernel's Landlock ABI (0: none; `why` says why: not built in, disabled, ...).
int landlock_abi(std::string* why = nullptr);

// A Landlock ruleset built in this process (paths opened O_PATH here, before any fork): the
// child that applies it (restrict_self) does only two system calls, safe after fork in a
// multi-threaded parent. Not copyable; the descriptor is close-on-exec.
class LandlockRuleset {
 public:
  struct Scopes {
    bool tcp = true;              // no TCP bind/connect at all (ABI 4)
    bool signals = true;          // no signal to a process outside the domain (ABI 6)
    bool abstract_unix = true;    // no connect to an abstract socket outside the domain (ABI 6)
  };
  LandlockRuleset() = default;
  // Builds the ruleset; never throws: ok() false and error() say what failed (abi() 0: Landlock is
  // not available at all).
  LandlockRuleset(const std::vector<FsRule>& rules, Scopes scopes);
  ~LandlockRuleset();
  LandlockRuleset(LandlockRuleset&& o) noexcept;
  LandlockRuleset& operator=(LandlockRuleset&& o) noexcept;
  LandlockRuleset(const LandlockRuleset&) = delete;
  LandlockRuleset& operator=(const LandlockRuleset&) = delete;

  bool ok() const { return fd_ >= 0; }
  int abi() const { return abi_; }
  const std::string& error() const { return error_; }
  // The paths that were skipped because they do not exist (for the record).
  const std::vector<std::string>& skipped() const { return skipped_; }
  // PR_SET_NO_NEW_PRIVS, then landlock_restrict_self on the calling thread. 0 or an errno;
  // async-signal-safe (no allocation).
  int restrict_self() const noexcept;

 private:
  int fd_ = -1;
  int abi_ = 0;
  std::string error_;
  std::vector<std::string> skipped_;
};

// ---------------------------------------------------------------------------------------------
// seccomp

enum class OnViolation { kill, trap };

// The candidate's allowlist, for the running architecture (x86_64 or aarch64; anything else
// throws). `self`: the process's own pid (kill/tgkill only to it).
struct SeccompPolicy {
  pid_t self = 0;
  OnViolation on_violation = OnViolation::kill;
  // SECCOMP_FILTER_FLAG_SPEC_ALLOW: the filter does not force the speculation mitigations a kernel
  // booted with spec_store_bypass_disable=seccomp or spectre_v2_user=seccomp puts on filtered
  // threads (MSKB_SANDBOX_SPEC=allow, to measure what they cost the candidate's host path).
  bool speculation_allow = false;
};

// Installs the filter with PR_SET_NO_NEW_PRIVS and SECCOMP_FILTER_FLAG_TSYNC (every thread of
// the process). Throws std::runtime_error with the reason when it cannot (fail closed: the
// caller must not go on to run untrusted code).
void install_seccomp(const SeccompPolicy& policy);

// The number of BPF instructions of the candidate's filter (for tests and the record).
std::size_t seccomp_program_size(const SeccompPolicy& policy);

// "openat", "execve", ... for this architecture's call numbers (empty when unknown).
std::string syscall_name(long nr);

// ---------------------------------------------------------------------------------------------
// Process hygiene

// Threads of this process (from /proc/self/task; -1 when it cannot be read).
int thread_count();

// Core dumps off, file size bounded, open files bounded. Throws std::runtime_error on failure.
struct Limits {
  std::uint64_t file_size = 64ull << 20;
  std::uint64_t open_files = 4096;
};
void apply_limits(const Limits& limits);

// The environment a candidate or a build gets: only the variables it needs (PATH, LD_LIBRARY_PATH,
// CUDA_*, NVIDIA_*, NV_*, MSKB_*, locale, TMPDIR, HOME...), never one whose name says it carries a
// secret (KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, AUTH). `env`: "NAME=value" entries.
std::vector<std::string> scrub_environment(const std::vector<std::string>& env);
// This process's environment as "NAME=value" entries.
std::vector<std::string> current_environment();

// This process (the verifier) may not be ptraced or dumped by its children.
void make_not_dumpable();

// What a child's wait status says about the sandbox: true when it died of SIGSYS (a refused
// system call under SECCOMP_RET_KILL_PROCESS).
bool killed_by_seccomp(int wait_status);

// The child's stdout and stderr as a pipe that a thread of ours drains into `sink_fd` (the log),
// at most `cap` bytes (the rest is read and dropped): the child never holds the log file itself.
class OutputDrain {
 public:
  OutputDrain() = default;
  explicit OutputDrain(int sink_fd, std::size_t cap = 4u << 20);
  ~OutputDrain();
  OutputDrain(const OutputDrain&) = delete;
  OutputDrain& operator=(const OutputDrain&) = delete;
  // The write end for the child (dup2 it onto 1 and 2 after fork); the parent calls
  // parent_after_fork() to close its copy, so the drain ends when the child has gone.
  int child_fd() const { return write_fd_; }
  void parent_after_fork();
  // Waits for the child's end of the pipe to close and the drain to finish.
  void join();

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
  std::thread thread_;
};

// ---------------------------------------------------------------------------------------------
// The candidate's sandbox, in its two steps.

struct CandidatePaths {
  std::string library;    // the kernel library (its folder: read + execute)
  std::string task_file;  // a task file, if any (its folder: read)
  // Libraries the harness itself loads into the candidate after step 1 (CUPTI, for device time):
  // their folders read + execute.
  std::vector<std::string> libraries;
  bool under_tool = false;  // the caller knows a CUDA tool (ncu, compute-sanitizer) runs it (profile mode)
};

class CandidateSandbox {
 public:
  // Step 1, before CUDA starts, in a single-threaded process: resource limits, then Landlock
  // (read/execute on system and CUDA library folders, the folders of every mapped library, the
  // kernel's and task file's folders, the /proc and /sys entries CUDA reads; read/write/ioctl on
  // /dev/nvidia* and /dev/null; nothing writable elsewhere). Where Landlock is missing or refused
  // the level says so and step 2 still holds. Throws std::runtime_error (sandbox_setup_failed)
  // when the process is multi-threaded or a step that is available fails.
  void confine_files(const CandidatePaths& paths);
  // Step 2, after the CUDA context exists: the seccomp filter on every thread. Throws
  // std::runtime_error when it cannot be installed.
  void confine_calls();
  // "landlock-7+seccomp", "seccomp (landlock: not available: ...)", ... for the reports.
  std::string level() const;
  bool files_confined() const { return landlock_abi_ > 0; }
  bool calls_confined() const { return seccomp_; }

  // The rules step 1 applies (for tests and the record).
  static std::vector<FsRule> candidate_rules(const CandidatePaths& paths);

  // Under an injected CUDA tool (CUDA_INJECTION64_PATH: compute-sanitizer, ncu), whose library in
  // this process talks to its front end through sockets and files in /tmp and /dev/shm: Landlock
  // confines the filesystem only (those two folders writable, no TCP or abstract-socket scope) and
  // step 2 is left out, unless MSKB_SANDBOX_TOOLS=strict. The level says so.
  static bool under_injection_tool();
  static bool strict_under_tools();
  // MSKB_SANDBOX, for measurement only (never a default; every report's sandbox field names it):
  //   on (or unset)  both steps;
  //   off            resource limits only, no Landlock and no seccomp (what the sandbox costs, or
  //                  whether it is the cause of a failure);
  //   files          Landlock without seccomp;   calls   seccomp without Landlock
  // (which of the two steps costs what). Any other value throws (sandbox_setup_failed): a typo
  // must not run a kernel less confined than asked.
  enum class Mode { on, off, files, calls };
  static Mode mode_from_environment();
  // MSKB_SANDBOX_SPEC=allow: the filter goes on with SeccompPolicy::speculation_allow (the level
  // says so); unset or "kernel": the kernel's own choice. Any other value throws.
  static bool speculation_allowed();

 private:
  int landlock_abi_ = 0;
  std::string landlock_note_;
  std::string tool_note_;
  std::string tool_threads_note_;
  bool seccomp_ = false;
  bool step1_ = false;
  Mode mode_ = Mode::on;      // read at the first step
  bool spec_allow_ = false;   // MSKB_SANDBOX_SPEC=allow, read at the first step
  std::string speculation_note_;  // mitigations the kernel forced on when the filter went on
  bool tool_ = false;  // under an injected CUDA tool (detected, or said by the caller)
};

// MSKB_SANDBOX_DEBUG=trap: kill -> trap with a handler that names the call on stderr.
OnViolation violation_mode_from_environment();
// Installs the diagnostic SIGSYS handler (debug mode only).
void install_debug_sigsys_handler();

// ---------------------------------------------------------------------------------------------
// The build's confinement (nvcc and its children).

struct BuildPaths {
  std::vector<std::string> read;   // toolkit, system include and library folders, the kernel's folder, -I folders
  std::vector<std::string> write;  // the build's private folder (its TMPDIR too)
};
// The rules for a build: system folders read/execute, `read` read, `write` read/write, /dev/null.
std::vector<FsRule> build_rules(const BuildPaths& paths);

}  // namespace mskb::sandbox
