// The binary policy (mskb/binary_policy.hpp) on real shared objects built with the harness's nvcc
// recipe at test time (no GPU needed), and its allowlist classification as pure functions.
#include "mskb/harness/binary_policy.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>

#include "mskb/harness/compiler.hpp"

using namespace mskb;
namespace fs = std::filesystem;

namespace {

bool refused_for(const PolicyVerdict& v, const std::string& symbol) {
  for (const auto& x : v.violations)
    if (x.symbol == symbol) return true;
  return false;
}

const std::map<std::string, std::string>& fixture_sources() {
  static const std::map<std::string, std::string> m = {
      {"allowed", R"(#include <cuda_runtime.h>
#include <cstdio>
#include <cmath>
#include <vector>
#include <stdexcept>
__global__ void scale(const float* a, float* b, int n, float s) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i] * s; }
extern "C" void allowed_entry(const float* a, float* b, int n) {
  std::vector<float> host(4, 1.0f);
  float* tmp = nullptr;
  if (cudaMalloc(&tmp, sizeof(float) * 4) != cudaSuccess) throw std::runtime_error("cudaMalloc");
  cudaMemcpy(tmp, host.data(), sizeof(float) * 4, cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(a, b, n, sqrtf(static_cast<float>(host.size())));
  cudaDeviceSynchronize();
  cudaFree(tmp);
  if (cudaGetLastError() != cudaSuccess) fprintf(stderr, "launch failed\n");
}
)"},
      {"stream", R"(#include <cuda_runtime.h>
__global__ void k(float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = 1.0f; }
extern "C" void stream_entry(float* b, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  k<<<(n + 255) / 256, 256, 0, s>>>(b, n);
}
)"},
      // The text screen looks for the name; token pasting builds it in the preprocessor.
      {"pasted", R"(#include <cuda_runtime.h>
#define CAT(a, b) a##b
#define HIDDEN(x) CAT(cudaStream, Create)(x)
__global__ void k(float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = 1.0f; }
extern "C" void pasted_entry(float* b, int n) {
  cudaStream_t s;
  HIDDEN(&s);
  k<<<(n + 255) / 256, 256, 0, s>>>(b, n);
}
)"},
      {"libc", R"(#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>
#include <thread>
__global__ void k(float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = 1.0f; }
extern "C" void libc_entry(float* b, int n) {
  if (getenv("MSKB_SECRET")) system("true");
  if (fork() == 0) _exit(0);
  if (void* h = dlopen("libcublas.so", RTLD_NOW)) dlclose(h);
  if (FILE* f = fopen("/proc/self/maps", "r")) fclose(f);
  std::thread t([] {});
  t.join();
  k<<<(n + 255) / 256, 256>>>(b, n);
  cudaDeviceSynchronize();
}
)"},
      // A raw system call in host code, and system-call bytes hidden in another instruction's immediate.
      {"asm", R"(#include <cuda_runtime.h>
__global__ void k(float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = 1.0f; }
extern "C" long raw_getpid() { long r; asm volatile("syscall" : "=a"(r) : "a"(39L) : "rcx", "r11", "memory"); return r; }
extern "C" int hidden_bytes() { int x; asm volatile("movl $0x90050f90, %0" : "=r"(x)); return x; }
extern "C" void asm_entry(float* b, int n) {
  if (raw_getpid() < 0 || hidden_bytes() == 0) return;
  k<<<(n + 255) / 256, 256>>>(b, n);
  cudaDeviceSynchronize();
}
)"},
      {"cublas", R"(// mskb-link: cublas
#include <cublas_v2.h>
#include <cuda_runtime.h>
extern "C" void cublas_entry(const float* x, float* y, int n) {
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1.0f;
  cublasSaxpy(h, n, &one, x, 1, y, 1);
  cudaDeviceSynchronize();
  cublasDestroy(h);
}
)"},
  };
  return m;
}

class BinaryPolicy : public ::testing::Test {
 protected:
  static fs::path dir;
  static std::map<std::string, CompileResult> built;

  static CompileOptions options(bool policy, bool libraries = false) {
    CompileOptions o;
    o.cache_dir = (dir / "cache").string();
    o.binary_policy = policy;
    o.allow_libraries = libraries;
    return o;
  }
  static void SetUpTestSuite() {
    dir = fs::temp_directory_path() / ("mskb-binary-policy-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // Built without the policy (the policy is what the tests look at), up to 4 nvcc at a time.
    std::vector<std::pair<std::string, std::future<CompileResult>>> jobs;
    for (const auto& [name, src] : fixture_sources()) {
      const std::string path = (dir / (name + ".cu")).string();
      std::ofstream(path) << src;
      jobs.emplace_back(name, std::async(std::launch::async,
                                         [path, name = name] { return compile_kernel(path, options(false, name == "cublas")); }));
      if (jobs.size() % 4 == 0)
        for (auto& j : jobs)
          if (j.second.valid()) built[j.first] = j.second.get();
    }
    for (auto& j : jobs)
      if (j.second.valid()) built[j.first] = j.second.get();
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  static const std::string& so(const std::string& name) {
    const CompileResult& r = built.at(name);
    EXPECT_TRUE(r.ok) << name << ": " << r.error << "\n" << r.log;
    return r.so_path;
  }
};
fs::path BinaryPolicy::dir;
std::map<std::string, CompileResult> BinaryPolicy::built;

}  // namespace

TEST(BinaryPolicyClassify, CudaRuntime) {
  EXPECT_TRUE(classify_import("cudaMalloc").allowed);
  EXPECT_TRUE(classify_import("cudaMemcpyAsync@libcudart.so.13").allowed);
  EXPECT_TRUE(classify_import("cudaDeviceSynchronize").allowed);
  EXPECT_TRUE(classify_import("cudaFuncSetAttribute").allowed);
  EXPECT_TRUE(classify_import("cudaLaunchKernelExC").allowed);
  EXPECT_TRUE(classify_import("cudaSetDevice").allowed);  // CUB restores the current device with it
  EXPECT_TRUE(classify_import("__cudaRegisterFatBinary").allowed);
  EXPECT_TRUE(classify_import("__cudaPushCallConfiguration").allowed);
  EXPECT_FALSE(classify_import("__cudaSomethingNew").allowed);
  const ImportVerdict s = classify_import("cudaStreamCreateWithFlags");
  EXPECT_FALSE(s.allowed);
  EXPECT_EQ(s.reason, "creates a stream (work could outlive the call)");
  for (const char* denied : {"cudaStreamCreate",         "cudaStreamCreateWithPriority",
                             "cudaGraphLaunch",          "cudaGraphInstantiate",
                             "cudaStreamBeginCapture",   "cudaStreamAddCallback",
                             "cudaLaunchHostFunc",       "cudaStreamSetAttribute",
                             "cudaDeviceReset",          "cudaDeviceSetLimit",
                             "cudaDeviceSetCacheConfig", "cudaCtxResetPersistingL2Cache",
                             "cudaIpcGetMemHandle",      "cudaSetDeviceFlags",
                             "cudaGetDriverEntryPoint",  "cudaGetDriverEntryPointByVersion",
                             "cudaProfilerStart",        "cudaThreadExit",
                             "cudaStreamAttachMemAsync", "cudaDeviceSetMemPool"})
    EXPECT_FALSE(classify_import(denied).allowed) << denied;
  EXPECT_FALSE(classify_import("cuLaunchKernel").allowed);
  EXPECT_FALSE(classify_import("cuGetProcAddress_v2").allowed);
  EXPECT_FALSE(classify_import("nvmlDeviceGetCount_v2").allowed);
}

TEST(BinaryPolicyClassify, LibcAndCxx) {
  for (const char* ok : {"malloc",
                         "free",
                         "memcpy",
                         "__memcpy_chk",
                         "strlen",
                         "printf",
                         "__printf_chk",
                         "__fprintf_chk",
                         "puts",
                         "stderr",
                         "sqrtf",
                         "expf",
                         "__exp_finite",
                         "powl",
                         "fmaxf",
                         "exit",
                         "abort",
                         "__assert_fail",
                         "__stack_chk_fail",
                         "__gmon_start__",
                         "_ITM_registerTMCloneTable",
                         "__cxa_finalize",
                         "__cxa_atexit",
                         "__cxa_guard_acquire",
                         "__cxa_throw",
                         "__gxx_personality_v0",
                         "_Unwind_Resume",
                         "_Znwm",
                         "_ZdlPvm",
                         "_ZSt20__throw_length_errorPKc",
                         "_ZNSt13runtime_errorC2EPKc",
                         "_ZTISt13runtime_error",
                         "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm",
                         "_ZSt4cout",
                         "_ZSt21ios_base_library_initv",
                         "clock_gettime",
                         "nanosleep",
                         "__isoc99_sscanf",
                         "qsort"})
    EXPECT_TRUE(classify_import(ok).allowed) << ok << ": " << classify_import(ok).reason;
  const std::map<std::string, std::string> denied = {
      {"fork", "starts or controls processes"},
      {"system", "starts or controls processes"},
      {"execve", "starts or controls processes"},
      {"posix_spawnp", "starts or controls processes"},
      {"kill", "starts or controls processes"},
      {"ptrace", "starts or controls processes"},
      {"fopen", "accesses files"},
      {"open64", "accesses files"},
      {"__open_2", "accesses files"},
      {"fclose", "accesses files"},
      {"dprintf", "accesses files"},
      {"__dprintf_chk", "accesses files"},
      {"__read_chk", "accesses files"},
      {"mmap", "accesses files"},
      {"mprotect", "accesses files"},
      {"ioctl", "accesses files"},
      {"socket", "uses the network"},
      {"getaddrinfo", "uses the network"},
      {"getenv", "reads or changes the environment"},
      {"secure_getenv", "reads or changes the environment"},
      {"environ", "reads or changes the environment"},
      {"dlopen", "loads code at run time"},
      {"dlsym", "loads code at run time"},
      {"dl_iterate_phdr", "loads code at run time"},
      {"pthread_create", "creates or controls host threads"},
      {"pthread_setaffinity_np", "creates or controls host threads"},
      {"sched_setaffinity", "creates or controls host threads"},
      {"syscall", "makes a raw system call"},
      {"_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
       "creates host threads (std::thread)"},
      {"_ZNSt13basic_filebufIcSt11char_traitsIcEE4openEPKcSt13_Ios_Openmode", "accesses files (std::fstream)"},
      {"_ZNSt10filesystem6statusERKNS_7__cxx114pathE", "accesses files (std::filesystem)"},
      {"some_unknown_function", "not on the allowlist (unknown import)"}};
  for (const auto& [sym, why] : denied) {
    const ImportVerdict v = classify_import(sym);
    EXPECT_FALSE(v.allowed) << sym;
    if (sym.rfind("_ZNSt13basic_filebuf", 0) == 0)
      EXPECT_NE(v.reason.find("accesses files"), std::string::npos) << v.reason;
    else
      EXPECT_EQ(v.reason, why) << sym;
  }
}

TEST(BinaryPolicyClassify, VendorLibrariesOnlyWhenAllowed) {
  EXPECT_FALSE(classify_import("cublasCreate_v2").allowed);
  EXPECT_NE(classify_import("cublasCreate_v2").reason.find("--allow-libraries"), std::string::npos);
  EXPECT_TRUE(classify_import("cublasCreate_v2", {"cublas"}).allowed);
  EXPECT_TRUE(classify_import("cublasLtMatmul", {"cublas"}).allowed);
  EXPECT_FALSE(classify_import("cusparseCreate", {"cublas"}).allowed);  // only the listed libraries
  EXPECT_TRUE(classify_import("cudnnCreate", {"cudnn"}).allowed);
  EXPECT_FALSE(classify_import("fork", {"cublas", "cudnn"}).allowed);   // libraries never widen libc
  EXPECT_FALSE(classify_import("cuLaunchKernel", {"cublas"}).allowed);  // nor the driver API

  for (const char* ok : {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libcudart.so.13", "libcudart.so.12"})
    EXPECT_TRUE(classify_needed(ok).allowed) << ok;
  EXPECT_FALSE(classify_needed("libcublas.so.13").allowed);
  EXPECT_TRUE(classify_needed("libcublas.so.13", {"cublas"}).allowed);
  EXPECT_TRUE(classify_needed("libcudnn.so.9", {"cudnn"}).allowed);
  EXPECT_FALSE(classify_needed("libcuda.so.1", {"cublas"}).allowed);
  EXPECT_FALSE(classify_needed("libnvidia-ml.so.1").allowed);
  EXPECT_FALSE(classify_needed("libevil.so").allowed);
}

TEST(BinaryPolicyClassify, NotAnElfSharedObject) {
  const fs::path p = fs::temp_directory_path() / ("mskb-policy-garbage-" + std::to_string(::getpid()));
  std::ofstream(p) << "#!/bin/sh\necho not an object\n";
  const PolicyVerdict v = check_binary_policy(p.string());
  EXPECT_FALSE(v.ok);
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].reason, "not an ELF file");
  fs::remove(p);
  EXPECT_FALSE(check_binary_policy("/nonexistent/x.so").ok);
}

TEST_F(BinaryPolicy, AllowedKernelPasses) {
  const PolicyVerdict v = check_binary_policy(so("allowed"));
  EXPECT_TRUE(v.ok) << v.describe(20);
}

TEST_F(BinaryPolicy, StreamCreationRefused) {
  const PolicyVerdict v = check_binary_policy(so("stream"));
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(refused_for(v, "cudaStreamCreate")) << v.describe(20);
  EXPECT_EQ(v.describe(), "imports cudaStreamCreate: creates a stream (work could outlive the call)");
}

TEST_F(BinaryPolicy, TokenPastingCannotHideTheImport) {
  ASSERT_EQ(fixture_sources().at("pasted").find("cudaStreamCreate"), std::string::npos);  // the name is not in the text
  const PolicyVerdict v = check_binary_policy(so("pasted"));
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(refused_for(v, "cudaStreamCreate")) << v.describe(20);
}

TEST_F(BinaryPolicy, ProcessFileEnvironmentLoadingAndThreadsRefused) {
  const PolicyVerdict v = check_binary_policy(so("libc"));
  EXPECT_FALSE(v.ok);
  for (const char* s : {"fork", "system", "getenv", "dlopen", "fopen"})
    EXPECT_TRUE(refused_for(v, s)) << s << ": " << v.describe(30);
  bool thread = false;
  for (const auto& x : v.violations) thread |= x.reason.find("thread") != std::string::npos;
  EXPECT_TRUE(thread) << v.describe(30);
}

TEST_F(BinaryPolicy, RawSystemCallInHostCodeRefused) {
  const PolicyVerdict v = check_binary_policy(so("asm"));
  EXPECT_FALSE(v.ok);
  int decoded = 0, hidden = 0;
  for (const auto& x : v.violations) {
    EXPECT_EQ(x.kind, "code");
    if (x.symbol.rfind("syscall at ", 0) == 0 && x.reason.find("raw system call in host code") != std::string::npos) ++decoded;
    if (x.reason.find("inside the instruction") != std::string::npos) ++hidden;
  }
  EXPECT_EQ(decoded, 1) << v.describe(20);
  if (v.notes.empty())
    EXPECT_EQ(hidden, 1) << v.describe(20);  // objdump present: the hidden bytes are named as such
  else
    EXPECT_EQ(v.violations.size(), 2u) << v.describe(20);  // byte scan alone: both refused
  // Device code (.nv_fatbin) is not host code: the allowed kernel has a fat binary and passes.
  EXPECT_TRUE(check_binary_policy(so("allowed")).ok);
}

TEST_F(BinaryPolicy, VendorLibraryOnlyWithAllowLibraries) {
  const PolicyVerdict without = check_binary_policy(so("cublas"));
  EXPECT_FALSE(without.ok);
  EXPECT_TRUE(refused_for(without, "cublasCreate_v2")) << without.describe(20);
  bool needed = false;
  for (const auto& x : without.violations) needed |= x.kind == "library" && x.symbol.rfind("libcublas.so", 0) == 0;
  EXPECT_TRUE(needed) << without.describe(20);
  PolicyOptions with;
  with.libraries = {"cublas"};
  const PolicyVerdict v = check_binary_policy(so("cublas"), with);
  EXPECT_TRUE(v.ok) << v.describe(20);
}

TEST_F(BinaryPolicy, CompileKernelAppliesThePolicyOnCacheHits) {
  const std::string path = (dir / "stream.cu").string();
  const CompileResult r = compile_kernel(path, options(true));
  EXPECT_TRUE(r.cache_hit);  // built (without the policy) by SetUpTestSuite: the cache must not skip it
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.refused_policy);
  EXPECT_TRUE(r.policy_checked);
  EXPECT_EQ(r.error, "rejected_static: imports cudaStreamCreate: creates a stream (work could outlive the call)");
  const nlohmann::json j = policy_to_json(r);
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ(j["violations"][0]["symbol"], "cudaStreamCreate");

  const CompileResult ok = compile_kernel((dir / "allowed.cu").string(), options(true));
  EXPECT_TRUE(ok.ok) << ok.error;
  EXPECT_TRUE(ok.policy_checked);
  EXPECT_FALSE(ok.refused_policy);
  // The library fixture: refused without --allow-libraries' widening... (it cannot even link
  // without allow_libraries), accepted with it.
  const CompileResult lib = compile_kernel((dir / "cublas.cu").string(), options(true, true));
  EXPECT_TRUE(lib.ok) << lib.error;
  EXPECT_TRUE(policy_to_json(compile_kernel((dir / "allowed.cu").string(), options(false))).is_null());
}

TEST_F(BinaryPolicy, ShippedBaselinePasses) {
  const fs::path base = fs::path(source_root()) / "tasks" / "algebra" / "vector_add" / "baseline_fp32.cu";
  ASSERT_TRUE(fs::exists(base)) << base;
  const CompileResult r = compile_kernel(base.string(), options(true));
  EXPECT_TRUE(r.ok) << r.error << "\n" << r.log;
  EXPECT_TRUE(r.policy_checked);
}
