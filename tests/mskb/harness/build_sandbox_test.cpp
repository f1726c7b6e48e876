// The confinement of an untrusted kernel's build (issue 40 item 2), with the real nvcc (no GPU):
// the corpus's host-file include (through a macro) and split-string .incbin fail with a one-line
// error that names the file and never its contents; an honest kernel still builds, confined; the
// source screen (a belt) refuses the literal forms; and the adversarial kernels that attack the
// OS sandbox at run time get through the build and the binary policy (only the sandbox sees them),
// and, loaded for real in a sandboxed child (no GPU needed: the trick runs before the launch),
// are killed by it, while without the sandbox the located open really creates its file.
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "mskb/harness/build_sandbox.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/util/files.hpp"

using namespace mskb;
namespace fs = std::filesystem;

namespace {

struct Cache {
  fs::path dir = fs::temp_directory_path() / ("mskb_build_sandbox_test_" + std::to_string(::getpid()));
  ~Cache() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

CompileOptions untrusted(const Cache& c) {
  CompileOptions o;
  o.cache_dir = c.dir.string();
  o.binary_policy = true;
  return o;
}

bool have_nvcc() { return ::access(nvcc_path().c_str(), X_OK) == 0; }
bool have_landlock() { return sandbox::landlock_abi() > 0; }

fs::path corpus(const char* rel) { return fs::path(source_root()) / "tests" / "adversarial" / rel; }

}  // namespace

TEST(BuildScreen, RefusesLiteralHostFileReferences) {
  EXPECT_NE(screen_host_file_references("#include \"/etc/passwd\"\n"), "");
  EXPECT_NE(screen_host_file_references("x\n  #  include </etc/shadow>\n"), "");
  EXPECT_NE(screen_host_file_references("#include \"../../secrets.h\"\n"), "");
  EXPECT_NE(screen_host_file_references("asm(\".incbin \\\"/etc/passwd\\\"\");\n"), "");
  EXPECT_NE(screen_host_file_references("#embed \"/etc/passwd\"\n"), "");
  EXPECT_EQ(screen_host_file_references("#include <cuda_runtime.h>\n#include \"mskb_vendor.cuh\"\n#include \"sub/x.cuh\"\n"), "");
  const std::string why = screen_host_file_references("int a;\n#include \"/etc/passwd\"\n");
  EXPECT_NE(why.find("line 2"), std::string::npos) << why;
}

TEST(BuildScreen, ExplainsARefusedRead) {
  EXPECT_NE(explain_refused_read("k.cu:3:10: fatal error: /etc/passwd: Permission denied\n").find("may not read /etc/passwd"),
            std::string::npos);
  EXPECT_EQ(explain_refused_read("k.cu:3:10: error: expected ';'\n"), "");
}

TEST(BuildConfinement, HostFileIncludeThroughAMacroFailsWithoutItsContents) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  if (!have_landlock()) GTEST_SKIP() << "no Landlock on this kernel: the build runs unconfined (the screen only)";
  Cache c;
  const CompileResult r = compile_kernel(corpus("matrix_copy/include_host_file.cu").string(), untrusted(c));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.confinement.rfind("landlock-", 0), 0u) << r.confinement;
  EXPECT_NE(r.error.find("may not read /etc/passwd"), std::string::npos) << r.error;
  EXPECT_EQ(r.log.find("root:"), std::string::npos) << "the host file's contents reached the build log:\n" << r.log;
  EXPECT_EQ(r.error.find("root:"), std::string::npos) << r.error;
}

TEST(BuildConfinement, SplitIncbinFailsWithoutItsContents) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  if (!have_landlock()) GTEST_SKIP() << "no Landlock on this kernel";
  Cache c;
  const CompileResult r = compile_kernel(corpus("RELU/incbin_host_file.cu").string(), untrusted(c));
  EXPECT_FALSE(r.ok) << "the object embedded /etc/passwd";
  EXPECT_FALSE(r.refused_policy);
  EXPECT_NE(r.error.find("/etc/passwd"), std::string::npos) << r.error;
  EXPECT_EQ(r.log.find("root:"), std::string::npos) << r.log;
}

TEST(BuildConfinement, RuntimeAttacksStillBuild) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  Cache c;
  // The sandbox's run-time adversaries pass the build and the binary policy: only the OS sandbox
  // sees their calls (their declared disposition is sandbox_violation).
  for (const char* k : {"vector_add/libc_gadget_socket.cu", "dot_product/located_open_for_write.cu"}) {
    const CompileResult r = compile_kernel(corpus(k).string(), untrusted(c));
    EXPECT_TRUE(r.ok) << k << ": " << r.error << "\n" << r.log;
    if (have_landlock()) {
      EXPECT_EQ(r.confinement.rfind("landlock-", 0), 0u) << r.confinement;
    }
  }
  // No build folder is left behind next to the cached objects.
  for (const auto& e : fs::directory_iterator(c.dir / "kernels"))
    EXPECT_EQ(e.path().filename().string().find(".build."), std::string::npos) << e.path();
}

namespace {

// Loads `so` in a forked child, in the candidate's sandbox (both steps) or not, and calls `entry`
// with null buffers and a zero size (the trick runs before any launch). Returns the wait status.
int call_in_child(const std::string& so, const char* entry, bool sandboxed) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (sandboxed) {
      try {
        sandbox::CandidateSandbox box;
        box.confine_files({so, "", {}, false});
        box.confine_calls();
      } catch (const std::exception&) {
        ::_exit(90);
      }
    }
    void* lib = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) ::_exit(91);
    void* fn = ::dlsym(lib, entry);
    if (!fn) ::_exit(92);
    if (std::string(entry) == "vector_add")
      reinterpret_cast<void (*)(const float*, const float*, float*, int)>(fn)(nullptr, nullptr, nullptr, 0);
    else
      reinterpret_cast<void (*)(float*, const float*, const float*, int)>(fn)(nullptr, nullptr, nullptr, 0);
    ::_exit(0);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return st;
}

}  // namespace

TEST(BuildConfinement, RuntimeAttacksAreKilledInTheSandbox) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
#if !defined(__x86_64__)
  GTEST_SKIP() << "the corpus's gadget kernels are x86_64";
#endif
  Cache c;
  const CompileResult gadget = compile_kernel(corpus("vector_add/libc_gadget_socket.cu").string(), untrusted(c));
  const CompileResult located = compile_kernel(corpus("dot_product/located_open_for_write.cu").string(), untrusted(c));
  ASSERT_TRUE(gadget.ok) << gadget.error;
  ASSERT_TRUE(located.ok) << located.error;
  const fs::path marker = "/tmp/mskb_adversarial_located_open";
  std::error_code ec;
  fs::remove(marker, ec);
  // Without the sandbox the trick is real: libc's open, found without an import, creates the file.
  const int free_run = call_in_child(located.so_path, "dot_product", false);
  if (WIFEXITED(free_run) && WEXITSTATUS(free_run) == 91) GTEST_SKIP() << "the CUDA runtime cannot be loaded here";
  EXPECT_TRUE(fs::exists(marker)) << "the located open did not work unsandboxed: the corpus entry tests nothing";
  fs::remove(marker, ec);
  // In the sandbox: the open is refused (nothing created) and the fork that follows kills it.
  const int st = call_in_child(located.so_path, "dot_product", true);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS) << "status " << st;
  EXPECT_FALSE(fs::exists(marker));
  const int g = call_in_child(gadget.so_path, "vector_add", true);
  EXPECT_TRUE(WIFSIGNALED(g) && WTERMSIG(g) == SIGSYS) << "status " << g;
}
