// The candidate's seccomp-bpf allowlist, written by hand (no libseccomp). Three answers:
//   allow            what the CUDA runtime needs once its context exists, and what dlopen needs;
//   kill the process the calls whose intent is unambiguous (exec, fork, sockets, ptrace, another
//                    process's memory or signals, io_uring, bpf, perf, mounts, namespaces, keys,
//                    userfaultfd, modules): SECCOMP_RET_KILL_PROCESS, the verifier sees SIGSYS;
//   EPERM            everything else, write opens included (CUDA's cache writes fail harmlessly).
// The program checks the architecture (and refuses x32 calls on x86_64) first; arguments are
// compared on their low 32 bits where the kernel reads an int (open flags, pids, ioctl commands).
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "mskb/util/sandbox.hpp"

namespace mskb::sandbox {

namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
#error "the candidate's seccomp filter knows x86_64 and aarch64 only"
#endif

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC 1UL
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif

constexpr std::uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr std::uint32_t kEperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
constexpr std::uint32_t kEnosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);

constexpr std::uint32_t arg_lo(int i) { return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * i); }
constexpr std::uint32_t arg_hi(int i) { return arg_lo(i) + 4; }  // little-endian: x86_64 and aarch64

struct Named {
  long nr;
  const char* name;
};
#define MSKB_SC(n) Named{__NR_##n, #n}

// What CUDA's runtime, the harness's candidate loop and the dynamic loader need, without arguments
// to check. Hot calls first (the program is a linear scan).
const std::vector<Named>& allowed_calls() {
  static const std::vector<Named> v = {
      MSKB_SC(futex), MSKB_SC(read), MSKB_SC(write), MSKB_SC(ppoll), MSKB_SC(clock_gettime), MSKB_SC(clock_nanosleep),
      MSKB_SC(nanosleep), MSKB_SC(sched_yield), MSKB_SC(mmap), MSKB_SC(munmap), MSKB_SC(mprotect), MSKB_SC(mremap),
      MSKB_SC(madvise), MSKB_SC(brk), MSKB_SC(mincore), MSKB_SC(msync), MSKB_SC(mlock), MSKB_SC(mlock2), MSKB_SC(munlock),
      MSKB_SC(membarrier), MSKB_SC(get_mempolicy), MSKB_SC(set_mempolicy), MSKB_SC(mbind), MSKB_SC(pkey_mprotect),
      MSKB_SC(pkey_alloc), MSKB_SC(pkey_free), MSKB_SC(readv), MSKB_SC(writev), MSKB_SC(pread64), MSKB_SC(pwrite64),
      MSKB_SC(preadv), MSKB_SC(pwritev), MSKB_SC(preadv2), MSKB_SC(pwritev2), MSKB_SC(recvmsg), MSKB_SC(sendmsg),
      MSKB_SC(recvfrom), MSKB_SC(shutdown), MSKB_SC(close), MSKB_SC(close_range), MSKB_SC(dup), MSKB_SC(dup3),
      MSKB_SC(fcntl), MSKB_SC(lseek), MSKB_SC(fstat), MSKB_SC(newfstatat), MSKB_SC(statx), MSKB_SC(faccessat),
      MSKB_SC(faccessat2), MSKB_SC(readlinkat), MSKB_SC(getdents64), MSKB_SC(getcwd), MSKB_SC(statfs), MSKB_SC(fstatfs),
      MSKB_SC(fadvise64), MSKB_SC(fsync), MSKB_SC(fdatasync), MSKB_SC(umask), MSKB_SC(pipe2), MSKB_SC(eventfd2),
      MSKB_SC(epoll_create1), MSKB_SC(epoll_ctl), MSKB_SC(epoll_pwait), MSKB_SC(epoll_pwait2), MSKB_SC(pselect6),
      MSKB_SC(timerfd_create), MSKB_SC(timerfd_settime), MSKB_SC(timerfd_gettime), MSKB_SC(timer_create),
      MSKB_SC(timer_settime), MSKB_SC(timer_gettime), MSKB_SC(timer_getoverrun), MSKB_SC(timer_delete),
      MSKB_SC(getitimer), MSKB_SC(setitimer), MSKB_SC(clock_getres), MSKB_SC(gettimeofday), MSKB_SC(set_tid_address),
      MSKB_SC(set_robust_list), MSKB_SC(rseq), MSKB_SC(futex_waitv), MSKB_SC(rt_sigaction), MSKB_SC(rt_sigprocmask),
      MSKB_SC(rt_sigreturn), MSKB_SC(rt_sigpending), MSKB_SC(rt_sigsuspend), MSKB_SC(rt_sigtimedwait),
      MSKB_SC(sigaltstack), MSKB_SC(restart_syscall), MSKB_SC(getpid), MSKB_SC(getppid), MSKB_SC(gettid), MSKB_SC(getuid),
      MSKB_SC(geteuid), MSKB_SC(getgid), MSKB_SC(getegid), MSKB_SC(getresuid), MSKB_SC(getresgid), MSKB_SC(getgroups),
      MSKB_SC(getpgid), MSKB_SC(getsid), MSKB_SC(getrlimit), MSKB_SC(setrlimit), MSKB_SC(getrusage), MSKB_SC(times),
      MSKB_SC(uname), MSKB_SC(sysinfo), MSKB_SC(getcpu), MSKB_SC(getrandom), MSKB_SC(getpriority), MSKB_SC(capget),
      MSKB_SC(sched_getaffinity), MSKB_SC(sched_getparam), MSKB_SC(sched_getscheduler), MSKB_SC(sched_get_priority_max),
      MSKB_SC(sched_get_priority_min), MSKB_SC(exit), MSKB_SC(exit_group),
#if defined(__x86_64__)
      MSKB_SC(poll), MSKB_SC(select), MSKB_SC(epoll_wait), MSKB_SC(epoll_create), MSKB_SC(eventfd), MSKB_SC(pipe),
      MSKB_SC(stat), MSKB_SC(lstat), MSKB_SC(access), MSKB_SC(readlink), MSKB_SC(getdents), MSKB_SC(dup2), MSKB_SC(time),
      MSKB_SC(arch_prctl), MSKB_SC(getpgrp), MSKB_SC(alarm), MSKB_SC(pause),
#endif
  };
  return v;
}

// The calls whose intent is unambiguous: the process is killed.
const std::vector<Named>& fatal_calls() {
  static const std::vector<Named> v = {
      MSKB_SC(execve), MSKB_SC(execveat), MSKB_SC(socket), MSKB_SC(socketpair), MSKB_SC(ptrace),
      MSKB_SC(process_vm_readv), MSKB_SC(process_vm_writev), MSKB_SC(process_madvise), MSKB_SC(kcmp),
      MSKB_SC(pidfd_send_signal), MSKB_SC(io_uring_setup),
      MSKB_SC(io_uring_enter), MSKB_SC(io_uring_register), MSKB_SC(bpf), MSKB_SC(perf_event_open), MSKB_SC(mount),
      MSKB_SC(umount2), MSKB_SC(pivot_root), MSKB_SC(chroot), MSKB_SC(unshare), MSKB_SC(setns), MSKB_SC(fsopen),
      MSKB_SC(fsconfig), MSKB_SC(fsmount), MSKB_SC(fspick), MSKB_SC(move_mount), MSKB_SC(open_tree),
      MSKB_SC(mount_setattr), MSKB_SC(keyctl), MSKB_SC(add_key), MSKB_SC(request_key), MSKB_SC(userfaultfd),
      MSKB_SC(open_by_handle_at), MSKB_SC(name_to_handle_at), MSKB_SC(init_module), MSKB_SC(finit_module),
      MSKB_SC(delete_module), MSKB_SC(kexec_load), MSKB_SC(kexec_file_load), MSKB_SC(reboot), MSKB_SC(swapon),
      MSKB_SC(swapoff),
#if defined(__x86_64__)
      MSKB_SC(fork), MSKB_SC(vfork), MSKB_SC(iopl), MSKB_SC(ioperm),
#endif
  };
  return v;
}

// Calls with their arguments checked, or refused with EPERM (named here for syscall_name).
// pidfd_open / pidfd_getfd are refused, not fatal: a driver path (CUDA IPC) that tried them
// degrades (the verifier falls back to host regions) instead of killing every evaluation.
const std::vector<Named>& checked_calls() {
  static const std::vector<Named> v = {
      MSKB_SC(ioctl), MSKB_SC(openat), MSKB_SC(openat2), MSKB_SC(clone), MSKB_SC(clone3), MSKB_SC(kill),
      MSKB_SC(tgkill), MSKB_SC(tkill), MSKB_SC(rt_sigqueueinfo), MSKB_SC(rt_tgsigqueueinfo), MSKB_SC(prctl),
      MSKB_SC(prlimit64), MSKB_SC(sendto), MSKB_SC(sched_setaffinity), MSKB_SC(seccomp), MSKB_SC(flock),
      MSKB_SC(ftruncate), MSKB_SC(fallocate), MSKB_SC(memfd_create), MSKB_SC(connect), MSKB_SC(bind), MSKB_SC(listen),
      MSKB_SC(accept4), MSKB_SC(renameat2), MSKB_SC(unlinkat), MSKB_SC(mkdirat), MSKB_SC(linkat), MSKB_SC(symlinkat),
      MSKB_SC(fchmodat), MSKB_SC(fchownat), MSKB_SC(truncate), MSKB_SC(wait4), MSKB_SC(waitid),
      MSKB_SC(pidfd_open), MSKB_SC(pidfd_getfd),
#if defined(__x86_64__)
      MSKB_SC(open), MSKB_SC(creat), MSKB_SC(rename), MSKB_SC(unlink), MSKB_SC(mkdir), MSKB_SC(accept),
#endif
  };
  return v;
}
#undef MSKB_SC

class Program {
 public:
  void stmt(std::uint16_t code, std::uint32_t k) { p_.push_back(BPF_STMT(code, k)); }
  void jump(std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) { p_.push_back(BPF_JUMP(code, k, jt, jf)); }
  void ret(std::uint32_t action) { stmt(BPF_RET | BPF_K, action); }
  void load_nr() { stmt(BPF_LD | BPF_W | BPF_ABS, static_cast<std::uint32_t>(offsetof(seccomp_data, nr))); }
  void load(std::uint32_t off) { stmt(BPF_LD | BPF_W | BPF_ABS, off); }

  // nr -> action (A holds nr; it still does after, on the not-taken path).
  void simple(long nr, std::uint32_t action) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 1);
    ret(action);
  }
  // nr -> a block that ends in returns on every path (it may clobber A).
  void block(long nr, const Program& b) {
    if (b.p_.size() > 255) throw std::logic_error("seccomp block too long");
    jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, static_cast<std::uint8_t>(b.p_.size()));
    p_.insert(p_.end(), b.p_.begin(), b.p_.end());
  }
  // Block: ((low32(arg i) & mask) == value) ? yes : no.
  static Program masked(int i, std::uint32_t mask, std::uint32_t value, std::uint32_t yes, std::uint32_t no) {
    Program b;
    b.load(arg_lo(i));
    if (mask != 0xffffffffu) b.stmt(BPF_ALU | BPF_AND | BPF_K, mask);
    b.jump(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1);
    b.ret(yes);
    b.ret(no);
    return b;
  }
  // Block: the whole 64-bit arg i == 0 ? yes : no.
  static Program null_arg(int i, std::uint32_t yes, std::uint32_t no) {
    Program b;
    b.load(arg_lo(i));
    b.jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3);
    b.load(arg_hi(i));
    b.jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    b.ret(yes);
    b.ret(no);
    return b;
  }
  // Block: low32(arg i) one of `values` ? yes : no.
  static Program one_of(int i, const std::vector<std::uint32_t>& values, std::uint32_t yes, std::uint32_t no) {
    Program b;
    b.load(arg_lo(i));
    const std::size_t n = values.size();
    for (std::size_t k = 0; k < n; ++k) b.jump(BPF_JMP | BPF_JEQ | BPF_K, values[k], static_cast<std::uint8_t>(n - k), 0);
    b.ret(no);
    b.ret(yes);
    return b;
  }

  const std::vector<sock_filter>& code() const { return p_; }

 private:
  std::vector<sock_filter> p_;
};

std::vector<sock_filter> candidate_program(const SeccompPolicy& policy) {
  const std::uint32_t fatal = policy.on_violation == OnViolation::trap ? SECCOMP_RET_TRAP : SECCOMP_RET_KILL_PROCESS;
  const auto self = static_cast<std::uint32_t>(policy.self);
  Program p;
  p.stmt(BPF_LD | BPF_W | BPF_ABS, static_cast<std::uint32_t>(offsetof(seccomp_data, arch)));
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0);
  p.ret(SECCOMP_RET_KILL_PROCESS);
  p.load_nr();
#if defined(__x86_64__)
  p.jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);  // __X32_SYSCALL_BIT
  p.ret(SECCOMP_RET_KILL_PROCESS);
#endif
  // ioctl: anything but the terminal-injection class (TIOCSTI, TIOCLINUX, TIOCCONS), low 32 bits.
  p.block(__NR_ioctl, Program::one_of(1, {TIOCSTI, TIOCLINUX, TIOCCONS}, kEperm, kAllow));
  for (const Named& c : allowed_calls()) p.simple(c.nr, kAllow);
  // Opens: read-only, no O_CREAT / O_TRUNC / O_APPEND / O_TMPFILE.
  const std::uint32_t write_open = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY);
  p.block(__NR_openat, Program::masked(2, write_open, 0, kAllow, kEperm));
#if defined(__x86_64__)
  p.block(__NR_open, Program::masked(1, write_open, 0, kAllow, kEperm));
#endif
  p.simple(__NR_openat2, kEnosys);  // its flags are behind a pointer; glibc's open does not need it
  // clone only as a thread (and no namespace flags); clone3's flags are behind a pointer: ENOSYS
  // makes glibc fall back to clone.
  constexpr std::uint32_t thread = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD;
  constexpr std::uint32_t ns = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
                               CLONE_NEWNET;
  p.block(__NR_clone, Program::masked(0, thread | ns, thread, kAllow, fatal));
  p.simple(__NR_clone3, kEnosys);
  // Signals to this process only.
  p.block(__NR_kill, Program::masked(0, 0xffffffffu, self, kAllow, fatal));
  p.block(__NR_tgkill, Program::masked(0, 0xffffffffu, self, kAllow, fatal));
  p.block(__NR_rt_sigqueueinfo, Program::masked(0, 0xffffffffu, self, kAllow, fatal));
  p.block(__NR_rt_tgsigqueueinfo, Program::masked(0, 0xffffffffu, self, kAllow, fatal));
  // prctl: naming threads and memory, reading its own state (speculation controls included).
  p.block(__NR_prctl, Program::one_of(0, {PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_CAPBSET_READ, PR_GET_NO_NEW_PRIVS,
                                          PR_GET_SECCOMP, 52u /* PR_GET_SPECULATION_CTRL */,
                                          0x53564d41u /* PR_SET_VMA */},
                                      kAllow, kEperm));
  p.block(__NR_prlimit64, Program::null_arg(2, kAllow, kEperm));              // reading limits only
  p.block(__NR_sendto, Program::null_arg(4, kAllow, kEperm));                 // no destination address
  p.block(__NR_sched_setaffinity, Program::masked(0, 0xffffffffu, 0, kAllow, kEperm));  // the calling thread
  for (const Named& c : fatal_calls()) p.simple(c.nr, fatal);
  p.ret(kEperm);
  return p.code();
}

std::string errno_text(int e) { return std::strerror(e); }

}  // namespace

std::size_t seccomp_program_size(const SeccompPolicy& policy) { return candidate_program(policy).size(); }

void install_seccomp(const SeccompPolicy& policy) {
  if (policy.self <= 0) throw std::runtime_error("seccomp: the policy names no process");
  const std::vector<sock_filter> code = candidate_program(policy);
  if (code.size() > BPF_MAXINSNS) throw std::runtime_error("seccomp: the filter is too long");
  sock_fprog prog{static_cast<unsigned short>(code.size()), const_cast<sock_filter*>(code.data())};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw std::runtime_error("PR_SET_NO_NEW_PRIVS: " + errno_text(errno));
  const unsigned long flags = SECCOMP_FILTER_FLAG_TSYNC | (policy.speculation_allow ? SECCOMP_FILTER_FLAG_SPEC_ALLOW : 0UL);
  const long rc = ::syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (rc < 0) throw std::runtime_error("seccomp(SECCOMP_SET_MODE_FILTER): " + errno_text(errno));
  if (rc > 0) throw std::runtime_error("seccomp: thread " + std::to_string(rc) + " could not be synchronized");
}

std::string syscall_name(long nr) {
  for (const auto* list : {&allowed_calls(), &fatal_calls(), &checked_calls()})
    for (const Named& c : *list)
      if (c.nr == nr) return c.name;
  return {};
}

}  // namespace mskb::sandbox
