// The confinement of an untrusted kernel's build (issue 40 item 2), with the real nvcc (no GPU):
// the corpus's host-file include (through a macro) and split-string .incbin fail with a one-line
// error that names the file and never its contents; an honest kernel still builds, confined; the
// source screen (a belt) refuses the literal forms; and the adversarial kernels that attack the
// OS sandbox at run time get through the build and the binary policy (only the sandbox sees them).
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

TEST(BuildConfinement, HonestKernelAndRuntimeAttacksStillBuild) {
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
