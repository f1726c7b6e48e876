// Landlock through its three system calls (no library), with the ABI detected and the rights it
// lacks masked. The constants are the kernel's UAPI (include/uapi/linux/landlock.h), spelled here
// because the build machines' headers are older than the kernels they run on.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "mskb/util/sandbox.hpp"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

namespace mskb::sandbox {

namespace {

constexpr std::uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

// Filesystem rights, and the ABI that introduced each.
constexpr std::uint64_t kFsExecute = 1ull << 0;
constexpr std::uint64_t kFsWriteFile = 1ull << 1;
constexpr std::uint64_t kFsReadFile = 1ull << 2;
constexpr std::uint64_t kFsReadDir = 1ull << 3;
constexpr std::uint64_t kFsRemoveDir = 1ull << 4;
constexpr std::uint64_t kFsRemoveFile = 1ull << 5;
constexpr std::uint64_t kFsMakeChar = 1ull << 6;
constexpr std::uint64_t kFsMakeDir = 1ull << 7;
constexpr std::uint64_t kFsMakeReg = 1ull << 8;
constexpr std::uint64_t kFsMakeSock = 1ull << 9;
constexpr std::uint64_t kFsMakeFifo = 1ull << 10;
constexpr std::uint64_t kFsMakeBlock = 1ull << 11;
constexpr std::uint64_t kFsMakeSym = 1ull << 12;
constexpr std::uint64_t kFsRefer = 1ull << 13;     // ABI 2
constexpr std::uint64_t kFsTruncate = 1ull << 14;  // ABI 3
constexpr std::uint64_t kFsIoctlDev = 1ull << 15;  // ABI 5
constexpr std::uint64_t kNetBindTcp = 1ull << 0;   // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ull << 1;
constexpr std::uint64_t kScopeAbstractUnix = 1ull << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ull << 1;

// The rights that apply to a file (the others only to directories: a file rule with them is EINVAL).
constexpr std::uint64_t kFileRights = kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate | kFsIoctlDev;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

std::uint64_t fs_rights_of_abi(int abi) {
  std::uint64_t r = (kFsMakeSym << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) r |= kFsRefer;
  if (abi >= 3) r |= kFsTruncate;
  if (abi >= 5) r |= kFsIoctlDev;
  return r;
}

std::uint64_t fs_rights(unsigned rights) {
  std::uint64_t r = 0;
  if (rights & kRead) r |= kFsReadFile | kFsReadDir;
  if (rights & kExec) r |= kFsExecute;
  if (rights & kWrite)
    r |= kFsWriteFile | kFsTruncate | kFsRemoveDir | kFsRemoveFile | kFsMakeDir | kFsMakeReg | kFsMakeSym | kFsMakeFifo |
         kFsMakeSock | kFsRefer;
  if (rights & kDevIoctl) r |= kFsIoctlDev;
  return r;
}

std::string errno_text(int e) { return std::strerror(e); }

}  // namespace

int landlock_abi(std::string* why) {
  const long v = ::syscall(__NR_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (v > 0) return static_cast<int>(v);
  if (why) {
    const int e = errno;
    *why = e == ENOSYS    ? "not built into this kernel"
           : e == EOPNOTSUPP ? "built in but disabled at boot (lsm=)"
                             : "landlock_create_ruleset: " + errno_text(e);
  }
  return 0;
}

LandlockRuleset::LandlockRuleset(const std::vector<FsRule>& rules, Scopes scopes) {
  const int abi = landlock_abi(&error_);
  if (abi <= 0) return;
  const std::uint64_t handled = fs_rights_of_abi(abi);
  RulesetAttr attr{handled, 0, 0};
  std::size_t size = sizeof attr.handled_access_fs;
  if (abi >= 4) {
    size += sizeof attr.handled_access_net;
    if (scopes.tcp) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
  }
  if (abi >= 6) {
    size += sizeof attr.scoped;
    if (scopes.signals) attr.scoped |= kScopeSignal;
    if (scopes.abstract_unix) attr.scoped |= kScopeAbstractUnix;
  }
  const long fd = ::syscall(__NR_landlock_create_ruleset, &attr, size, 0u);
  if (fd < 0) {
    error_ = "landlock_create_ruleset: " + errno_text(errno);
    return;
  }
  const int rfd = static_cast<int>(fd);
  ::fcntl(rfd, F_SETFD, FD_CLOEXEC);
  for (const FsRule& rule : rules) {
    const int pfd = ::open(rule.path.c_str(), O_PATH | O_CLOEXEC);
    if (pfd < 0) {
      if (rule.optional && (errno == ENOENT || errno == ENOTDIR || errno == EACCES)) {
        skipped_.push_back(rule.path);
        continue;
      }
      error_ = "cannot open " + rule.path + " for a Landlock rule: " + errno_text(errno);
      ::close(rfd);
      return;
    }
    struct stat st {};
    std::uint64_t allowed = fs_rights(rule.rights) & handled;
    if (::fstat(pfd, &st) == 0 && !S_ISDIR(st.st_mode)) allowed &= kFileRights;
    PathBeneathAttr pb{allowed, pfd};
    const long rc = allowed == 0 ? 0 : ::syscall(__NR_landlock_add_rule, rfd, kRulePathBeneath, &pb, 0u);
    const int e = errno;
    ::close(pfd);
    if (rc != 0) {
      error_ = "landlock_add_rule for " + rule.path + ": " + errno_text(e);
      ::close(rfd);
      return;
    }
  }
  fd_ = rfd;
  abi_ = abi;
  error_.clear();
}

LandlockRuleset::~LandlockRuleset() {
  if (fd_ >= 0) ::close(fd_);
}

LandlockRuleset::LandlockRuleset(LandlockRuleset&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), abi_(o.abi_), error_(std::move(o.error_)), skipped_(std::move(o.skipped_)) {}

LandlockRuleset& LandlockRuleset::operator=(LandlockRuleset&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    abi_ = o.abi_;
    error_ = std::move(o.error_);
    skipped_ = std::move(o.skipped_);
  }
  return *this;
}

int LandlockRuleset::restrict_self() const noexcept {
  if (fd_ < 0) return EBADF;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (::syscall(__NR_landlock_restrict_self, fd_, 0u) != 0) return errno;
  return 0;
}

std::vector<FsRule> build_rules(const BuildPaths& paths) {
  std::vector<FsRule> rules;
  for (const char* p : {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/opt", "/etc/ld.so.cache", "/etc/ld.so.conf",
                        "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/nvcc.profile", "/etc/localtime"})
    rules.push_back({p, kRead | kExec, true});
  for (const char* p : {"/dev/null", "/dev/zero", "/dev/urandom"}) rules.push_back({p, kRead | kWrite, true});
  for (const std::string& p : paths.read) rules.push_back({p, kRead | kExec, true});
  for (const std::string& p : paths.write) rules.push_back({p, kRead | kWrite | kExec, false});
  return rules;
}

}  // namespace mskb::sandbox
