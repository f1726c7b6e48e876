// The binary policy's import classification by name: vendor libraries, the CUDA runtime's deny
// list, nvcc's registration symbols, the loader's weak symbols and the C++ standard library (the
// C runtime is binary_policy_libc.cpp).
#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "binary_policy_internal.hpp"
#include "mskb/harness/binary_policy.hpp"
#include "mskb/util/text.hpp"

namespace mskb {

using policy_detail::allow;
using policy_detail::deny;

namespace {

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

// Whether `// mskb-link:` named the library (cublasLt symbols come with cublas too: libcublas
// links libcublasLt).
bool vendor_allowed(const std::vector<std::string>& libs, const VendorLib& v) {
  return has_lib(libs, v.name) || (std::string(v.name) == "cublasLt" && has_lib(libs, "cublas"));
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

}  // namespace

ImportVerdict classify_import(const std::string& symbol_in, const std::vector<std::string>& libraries) {
  const std::string s = symbol_in.substr(0, symbol_in.find('@'));
  if (s.empty()) return deny("empty symbol name");
  if (loader_symbols().count(s)) return allow();
  for (const auto& v : kVendor)
    if (starts_with(s, v.prefix)) {
      if (vendor_allowed(libraries, v)) return allow();
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
  return policy_detail::classify_c_runtime(s);
}

ImportVerdict classify_needed(const std::string& soname, const std::vector<std::string>& libraries) {
  static const std::regex runtime(
      R"(^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2|libcudart\.so\.[0-9]+)$)");
  if (std::regex_match(soname, runtime)) return allow();
  for (const auto& v : kVendor)
    if (starts_with(soname, v.soname)) {
      if (vendor_allowed(libraries, v)) return allow();
      return deny(
          fmt::format("links {}, a vendor library (only with --allow-libraries and `// mskb-link: {}`)", v.title, v.name));
    }
  if (starts_with(soname, "libcuda.so")) return deny("links the CUDA driver library");
  if (starts_with(soname, "libnvidia-ml")) return deny("links NVML");
  if (starts_with(soname, "libdl.") || starts_with(soname, "libpthread.") || starts_with(soname, "librt."))
    return deny("links a library for dynamic loading or threads");
  return deny("links a library that is not on the allowlist");
}

}  // namespace mskb
