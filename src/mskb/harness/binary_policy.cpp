#include "mskb/harness/binary_policy.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "mskb/harness/compiler.hpp"
#include "mskb/util/process.hpp"

namespace mskb {

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool contains(const std::string& s, const char* p) { return s.find(p) != std::string::npos; }

// ---- vendor libraries (--allow-libraries + `// mskb-link:`)

struct VendorLib {
  const char* name;    // as in // mskb-link:
  const char* prefix;  // its API
  const char* soname;  // its DT_NEEDED entry (prefix, any version)
  const char* title;
};
constexpr VendorLib kVendor[] = {{"cublasLt", "cublasLt", "libcublasLt.so", "cuBLASLt"},
                                 {"cublas", "cublas", "libcublas.so", "cuBLAS"},
                                 {"cusparse", "cusparse", "libcusparse.so", "cuSPARSE"},
                                 {"cufft", "cufft", "libcufft.so", "cuFFT"},
                                 {"cudnn", "cudnn", "libcudnn", "cuDNN"},
                                 {"curand", "curand", "libcurand.so", "cuRAND"}};

bool has_lib(const std::vector<std::string>& libs, const char* name) {
  return std::find(libs.begin(), libs.end(), name) != libs.end();
}

// ---- the CUDA runtime: allowed unless denied here (prefix match, first match wins)

struct Deny {
  const char* prefix;
  const char* reason;
};
constexpr Deny kCudaDeny[] = {
    {"cudaStreamCreate", "creates a stream (work could outlive the call)"},
    {"cudaStreamBeginCapture", "captures a graph (work could outlive the call)"},
    {"cudaStreamEndCapture", "captures a graph (work could outlive the call)"},
    {"cudaStreamUpdateCaptureDependencies", "captures a graph (work could outlive the call)"},
    {"cudaThreadExchangeStreamCaptureMode", "captures a graph (work could outlive the call)"},
    {"cudaGraph", "builds or launches a CUDA graph (work could outlive the call)"},
    {"cudaDeviceGraph", "changes graph memory of the device"},
    {"cudaUserObject", "creates a graph user object (host callback)"},
    {"cudaStreamAddCallback", "adds a host callback (host work outside the call)"},
    {"cudaLaunchHostFunc", "launches a host function (host work outside the call)"},
    {"cudaDeviceRegisterAsyncNotification", "registers a host callback"},
    {"cudaLogsRegisterCallback", "registers a host callback"},
    {"cudaStreamSetAttribute", "changes stream attributes (persisting-L2 access window, priorities)"},
    {"cudaStreamCopyAttributes", "changes stream attributes (persisting-L2 access window, priorities)"},
    {"cudaStreamAttachMemAsync", "attaches managed memory to a stream"},
    {"cudaCtxResetPersistingL2Cache", "resets persisting L2 lines (harness state)"},
    {"cudaDeviceReset", "resets the device (destroys the harness's context)"},
    {"cudaThreadExit", "resets the device (destroys the harness's context)"},
    {"cudaDeviceSet", "changes a device-wide setting (limits, persisting L2, cache or memory-pool configuration)"},
    {"cudaThreadSet", "changes a device-wide setting (limits, cache configuration)"},
    {"cudaSetDeviceFlags", "changes the device's scheduling flags"},
    {"cudaSetValidDevices", "changes which devices the context may use"},
    {"cudaInitDevice", "initialises a device with other flags"},
    {"cudaDeviceEnablePeerAccess", "maps another device's memory"},
    {"cudaDeviceDisablePeerAccess", "maps another device's memory"},
    {"cudaLaunchCooperativeKernelMultiDevice", "launches on several devices"},
    {"cudaIpc", "shares memory or events with another process (IPC)"},
    {"cudaMemPoolExport", "shares memory with another process (IPC)"},
    {"cudaMemPoolImport", "shares memory with another process (IPC)"},
    {"cudaImportExternal", "imports an external memory or semaphore object"},
    {"cudaSignalExternal", "signals an external semaphore"},
    {"cudaWaitExternal", "waits on an external semaphore"},
    {"cudaDestroyExternal", "uses an external memory or semaphore object"},
    {"cudaGetDriverEntryPoint", "obtains CUDA driver API entry points (outside the runtime policy)"},
    {"cudaGetExportTable", "obtains internal CUDA entry points"},
    {"cudaGetFuncBySymbol", "obtains driver handles of functions"},
    {"cudaProfilerStart", "controls the profiler"},
    {"cudaProfilerStop", "controls the profiler"},
};

// nvcc's host stubs and fat-binary registration (generated code, not written by the kernel).
const std::set<std::string>& cuda_internal() {
  static const std::set<std::string> s = {"__cudaRegisterFatBinary",    "__cudaRegisterFatBinaryEnd",
                                          "__cudaUnregisterFatBinary",  "__cudaRegisterFunction",
                                          "__cudaRegisterVar",          "__cudaRegisterManagedVar",
                                          "__cudaRegisterHostVar",      "__cudaRegisterTexture",
                                          "__cudaRegisterSurface",      "__cudaPushCallConfiguration",
                                          "__cudaPopCallConfiguration", "__cudaLaunchKernel",
                                          "__cudaLaunchKernel_ptsz",    "__cudaGetKernel",
                                          "__cudaInitModule",           "__cudaRegisterLinkedBinary",
                                          "__cudaRegisterEntry",        "__cudaRegisterShared",
                                          "__cudaRegisterSharedVar"};
  return s;
}

// Weak symbols every shared object made by gcc imports (loader, TM clones, stack protector).
const std::set<std::string>& loader_symbols() {
  static const std::set<std::string> s = {"__gmon_start__",
                                          "_ITM_registerTMCloneTable",
                                          "_ITM_deregisterTMCloneTable",
                                          "__cxa_finalize",
                                          "__cxa_atexit",
                                          "atexit",
                                          "__dso_handle",
                                          "__stack_chk_fail",
                                          "__stack_chk_guard",
                                          "_Jv_RegisterClasses",
                                          "__tls_get_addr",
                                          "__libc_single_threaded"};
  return s;
}

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

// ---- libstdc++: namespace std and the ABI runtime, minus files, threads and processes.

struct CxxDeny {
  const char* part;
  const char* reason;
};
constexpr CxxDeny kCxxDeny[] = {{"fstream", "accesses files (std::fstream)"},
                                {"filebuf", "accesses files (std::filebuf)"},
                                {"__basic_file", "accesses files (std::__basic_file)"},
                                {"10filesystem", "accesses files (std::filesystem)"},
                                {"St6thread", "creates host threads (std::thread)"},
                                {"7jthread", "creates host threads (std::jthread)"},
                                {"18condition_variable", "waits on host threads (std::condition_variable)"},
                                {"22condition_variable_any", "waits on host threads (std::condition_variable_any)"},
                                {"13__future_base", "creates host threads (std::async / std::future)"},
                                {"15__at_thread_exit", "host-thread exit hooks"}};

bool cxx_std_name(const std::string& s) {
  static const char* const prefixes[] = {"_ZSt",
                                         "_ZNSt",
                                         "_ZNKSt",
                                         "_ZNSo",
                                         "_ZNKSo",
                                         "_ZNSi",
                                         "_ZNKSi",
                                         "_ZNSd",
                                         "_ZNKSd",
                                         "_ZNSs",
                                         "_ZNKSs",
                                         "_ZNSa",
                                         "_ZNKSa",
                                         "_ZNSbIw",
                                         "_ZNKSbIw",
                                         "_ZTI",
                                         "_ZTS",
                                         "_ZTV",
                                         "_ZTT",
                                         "_ZGVNSt",
                                         "_ZN9__gnu_cxx",
                                         "_ZNK9__gnu_cxx",
                                         "_ZN10__cxxabiv",
                                         "_ZNK10__cxxabiv",
                                         "_ZSt9terminatev",
                                         "_ZNSt9exception",
                                         "_Znwm",
                                         "_Znam",
                                         "_ZdlPv",
                                         "_ZdaPv",
                                         "_ZnwmSt",
                                         "_ZnamSt",
                                         "_ZnwmRKSt",
                                         "_ZnamRKSt"};
  for (const char* p : prefixes)
    if (starts_with(s, p)) return true;
  return false;
}

ImportVerdict allow() { return {true, ""}; }
ImportVerdict deny(const std::string& why) { return {false, why}; }

}  // namespace

ImportVerdict classify_import(const std::string& symbol_in, const std::vector<std::string>& libraries) {
  const std::string s = symbol_in.substr(0, symbol_in.find('@'));
  if (s.empty()) return deny("empty symbol name");
  if (loader_symbols().count(s)) return allow();
  for (const auto& v : kVendor)
    if (starts_with(s, v.prefix)) {
      // cublasLt symbols come with cublas too (libcublas links libcublasLt).
      if (has_lib(libraries, v.name) || (std::string(v.name) == "cublasLt" && has_lib(libraries, "cublas"))) return allow();
      return deny(fmt::format("uses {}, a vendor library (only with --allow-libraries and `// mskb-link: {}`)", v.title, v.name));
    }
  if (starts_with(s, "__cuda"))
    return cuda_internal().count(s) ? allow() : deny("internal CUDA runtime symbol not on the allowlist");
  if (starts_with(s, "cuda")) {
    for (const auto& d : kCudaDeny)
      if (starts_with(s, d.prefix)) return deny(d.reason);
    return allow();
  }
  if (starts_with(s, "nvml")) return deny("uses NVML (device management outside the evaluation)");
  if (starts_with(s, "nvtx")) return deny("uses NVTX (loads an injection library named by the environment)");
  if (s.size() > 2 && s[0] == 'c' && s[1] == 'u' && std::isupper(static_cast<unsigned char>(s[2])))
    return deny("uses the CUDA driver API (outside the runtime policy)");
  if (starts_with(s, "_Z")) {
    for (const auto& d : kCxxDeny)
      if (contains(s, d.part)) return deny(d.reason);
    if (starts_with(s, "_ZNSt6thread") || starts_with(s, "_ZNKSt6thread")) return deny("creates host threads (std::thread)");
    if (cxx_std_name(s)) return allow();
    return deny("C++ symbol outside the standard library (not on the allowlist)");
  }
  if (starts_with(s, "__cxa_") || s == "__gxx_personality_v0" || starts_with(s, "__cxx_") || s == "__dynamic_cast")
    return allow();
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

ImportVerdict classify_needed(const std::string& soname, const std::vector<std::string>& libraries) {
  static const std::regex runtime(
      R"(^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2|libcudart\.so\.[0-9]+)$)");
  if (std::regex_match(soname, runtime)) return allow();
  for (const auto& v : kVendor)
    if (starts_with(soname, v.soname)) {
      if (has_lib(libraries, v.name) || (std::string(v.name) == "cublasLt" && has_lib(libraries, "cublas"))) return allow();
      return deny(
          fmt::format("links {}, a vendor library (only with --allow-libraries and `// mskb-link: {}`)", v.title, v.name));
    }
  if (starts_with(soname, "libcuda.so")) return deny("links the CUDA driver library");
  if (starts_with(soname, "libnvidia-ml")) return deny("links NVML");
  if (starts_with(soname, "libdl.") || starts_with(soname, "libpthread.") || starts_with(soname, "librt."))
    return deny("links a library for dynamic loading or threads");
  return deny("links a library that is not on the allowlist");
}

std::string PolicyViolation::describe() const {
  if (kind == "import") return "imports " + symbol + ": " + reason;
  if (kind == "library") return "needs " + symbol + ": " + reason;
  return symbol + ": " + reason;
}

std::string PolicyVerdict::describe(std::size_t max) const {
  if (ok) return "ok";
  std::string out;
  for (std::size_t i = 0; i < violations.size() && i < max; ++i) {
    if (i) out += "; ";
    out += violations[i].describe();
  }
  if (violations.size() > max) out += fmt::format(" (and {} more)", violations.size() - max);
  return out;
}

namespace {

// ---- ELF reading (the file as the dynamic loader sees it: program headers, PT_DYNAMIC)

struct Elf {
  std::string bytes;
  const Elf64_Ehdr* eh = nullptr;
  std::vector<Elf64_Phdr> ph;
  std::string error;

  template <class T>
  bool at(std::uint64_t off, T& out) const {
    if (off > bytes.size() || bytes.size() - off < sizeof(T)) return false;
    std::memcpy(&out, bytes.data() + off, sizeof(T));
    return true;
  }
  // File offset of a virtual address inside a PT_LOAD's file image (size bytes available).
  bool offset_of(std::uint64_t va, std::uint64_t size, std::uint64_t& off) const {
    for (const auto& p : ph)
      if (p.p_type == PT_LOAD && va >= p.p_vaddr && va - p.p_vaddr <= p.p_filesz && p.p_filesz - (va - p.p_vaddr) >= size) {
        off = p.p_offset + (va - p.p_vaddr);
        return off <= bytes.size() && bytes.size() - off >= size;
      }
    return false;
  }
  std::string str(std::uint64_t strtab_off, std::uint64_t strsz, std::uint64_t idx) const {
    if (idx >= strsz || strtab_off + idx >= bytes.size()) return "";
    const char* b = bytes.data() + strtab_off + idx;
    const std::size_t limit = std::min<std::uint64_t>(strsz - idx, bytes.size() - strtab_off - idx);
    return std::string(b, strnlen(b, limit));
  }
};

bool load_elf(const std::string& path, Elf& e) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    e.error = "cannot read " + path;
    return false;
  }
  std::ostringstream s;
  s << f.rdbuf();
  e.bytes = s.str();
  Elf64_Ehdr h{};
  if (!e.at(0, h) || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) {
    e.error = "not an ELF file";
    return false;
  }
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB || h.e_machine != EM_X86_64) {
    e.error = "not an ELF64 x86-64 object";
    return false;
  }
  if (h.e_type != ET_DYN) {
    e.error = "not a shared object";
    return false;
  }
  if (h.e_phentsize != sizeof(Elf64_Phdr) || h.e_phnum == 0) {
    e.error = "malformed program headers";
    return false;
  }
  for (int i = 0; i < h.e_phnum; ++i) {
    Elf64_Phdr p{};
    if (!e.at(h.e_phoff + static_cast<std::uint64_t>(i) * sizeof(Elf64_Phdr), p)) {
      e.error = "truncated program headers";
      return false;
    }
    e.ph.push_back(p);
  }
  return true;
}

// A raw system-call instruction: where its bytes are in executable segments.
struct CodeHit {
  std::uint64_t va;
  const char* what;
};

std::vector<CodeHit> syscall_bytes(const Elf& e) {
  std::vector<CodeHit> hits;
  for (const auto& p : e.ph) {
    if (p.p_type != PT_LOAD || !(p.p_flags & PF_X)) continue;
    if (p.p_offset > e.bytes.size()) continue;
    const std::uint64_t n = std::min<std::uint64_t>(p.p_filesz, e.bytes.size() - p.p_offset);
    const auto* b = reinterpret_cast<const unsigned char*>(e.bytes.data() + p.p_offset);
    for (std::uint64_t i = 0; i + 1 < n; ++i) {
      const char* what = b[i] == 0x0f && b[i + 1] == 0x05   ? "syscall"
                         : b[i] == 0x0f && b[i + 1] == 0x34 ? "sysenter"
                         : b[i] == 0xcd && b[i + 1] == 0x80 ? "int 0x80"
                                                            : nullptr;
      if (what) hits.push_back({p.p_vaddr + i, what});
    }
  }
  return hits;
}

// objdump -d over the executable sections: instruction start -> text. Empty map when objdump is
// missing or fails (`note` says so).
std::map<std::uint64_t, std::string> disassemble(const std::string& path, std::string& note) {
  std::map<std::uint64_t, std::string> insns;
  std::string tool;
  for (const char* c : {"/usr/bin/objdump", "/bin/objdump", "/usr/local/bin/objdump"})
    if (std::filesystem::exists(c)) {
      tool = c;
      break;
    }
  if (tool.empty()) {
    note = "objdump not found (install binutils): system-call bytes were found by a byte scan and not decoded";
    return insns;
  }
  std::string out;
  if (run_command({tool, "-d", "-w", "--no-show-raw-insn", path}, out, 120) != 0) {
    note = "objdump failed on the object: system-call bytes were found by a byte scan and not decoded";
    return {};
  }
  static const std::regex line(R"(^\s*([0-9a-f]+):\s+(.*\S)\s*$)");
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_match(l, m, line)) insns[std::stoull(m[1].str(), nullptr, 16)] = m[2].str();
  }
  return insns;
}

}  // namespace

PolicyVerdict check_binary_policy(const std::string& so_path, const PolicyOptions& options) {
  PolicyVerdict v;
  auto refuse = [&](const std::string& kind, const std::string& sym, const std::string& reason) {
    v.ok = false;
    v.violations.push_back({kind, sym, reason});
  };
  Elf e;
  if (!load_elf(so_path, e)) {
    refuse("object", std::filesystem::path(so_path).filename().string(), e.error);
    return v;
  }

  // Segments: no writable+executable memory, no executable stack.
  const Elf64_Phdr* dyn = nullptr;
  for (const auto& p : e.ph) {
    if (p.p_type == PT_LOAD && (p.p_flags & PF_X) && (p.p_flags & PF_W))
      refuse("object", fmt::format("segment at {:#x}", p.p_vaddr),
             "is writable and executable (code could be generated at run time)");
    if (p.p_type == PT_GNU_STACK && (p.p_flags & PF_X))
      refuse("object", "executable stack", "asks for an executable stack (code could be generated at run time)");
    if (p.p_type == PT_INTERP) refuse("object", "PT_INTERP", "is a program, not a shared object");
    if (p.p_type == PT_DYNAMIC) dyn = &p;
  }
  if (!dyn) {
    refuse("object", "PT_DYNAMIC", "the object has no dynamic segment");
    return v;
  }

  // The dynamic section, as the loader reads it.
  std::uint64_t strtab = 0, strsz = 0, symtab = 0, syment = sizeof(Elf64_Sym), rela = 0, relasz = 0, jmprel = 0, pltrelsz = 0;
  std::vector<std::uint64_t> needed;
  bool have_strtab = false, have_symtab = false;
  for (std::uint64_t off = dyn->p_offset; off + sizeof(Elf64_Dyn) <= dyn->p_offset + dyn->p_filesz; off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d{};
    if (!e.at(off, d)) break;
    if (d.d_tag == DT_NULL) break;
    switch (d.d_tag) {
      case DT_STRTAB:
        strtab = d.d_un.d_ptr;
        have_strtab = true;
        break;
      case DT_STRSZ:
        strsz = d.d_un.d_val;
        break;
      case DT_SYMTAB:
        symtab = d.d_un.d_ptr;
        have_symtab = true;
        break;
      case DT_SYMENT:
        syment = d.d_un.d_val;
        break;
      case DT_RELA:
        rela = d.d_un.d_ptr;
        break;
      case DT_RELASZ:
        relasz = d.d_un.d_val;
        break;
      case DT_JMPREL:
        jmprel = d.d_un.d_ptr;
        break;
      case DT_PLTRELSZ:
        pltrelsz = d.d_un.d_val;
        break;
      case DT_NEEDED:
        needed.push_back(d.d_un.d_val);
        break;
      case DT_REL:
        refuse("object", "DT_REL", "unexpected relocation format for x86-64");
        break;
      case DT_PLTREL:
        if (d.d_un.d_val != DT_RELA) refuse("object", "DT_PLTREL", "unexpected relocation format for x86-64");
        break;
      case DT_RPATH:
      case DT_RUNPATH:
        refuse("object", d.d_tag == DT_RPATH ? "DT_RPATH" : "DT_RUNPATH",
               "sets a library search path (could load other libraries)");
        break;
      case DT_AUXILIARY:
      case DT_FILTER:
        refuse("object", "DT_FILTER", "filters another library");
        break;
      case DT_TEXTREL:
        refuse("object", "DT_TEXTREL", "relocates its code at load time");
        break;
      default:
        break;
    }
  }
  std::uint64_t strtab_off = 0, symtab_off = 0;
  if (!have_strtab || !have_symtab || syment != sizeof(Elf64_Sym) || !e.offset_of(strtab, strsz, strtab_off) ||
      !e.offset_of(symtab, sizeof(Elf64_Sym), symtab_off)) {
    refuse("object", "dynamic section", "malformed (symbol or string table outside the file)");
    return v;
  }

  // The symbols the loader binds are those the relocations name; the section header's .dynsym
  // count covers the rest (an undefined symbol no relocation names is never resolved).
  std::uint64_t nsyms = 0;
  std::set<std::uint64_t> bound;
  for (auto [addr, size] : {std::pair{rela, relasz}, std::pair{jmprel, pltrelsz}}) {
    if (!size) continue;
    std::uint64_t off = 0;
    if (!e.offset_of(addr, size, off)) {
      refuse("object", "relocations", "malformed (outside the file)");
      return v;
    }
    for (std::uint64_t i = 0; i + sizeof(Elf64_Rela) <= size; i += sizeof(Elf64_Rela)) {
      Elf64_Rela r{};
      e.at(off + i, r);
      const std::uint64_t idx = ELF64_R_SYM(r.r_info);
      if (idx) bound.insert(idx);
      nsyms = std::max(nsyms, idx + 1);
    }
  }
  Elf64_Ehdr h{};
  e.at(0, h);
  if (h.e_shentsize == sizeof(Elf64_Shdr))
    for (int i = 0; i < h.e_shnum; ++i) {
      Elf64_Shdr sh{};
      if (!e.at(h.e_shoff + static_cast<std::uint64_t>(i) * sizeof(Elf64_Shdr), sh)) break;
      if (sh.sh_type == SHT_DYNSYM && sh.sh_addr == symtab && sh.sh_entsize == sizeof(Elf64_Sym))
        nsyms = std::max<std::uint64_t>(nsyms, sh.sh_size / sizeof(Elf64_Sym));
    }
  std::set<std::string> seen;
  for (std::uint64_t i = 1; i < nsyms; ++i) {
    std::uint64_t off = 0;
    Elf64_Sym sym{};
    if (!e.offset_of(symtab + i * sizeof(Elf64_Sym), sizeof(Elf64_Sym), off) || !e.at(off, sym)) {
      refuse("object", "symbol table", "malformed (a relocation names a symbol outside the table)");
      break;
    }
    if (sym.st_shndx != SHN_UNDEF) continue;
    const std::string name = e.str(strtab_off, strsz, sym.st_name);
    if (name.empty()) {
      if (bound.count(i)) refuse("import", fmt::format("symbol #{}", i), "an unnamed import");
      continue;
    }
    if (!seen.insert(name).second) continue;
    const ImportVerdict iv = classify_import(name, options.libraries);
    if (!iv.allowed) refuse("import", name, iv.reason);
  }
  for (std::uint64_t n : needed) {
    const std::string lib = e.str(strtab_off, strsz, n);
    const ImportVerdict iv = classify_needed(lib, options.libraries);
    if (!iv.allowed) refuse("library", lib.empty() ? std::string("(unnamed library)") : lib, iv.reason);
  }

  // Host code: no raw system-call instruction anywhere in executable segments.
  const std::vector<CodeHit> hits = syscall_bytes(e);
  if (!hits.empty()) {
    std::string note;
    const auto insns = disassemble(so_path, note);
    if (!note.empty()) v.notes.push_back(note);
    for (const CodeHit& hit : hits) {
      std::string where = fmt::format("{} at {:#x}", hit.what, hit.va);
      std::string reason = "raw system call in host code (bypasses every library the policy checks)";
      if (!insns.empty()) {
        auto it = insns.upper_bound(hit.va);
        if (it != insns.begin()) {
          --it;
          if (it->first != hit.va)
            reason =
                fmt::format("system-call bytes inside the instruction at {:#x} (`{}`): a jump into them makes a raw system call",
                            it->first, it->second.substr(0, 60));
        }
      }
      refuse("code", where, reason);
    }
  }
  return v;
}

}  // namespace mskb
