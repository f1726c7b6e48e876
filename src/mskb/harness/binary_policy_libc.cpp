// The binary policy's C runtime: which libc, libm and libgcc imports a kernel's host code may use
// (memory, strings, math, printing, time) and which it may not (processes, files, network,
// environment, dynamic loading, threads, raw system calls), with the reason.
#include <cstring>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "binary_policy_internal.hpp"
#include "mskb/util/text.hpp"

namespace mskb::policy_detail {

namespace {

// ---- libc: what is refused, with the reason (exact names; `X` also covers __X_chk, X64, ...)

const std::map<std::string, std::string>& libc_deny() {
  static const std::map<std::string, std::string> m = [] {
    std::map<std::string, std::string> d;
    auto add = [&](const char* reason, std::initializer_list<const char*> names) {
      for (const char* n : names) d[n] = reason;
    };
    add("starts or controls processes",
        {"fork",      "vfork",       "_Fork",        "clone",       "clone3",     "execv",       "execve",          "execvp",
         "execvpe",   "execl",       "execlp",       "execle",      "fexecve",    "execveat",    "system",          "popen",
         "pclose",    "posix_spawn", "posix_spawnp", "kill",        "killpg",     "tgkill",      "tkill",           "raise",
         "ptrace",    "prctl",       "wait",         "waitpid",     "waitid",     "wait3",       "wait4",           "daemon",
         "setsid",    "setpgid",     "setuid",       "setgid",      "seteuid",    "setegid",     "setreuid",        "setresuid",
         "setrlimit", "prlimit",     "prlimit64",    "setpriority", "nice",       "chroot",      "chdir",           "fchdir",
         "signal",    "sigaction",   "sigprocmask",  "sigset",      "bsd_signal", "sysv_signal", "pthread_sigmask", "sigaltstack",
         "alarm",     "setitimer",   "timer_create", "personality", "pause",      "sigsuspend",  "sigwait",         "getppid",
         "unshare",   "setns",       "seccomp"});
    add("accesses files", {"open",
                           "open64",
                           "__open_2",
                           "__open64_2",
                           "__openat_2",
                           "__openat64_2",
                           "fclose",
                           "fcloseall",
                           "dprintf",
                           "vdprintf",
                           "openat",
                           "openat64",
                           "creat",
                           "creat64",
                           "fopen",
                           "fopen64",
                           "freopen",
                           "freopen64",
                           "fdopen",
                           "fdopendir",
                           "opendir",
                           "readdir",
                           "readdir64",
                           "scandir",
                           "read",
                           "pread",
                           "pread64",
                           "readv",
                           "preadv",
                           "write",
                           "pwrite",
                           "pwrite64",
                           "writev",
                           "pwritev",
                           "close",
                           "close_range",
                           "closefrom",
                           "unlink",
                           "unlinkat",
                           "remove",
                           "rename",
                           "renameat",
                           "renameat2",
                           "mkdir",
                           "mkdirat",
                           "rmdir",
                           "link",
                           "linkat",
                           "symlink",
                           "symlinkat",
                           "readlink",
                           "readlinkat",
                           "realpath",
                           "stat",
                           "stat64",
                           "fstat",
                           "fstat64",
                           "lstat",
                           "lstat64",
                           "fstatat",
                           "fstatat64",
                           "__xstat",
                           "__xstat64",
                           "__fxstat",
                           "__fxstat64",
                           "__lxstat",
                           "__lxstat64",
                           "__fxstatat",
                           "statx",
                           "statfs",
                           "fstatfs",
                           "access",
                           "faccessat",
                           "euidaccess",
                           "eaccess",
                           "chmod",
                           "fchmod",
                           "chown",
                           "fchown",
                           "truncate",
                           "ftruncate",
                           "ftruncate64",
                           "fcntl",
                           "fcntl64",
                           "ioctl",
                           "dup",
                           "dup2",
                           "dup3",
                           "pipe",
                           "pipe2",
                           "mkfifo",
                           "mknod",
                           "mmap",
                           "mmap64",
                           "munmap",
                           "mremap",
                           "mprotect",
                           "pkey_mprotect",
                           "madvise",
                           "msync",
                           "mlock",
                           "memfd_create",
                           "shm_open",
                           "shm_unlink",
                           "fread",
                           "fgets",
                           "fgetc",
                           "getc",
                           "getchar",
                           "gets",
                           "getline",
                           "getdelim",
                           "scanf",
                           "fscanf",
                           "vscanf",
                           "vfscanf",
                           "__isoc99_scanf",
                           "__isoc99_fscanf",
                           "fseek",
                           "fseeko",
                           "fseeko64",
                           "ftell",
                           "ftello",
                           "rewind",
                           "fileno",
                           "tmpfile",
                           "tmpnam",
                           "mkstemp",
                           "mkstemps",
                           "mkdtemp",
                           "getcwd",
                           "get_current_dir_name",
                           "inotify_init",
                           "inotify_add_watch",
                           "sendfile",
                           "splice",
                           "tee",
                           "copy_file_range",
                           "flock",
                           "lockf",
                           "sync",
                           "fsync",
                           "fdatasync",
                           "getdents",
                           "getdents64",
                           "setvbuf",
                           "setbuf",
                           "freopen"});
    add("uses the network",
        {"socket",       "socketpair",   "connect",       "bind",           "listen",        "accept",          "accept4",
         "send",         "sendto",       "sendmsg",       "sendmmsg",       "recv",          "recvfrom",        "recvmsg",
         "recvmmsg",     "shutdown",     "setsockopt",    "getsockopt",     "getpeername",   "getsockname",     "getaddrinfo",
         "freeaddrinfo", "getnameinfo",  "gethostbyname", "gethostbyname2", "gethostbyaddr", "gethostbyname_r", "inet_addr",
         "inet_aton",    "inet_pton",    "inet_ntop",     "inet_ntoa",      "poll",          "ppoll",           "select",
         "pselect",      "epoll_create", "epoll_create1", "epoll_ctl",      "epoll_wait",    "epoll_pwait",     "res_query",
         "res_search"});
    add("reads or changes the environment",
        {"getenv", "secure_getenv", "__secure_getenv", "setenv", "unsetenv", "putenv", "clearenv", "environ", "__environ",
         "_environ", "getauxval", "__libc_enable_secure", "confstr"});
    add("loads code at run time", {"dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "dlclose", "dlerror",
                                   "dl_iterate_phdr", "_dl_find_object", "__libc_dlopen_mode", "__libc_dlsym"});
    add("creates or controls host threads", {"pthread_create",
                                             "pthread_detach",
                                             "pthread_join",
                                             "pthread_tryjoin_np",
                                             "pthread_timedjoin_np",
                                             "pthread_kill",
                                             "pthread_cancel",
                                             "pthread_exit",
                                             "pthread_atfork",
                                             "pthread_setaffinity_np",
                                             "pthread_setschedparam",
                                             "pthread_attr_init",
                                             "pthread_attr_setdetachstate",
                                             "pthread_cond_wait",
                                             "pthread_cond_timedwait",
                                             "pthread_cond_signal",
                                             "pthread_cond_broadcast",
                                             "thrd_create",
                                             "thrd_detach",
                                             "thrd_join",
                                             "sched_yield",
                                             "sched_setaffinity",
                                             "sched_getaffinity",
                                             "sched_setscheduler",
                                             "sched_setparam",
                                             "sched_getcpu",
                                             "gettid",
                                             "timer_settime",
                                             "aio_read",
                                             "aio_write",
                                             "__register_atfork"});
    add("makes a raw system call", {"syscall", "__syscall"});
    return d;
  }();
  return m;
}

const std::set<std::string>& libc_allow() {
  static const std::set<std::string> s = {
      // memory and strings
      "malloc", "free", "calloc", "realloc", "reallocarray", "aligned_alloc", "posix_memalign", "memalign", "valloc",
      "malloc_usable_size", "memcpy", "memmove", "memset", "memcmp", "memchr", "memrchr", "mempcpy", "bzero", "explicit_bzero",
      "bcmp", "strlen", "strnlen", "strcmp", "strncmp", "strcasecmp", "strncasecmp", "strcpy", "strncpy", "stpcpy", "stpncpy",
      "strcat", "strncat", "strchr", "strrchr", "strstr", "strspn", "strcspn", "strpbrk", "strtok", "strtok_r", "strdup",
      "strndup", "strerror", "strerror_r", "__xpg_strerror_r", "strcoll", "strxfrm", "strsignal", "wcslen", "wmemcpy", "wmemset",
      "wmemmove", "wcscmp", "wcscpy", "wcsncpy", "wmemcmp", "wmemchr", "btowc", "wctob", "mbrtowc", "wcrtomb", "mbstowcs",
      "wcstombs", "mbrlen", "mbsrtowcs", "wcsrtombs",
      // numbers, conversions, sorting, random numbers
      "atoi", "atol", "atoll", "atof", "strtol", "strtoll", "strtoul", "strtoull", "strtod", "strtof", "strtold", "strtoimax",
      "strtoumax", "sscanf", "vsscanf", "abs", "labs", "llabs", "div", "ldiv", "lldiv", "qsort", "qsort_r", "bsearch", "rand",
      "srand", "rand_r", "random", "srandom", "drand48", "erand48", "lrand48", "nrand48", "mrand48", "jrand48", "srand48",
      "seed48",
      // printing (stdout and stderr go to the log)
      "printf", "vprintf", "fprintf", "vfprintf", "sprintf", "vsprintf", "snprintf", "vsnprintf", "asprintf", "vasprintf", "puts",
      "fputs", "putchar", "fputc", "putc", "_IO_putc", "fwrite", "fflush", "perror", "stdout", "stderr", "_IO_2_1_stdout_",
      "_IO_2_1_stderr_", "fputs_unlocked", "fwrite_unlocked", "putchar_unlocked", "putc_unlocked", "fputc_unlocked", "flockfile",
      "funlockfile", "ferror", "clearerr", "feof",
      // process end, errors, assertions
      "exit", "_exit", "_Exit", "abort", "quick_exit", "at_quick_exit", "__assert_fail", "__assert_perror_fail", "__assert",
      "__errno_location", "__cxa_thread_atexit_impl", "__stack_chk_fail", "__fortify_fail", "__chk_fail",
      // time and sleeping
      "time", "clock", "clock_gettime", "clock_getres", "gettimeofday", "localtime", "localtime_r", "gmtime", "gmtime_r",
      "mktime", "strftime", "difftime", "ctime", "ctime_r", "asctime", "nanosleep", "clock_nanosleep", "usleep", "sleep",
      "timespec_get",
      // character classes, locale queries, misc
      "__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc", "tolower", "toupper", "isalpha", "isdigit", "isspace",
      "isalnum", "isupper", "islower", "isprint", "ispunct", "isxdigit", "iscntrl", "isgraph", "isblank", "towlower", "towupper",
      "iswspace", "iswalpha", "iswdigit", "iswupper", "iswlower", "iswprint", "iswctype", "wctype", "nl_langinfo", "localeconv",
      "setlocale", "newlocale", "uselocale", "freelocale", "duplocale", "__newlocale", "__uselocale", "__freelocale",
      "__duplocale", "__nl_langinfo_l", "__strcoll_l", "__strxfrm_l", "__strftime_l", "__wcsftime_l", "__towlower_l",
      "__towupper_l", "__iswctype_l", "__wctype_l", "__strtod_l", "__strtof_l", "__strtold_l", "__wcscoll_l", "__wcsxfrm_l",
      "wcscoll", "wcsxfrm", "wcsftime", "bind_textdomain_codeset", "dgettext", "gettext", "catopen", "catgets", "catclose",
      "iconv", "iconv_open", "iconv_close", "getpagesize", "sysconf", "setjmp", "_setjmp", "__sigsetjmp", "longjmp", "_longjmp",
      "siglongjmp", "__longjmp_chk", "ffs", "ffsl", "ffsll",
      // locks of the C++ runtime (no thread can be created: pthread_create is refused)
      "pthread_mutex_lock", "pthread_mutex_unlock", "pthread_mutex_trylock", "pthread_mutex_init", "pthread_mutex_destroy",
      "pthread_once", "pthread_self", "pthread_equal", "pthread_key_create", "pthread_key_delete", "pthread_getspecific",
      "pthread_setspecific", "pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_rwlock_unlock", "pthread_mutexattr_init",
      "pthread_mutexattr_settype", "pthread_mutexattr_destroy", "pthread_cond_destroy", "pthread_cond_init",
      // libgcc: unwinding and arithmetic helpers
      "_Unwind_Resume", "_Unwind_RaiseException", "_Unwind_DeleteException", "_Unwind_GetIP", "_Unwind_GetIPInfo",
      "_Unwind_GetLanguageSpecificData", "_Unwind_GetRegionStart", "_Unwind_SetGR", "_Unwind_SetIP", "_Unwind_GetCFA",
      "_Unwind_Resume_or_Rethrow", "_Unwind_Backtrace", "_Unwind_GetDataRelBase", "_Unwind_GetTextRelBase", "_Unwind_Find_FDE",
      "__udivti3", "__umodti3", "__divti3", "__modti3", "__popcountdi2", "__clzdi2", "__ctzdi2", "__powidf2", "__powisf2",
      "__mulsc3", "__muldc3", "__divsc3", "__divdc3", "__floattidf", "__floattisf", "__fixdfti", "__fixsfti", "__fixunsdfti",
      "__fixunssfti", "__floatuntidf", "__floatuntisf", "__cpu_indicator_init", "__cpu_model", "__cpu_features2", "__extendhfsf2",
      "__truncsfhf2", "__truncdfhf2", "__extendbfsf2", "__truncsfbf2", "__truncdfbf2"};
  return s;
}

// libm: every C99 function, float/long double and _finite variants (matched after stripping).
bool is_libm(const std::string& s) {
  static const std::set<std::string> base = {
      "sqrt",     "cbrt",     "hypot",    "exp",       "exp2",       "exp10",    "expm1",       "log",   "log2",
      "log10",    "log1p",    "logb",     "ilogb",     "pow",        "pow10",    "sin",         "cos",   "tan",
      "sincos",   "asin",     "acos",     "atan",      "atan2",      "sinh",     "cosh",        "tanh",  "asinh",
      "acosh",    "atanh",    "erf",      "erfc",      "lgamma",     "lgamma_r", "tgamma",      "gamma", "j0",
      "j1",       "jn",       "y0",       "y1",        "yn",         "fabs",     "floor",       "ceil",  "trunc",
      "round",    "lround",   "llround",  "rint",      "lrint",      "llrint",   "nearbyint",   "fmod",  "remainder",
      "remquo",   "fmin",     "fmax",     "fdim",      "fma",        "frexp",    "ldexp",       "modf",  "scalbn",
      "scalbln",  "scalb",    "copysign", "nextafter", "nexttoward", "nan",      "significand", "drem",  "finite",
      "isinf",    "isnan",    "signbit",  "exp2m1",    "log2p1",     "sinpi",    "cospi",       "tanpi", "roundeven",
      "fmaximum", "fminimum", "rsqrt"};
  if (s == "signgam" || s == "__signbit" || s == "__signbitf" || s == "__signbitl" || s == "__fpclassify" ||
      s == "__fpclassifyf" || s == "__fpclassifyl" || s == "__isinf" || s == "__isinff" || s == "__isnan" || s == "__isnanf" ||
      s == "__finite" || s == "__finitef" || s == "feclearexcept" || s == "fegetround" || s == "fesetround" ||
      s == "fetestexcept" || s == "feraiseexcept" || s == "fegetenv" || s == "fesetenv" || s == "feholdexcept" ||
      s == "feupdateenv")
    return true;
  std::string b = s;
  if (starts_with(b, "__") && b.size() > 9 && b.compare(b.size() - 7, 7, "_finite") == 0) b = b.substr(2, b.size() - 9);
  if (base.count(b)) return true;
  for (const char* suffix : {"f", "l", "f128", "f64", "f32", "f32x", "f64x"}) {
    const std::size_t n = std::strlen(suffix);
    if (b.size() > n && b.compare(b.size() - n, n, suffix) == 0 && base.count(b.substr(0, b.size() - n))) return true;
  }
  return false;
}

// libc names also reach the object as __X_chk (fortify), __isoc99_X / __isoc23_X, X64.
std::vector<std::string> libc_spellings(const std::string& s) {
  std::vector<std::string> out = {s};
  std::string b = s;
  for (const char* p : {"__isoc99_", "__isoc23_"})
    if (starts_with(b, p)) b = b.substr(std::strlen(p));
  if (starts_with(b, "__") && b.size() > 6 && b.compare(b.size() - 4, 4, "_chk") == 0) b = b.substr(2, b.size() - 6);
  if (b != s) out.push_back(b);
  return out;
}

}  // namespace

ImportVerdict classify_c_runtime(const std::string& s) {
  const auto& dl = libc_deny();
  for (const std::string& n : libc_spellings(s)) {
    if (auto it = dl.find(n); it != dl.end()) return deny(it->second);
    std::string t = n;  // open64, mmap64, ...
    if (t.size() > 2 && t.compare(t.size() - 2, 2, "64") == 0)
      if (auto it2 = dl.find(t.substr(0, t.size() - 2)); it2 != dl.end()) return deny(it2->second);
  }
  if (starts_with(s, "pthread_") || starts_with(s, "sched_") || starts_with(s, "thrd_"))
    return deny("creates or controls host threads");
  if (starts_with(s, "posix_spawn") || starts_with(s, "exec")) return deny("starts or controls processes");
  for (const std::string& n : libc_spellings(s))
    if (libc_allow().count(n) || is_libm(n)) return allow();
  return deny("not on the allowlist (unknown import)");
}

}  // namespace mskb::policy_detail
