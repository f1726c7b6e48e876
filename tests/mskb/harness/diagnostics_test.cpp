// A kernel build's compiler output (mskb/harness/diagnostics.hpp) and its extra nvcc flags
// (check_flag): every error and warning with its column, shown relative to the current directory;
// ptxas's resource report; the allowlist of flags. The last tests build with the real nvcc (no GPU).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "mskb/harness/compiler.hpp"
#include "mskb/harness/diagnostics.hpp"

#include "support/scratch_dir.hpp"

using namespace mskb;
namespace fs = std::filesystem;

namespace {

// The test's scratch folder (tests/support/scratch_dir.hpp).
struct TempDir : mskb_test::ScratchDir {
  TempDir() : ScratchDir("diagnostics") {}
};

using mskb_test::write;

// What nvcc 13 printed for a file with three undefined names (cudafe++ quotes each line and puts
// a caret under the token).
const char* kThreeErrors =
    "/nowhere/three.cu(4): error: identifier \"undefined_a\" is undefined\n"
    "    a[0] = undefined_a;\n"
    "           ^\n"
    "\n"
    "/nowhere/three.cu(5): error: identifier \"undefined_b\" is undefined\n"
    "    a[1] = undefined_b + 1;\n"
    "           ^\n"
    "\n"
    "/nowhere/three.cu(3): warning #177-D: variable \"unused_var\" was declared but never referenced\n"
    "    int unused_var = 0;\n"
    "        ^\n"
    "\n"
    "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
    "\n"
    "/nowhere/three.cu(6): error: identifier \"undefined_c\" is undefined\n"
    "    float x = undefined_c;\n"
    "              ^\n"
    "\n"
    "3 errors detected in the compilation of \"/nowhere/three.cu\".\n";

bool throws_naming(const std::string& flag, const std::string& words) {
  try {
    check_flag(flag);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    return what.find("'" + flag + "'") != std::string::npos && what.find(words) != std::string::npos;
  }
  return false;
}

}  // namespace

TEST(Diagnostics, EveryFrontendErrorAndWarningWithItsColumn) {
  const auto d = parse_nvcc_diagnostics(kThreeErrors);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(count_severity(d, "error"), 3u);
  EXPECT_EQ(count_severity(d, "warning"), 1u);
  EXPECT_EQ(d[0].file, "/nowhere/three.cu");
  EXPECT_EQ(d[0].line, 4);
  EXPECT_EQ(d[0].column, 10);  // the file cannot be read: the caret's place in the quoted line
  EXPECT_EQ(d[0].message, "identifier \"undefined_a\" is undefined");
  EXPECT_EQ(d[1].line, 5);
  EXPECT_EQ(d[1].column, 10);
  EXPECT_EQ(d[2].severity, "warning");
  EXPECT_EQ(d[2].line, 3);
  EXPECT_EQ(d[2].column, 7);
  EXPECT_EQ(d[2].message, "variable \"unused_var\" was declared but never referenced");
  EXPECT_EQ(d[3].line, 6);
  EXPECT_EQ(d[3].column, 13);
}

TEST(Diagnostics, ColumnsAreCheckedAgainstTheSource) {
  TempDir t;
  // The frontend quotes the preprocessed line: __global__ expanded before the caret, a tab as a space.
  const std::string src = write(t.p / "k.cu",
                                "#include <cuda_runtime.h>\n"
                                "__global__ void k2(float* a) { float b = undefined_long; }\n"
                                "\tint q = undefined_t;\n"
                                "#define BAD(x) (x + nope)\n"
                                "int r = BAD(1);\n");
  // cudafe++'s form: the quoted line after two spaces, the caret under the token.
  auto quoted = [&src](int line, const std::string& name, const std::string& shown) {
    return src + "(" + std::to_string(line) + "): error: identifier \"" + name + "\" is undefined\n  " + shown + "\n" +
           std::string(2 + shown.find(name), ' ') + "^\n\n";
  };
  const std::string log = quoted(2, "undefined_long", "__attribute__((global)) void k2(float* a) { float b = undefined_long; }") +
                          quoted(3, "undefined_t", " int q = undefined_t;") + quoted(5, "nope", "int r = (1 + nope);");
  const auto d = parse_nvcc_diagnostics(log);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].column, 42) << "placed by the text after the caret";
  EXPECT_EQ(std::string("__global__ void k2(float* a) { float b = undefined_long; }").find("undefined_long") + 1, 42u);
  EXPECT_EQ(d[1].column, 10) << "a tab is one column";
  EXPECT_EQ(d[2].column, 0) << "inside a macro's expansion: no column rather than a wrong one";
}

TEST(Diagnostics, HostCompilerToolsAndLinker) {
  const std::string log =
      "/x/k.cu:2:2: warning: #warning \"careful\" [-Wcpp]\n"
      "    2 | #warning \"careful\"\n"
      "      |  ^~~~~~~\n"
      "/x/k.cu:2:2: warning: #warning \"careful\" [-Wcpp]\n"  // the preprocessor runs twice: once
      "/x/k.cu:9: error: no column here\n"
      "/x/k.cu:3:10: fatal error: x.h: No such file or directory\n"
      "ptxas error   : Entry function '_Z1kPf' uses too much shared data (0x3a980 bytes, 0xc000 max)\n"
      "ptxas /tmp/tmpxft_1-6_k.ptx, line 30; error   : Unknown symbol 'x'\n"
      "nvlink warning : Stack size for entry function cannot be statically determined\n"
      "k.o: undefined reference to `cublasCreate_v2'\n";
  const auto d = parse_nvcc_diagnostics(log);
  ASSERT_EQ(d.size(), 7u);
  EXPECT_EQ(d[0].column, 2);
  EXPECT_EQ(d[0].severity, "warning");
  EXPECT_EQ(d[1].line, 9);
  EXPECT_EQ(d[1].column, 0);
  EXPECT_EQ(d[2].severity, "error");
  EXPECT_EQ(d[2].column, 10);
  EXPECT_EQ(d[3].file, "ptxas");
  EXPECT_EQ(d[3].line, 0);
  EXPECT_EQ(d[4].message, "PTX line 30: Unknown symbol 'x'");
  EXPECT_EQ(d[5].file, "nvlink");
  EXPECT_EQ(d[5].severity, "warning");
  EXPECT_EQ(d[6].file, "(link)");
}

TEST(Diagnostics, ShownRelativeToTheCurrentDirectory) {
  const fs::path cwd = fs::current_path();
  EXPECT_EQ(display_path((cwd / "kernels" / "k.cu").string()), "kernels/k.cu");
  EXPECT_EQ(display_path((cwd / "a" / ".." / "k.cu").string()), "k.cu");
  if (cwd.has_parent_path() && cwd.parent_path() != cwd.root_path()) {
    EXPECT_EQ(display_path((cwd.parent_path() / "k.cu").string()), "../k.cu");
  }
  // Through the root and down again: the absolute path.
  EXPECT_EQ(display_path("/k.cu"), cwd == cwd.root_path() ? "k.cu" : "/k.cu");
  EXPECT_EQ(display_path("ptxas"), "ptxas");
  EXPECT_EQ(display_path("rel/k.cu"), "rel/k.cu");

  Diagnostic d{(cwd / "k.cu").string(), 12, "error", "identifier \"x\" is undefined", 5};
  EXPECT_EQ(format_diagnostic(d), "k.cu:12:5: error: identifier \"x\" is undefined");
  EXPECT_EQ(diagnostic_json(d)["column"], 5);
  EXPECT_EQ(diagnostic_json(d)["file"], "k.cu");
  d.column = 0;
  EXPECT_EQ(format_diagnostic(d), "k.cu:12: error: identifier \"x\" is undefined");
  EXPECT_FALSE(diagnostic_json(d).contains("column"));
  EXPECT_EQ(format_diagnostic({"ptxas", 0, "error", "too much shared data"}), "ptxas: error: too much shared data");
}

TEST(ResourceUsage, PtxasVerboseReport) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z5spillILi64EEvPf' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z5spillILi64EEvPf\n"
      "    256 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 0 barriers, 256 bytes cumulative stack size\n"
      "ptxas info    : Compile time = 72.765 ms\n"
      "ptxas info    : Function properties for _Z6helperv\n"
      "    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function '_Z1kPfi' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z1kPfi\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0]\n";
  const auto f = parse_resource_usage(log);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].name, "void spill<64>(float*)");
  EXPECT_TRUE(f[0].entry);
  EXPECT_EQ(f[0].arch, "sm_90");
  EXPECT_EQ(f[0].registers, 24);
  EXPECT_EQ(f[0].barriers, 0);
  EXPECT_EQ(f[0].stack_bytes, 256);
  EXPECT_EQ(f[0].spill_store_bytes, 8);
  EXPECT_EQ(f[0].spill_load_bytes, 12);
  EXPECT_EQ(f[1].name, "helper()");
  EXPECT_FALSE(f[1].entry);
  EXPECT_EQ(f[1].stack_bytes, 16);
  EXPECT_EQ(f[2].name, "k(float*, int)");
  EXPECT_EQ(f[2].registers, 10);
  EXPECT_EQ(f[2].barriers, 1);
  EXPECT_EQ(f[2].shared_bytes, 1024);
  EXPECT_EQ(f[2].constant_bytes, 380);
  const auto j = resource_usage_json(f);
  EXPECT_EQ(j[2]["registers"], 10);
  EXPECT_FALSE(j[1].contains("registers")) << "a device function has no register report of its own";
  EXPECT_TRUE(parse_resource_usage("nothing from ptxas\n").empty());
}

TEST(Flags, AllowedForms) {
  for (const char* f : {"-O2", "-use_fast_math", "--use_fast_math", "-lineinfo", "-G", "-maxrregcount=64", "--maxrregcount=32",
                        "-DTILE=32", "-DNDEBUG", "-UFOO", "-Xptxas=-v", "-Xptxas=-v,-warn-spills,-warn-lmem-usage", "--ptxas-options=-O3",
                        "-Xptxas=-dlcm=cg", "-Xcompiler=-Wall,-Wextra", "-Xcudafe=--display_error_number", "-ftz=true", "-std=c++20",
                        "--expt-relaxed-constexpr", "-res-usage", "-diag-suppress=177", "-w", "--extra-device-vectorization"})
    EXPECT_NO_THROW(check_flag(f)) << f;
}

TEST(Flags, RefusedFormsNameTheFlagAndWhy) {
  // What would reach around the build's confinement, its source screen or its cache key.
  for (const char* f : {"-I/etc", "-isystem/usr/include", "-include", "-include/etc/passwd", "--include-path=/x", "--pre-include=/x"})
    EXPECT_TRUE(throws_naming(f, "include folders")) << f;
  for (const char* f : {"-o/tmp/x.so", "--output-directory=/tmp", "-odir", "--dependency-output=/tmp/d", "-MD", "-keep", "-E"})
    EXPECT_TRUE(throws_naming(f, "outputs")) << f;
  for (const char* f : {"-ccbin=/tmp/gcc", "--compiler-bindir=/tmp", "-Xlinker=-rpath", "-lcublas", "-L/tmp", "-cudart=static", "-rdc=true"})
    EXPECT_TRUE(throws_naming(f, "toolchain")) << f;
  for (const char* f : {"-arch=sm_80", "-gencode=arch=compute_80,code=sm_80"}) EXPECT_TRUE(throws_naming(f, "--arch")) << f;
  EXPECT_TRUE(throws_naming("-Xcompiler=-fplugin=/tmp/p.so", "host compiler option '-fplugin=/tmp/p.so'"));
  EXPECT_TRUE(throws_naming("-Xcompiler=-Wl,-rpath,/tmp", "'-Wl'"));
  EXPECT_TRUE(throws_naming("-Xcompiler=-march=native", "not on the whitelist"));
  EXPECT_TRUE(throws_naming("-Xptxas=-v,-o,/tmp/x", "ptxas option '-o'"));
  EXPECT_TRUE(throws_naming("-Xcudafe=--include_directory=/etc", "frontend option"));
  EXPECT_TRUE(throws_naming("-Xptxas -v", "write '-Xptxas -v' as -Xptxas=-v"));
  EXPECT_TRUE(throws_naming("-Xptxas", "=-v"));
  EXPECT_TRUE(throws_naming("-DX=\"/etc/passwd\"", "allowed:"));
  EXPECT_TRUE(throws_naming("--default-stream=per-thread", "default stream"));
}

// The real nvcc: all three errors come back; a warning is kept on a successful build and on its
// cache hit; -Xptxas=-v is a cache entry of its own whose log carries the resource report.
TEST(CompileDiagnostics, RealNvcc) {
  TempDir t;
  CompileOptions o;
  o.cache_dir = (t.p / "cache").string();
  const std::string bad = write(t.p / "three.cu",
                                "#include <cuda_runtime.h>\n"
                                "__global__ void k(float* a) {\n"
                                "  a[0] = undefined_a;\n"
                                "  a[1] = undefined_b + 1;\n"
                                "  float x = undefined_c;\n"
                                "}\n");
  const CompileResult r = compile_kernel(bad, o);
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(count_severity(r.diagnostics, "error"), 3u) << r.log;
  EXPECT_EQ(r.diagnostics[0].line, 3);
  EXPECT_EQ(r.diagnostics[0].column, 10);
  EXPECT_EQ(r.diagnostics[2].line, 5);
  EXPECT_EQ(r.diagnostics[2].column, 13);
  const CompileResult again = compile_kernel(bad, o);
  ASSERT_TRUE(again.cache_hit);
  EXPECT_EQ(count_severity(again.diagnostics, "error"), 3u);

  const std::string warn = write(t.p / "warn.cu",
                                 "#include <cuda_runtime.h>\n"
                                 "__global__ void k(float* a, int n) {\n"
                                 "  int unused_var = 0;\n"
                                 "  __shared__ float s[256];\n"
                                 "  s[threadIdx.x] = a[threadIdx.x]; __syncthreads(); a[threadIdx.x] = s[255 - threadIdx.x];\n"
                                 "}\n"
                                 "extern \"C\" void vector_add(float* a) { k<<<1, 256>>>(a, 256); }\n");
  for (int pass = 0; pass < 2; ++pass) {
    const CompileResult w = compile_kernel(warn, o);
    ASSERT_TRUE(w.ok) << w.error << w.log;
    EXPECT_EQ(w.cache_hit, pass == 1);
    ASSERT_EQ(count_severity(w.diagnostics, "warning"), 1u) << w.log;
    EXPECT_EQ(w.diagnostics[0].line, 3);
    EXPECT_EQ(w.diagnostics[0].column, 7);
    EXPECT_NE(w.diagnostics[0].message.find("unused_var"), std::string::npos);
  }
  const std::string plain_key = compile_kernel(warn, o).key;
  o.flags = {"-Xptxas=-v"};
  for (int pass = 0; pass < 2; ++pass) {
    const CompileResult v = compile_kernel(warn, o);
    ASSERT_TRUE(v.ok) << v.error;
    EXPECT_NE(v.key, plain_key) << "another flag, another cache entry";
    EXPECT_EQ(v.cache_hit, pass == 1);
    const auto f = parse_resource_usage(v.log);
    ASSERT_EQ(f.size(), 1u) << v.log;
    EXPECT_EQ(f[0].name, "k(float*, int)");
    EXPECT_GT(f[0].registers, 0);
    EXPECT_EQ(f[0].shared_bytes, 1024);
    EXPECT_EQ(f[0].spill_store_bytes, 0);
  }
}
