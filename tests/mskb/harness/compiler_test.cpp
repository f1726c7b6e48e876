// Kernel builds through nvcc (no GPU needed): cache hits, structured compile errors, refusals.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "mskb/harness/build_info.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/suite.hpp"

#include "support/scratch_dir.hpp"

using namespace mskb;
namespace fs = std::filesystem;

namespace {

// The test's scratch folder (tests/support/scratch_dir.hpp).
struct TempDir : mskb_test::ScratchDir {
  TempDir() : ScratchDir("compiler") {}
};

using mskb_test::write;

const char* kGood = R"(#include <cuda_runtime.h>
__global__ void k(const float* a, float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i]; }
extern "C" void matrix_copy_like(const float* a, float* b, int n) { k<<<(n + 255) / 256, 256>>>(a, b, n); cudaDeviceSynchronize(); }
)";

}  // namespace

TEST(Diagnostics, ParsesNvccGccAndTools) {
  const std::string log =
      "/x/k.cu(12): error: identifier \"foo\" is undefined\n"
      "/x/k.cu(3): warning #177-D: variable \"y\" was declared but never referenced\n"
      "/x/k.cu:7:5: error: expected ';' before '}' token\n"
      "ptxas error   : Entry function uses too much shared data\n"
      "k.o: undefined reference to `cublasCreate_v2'\n"
      "1 error detected in the compilation of \"/x/k.cu\".\n";
  const auto d = parse_nvcc_diagnostics(log);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].file, "/x/k.cu");
  EXPECT_EQ(d[0].line, 12);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].message, "identifier \"foo\" is undefined");
  EXPECT_EQ(d[1].severity, "warning");
  EXPECT_EQ(d[2].line, 7);
  EXPECT_EQ(d[3].file, "ptxas");
  EXPECT_EQ(d[4].file, "(link)");
}

TEST(Flags, Whitelist) {
  EXPECT_NO_THROW(check_flag("-use_fast_math"));
  EXPECT_NO_THROW(check_flag("-maxrregcount=64"));
  EXPECT_NO_THROW(check_flag("-DTILE=32"));
  EXPECT_THROW(check_flag("-Xcompiler=-fopenmp"), std::invalid_argument);
  EXPECT_THROW(check_flag("-o/etc/passwd"), std::invalid_argument);
  EXPECT_THROW(check_flag("-lcublas"), std::invalid_argument);
}

TEST(Libraries, LinkLines) {
  EXPECT_EQ(requested_libraries("// mskb-link: cublas cusparse\n"), (std::vector<std::string>{"cublas", "cusparse"}));
  EXPECT_TRUE(requested_libraries("int x;").empty());
  EXPECT_THROW(requested_libraries("// mskb-link: libevil\n"), std::invalid_argument);
}

TEST(Compile, BuildsThenHitsTheCacheFast) {
  TempDir t;
  CompileOptions o;
  o.cache_dir = (t.p / "cache").string();
  const std::string src = write(t.p / "good.cu", kGood);
  const CompileResult first = compile_kernel(src, o);
  ASSERT_TRUE(first.ok) << first.error << "\n" << first.log;
  EXPECT_FALSE(first.cache_hit);
  EXPECT_TRUE(fs::exists(first.so_path));
  const auto syms = exported_symbols(first.so_path);
  EXPECT_NE(std::find(syms.begin(), syms.end(), "matrix_copy_like"), syms.end());
  const CompileResult second = compile_kernel(src, o);
  EXPECT_TRUE(second.ok);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.so_path, first.so_path);
  EXPECT_LT(second.seconds, 0.1) << "a cached rebuild must take < 0.1 s";
  // Different flags: a different key.
  o.flags = {"-use_fast_math"};
  const CompileResult third = compile_kernel(src, o);
  EXPECT_NE(third.key, first.key);
}

TEST(Compile, ErrorsAreStructuredAndCached) {
  TempDir t;
  CompileOptions o;
  o.cache_dir = (t.p / "cache").string();
  const std::string src = write(t.p / "bad.cu", "extern \"C\" void f() {\n  int x = undefined_name;\n}\n");
  const CompileResult r = compile_kernel(src, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("bad.cu:2"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("undefined_name"), std::string::npos) << r.error;
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].line, 2);
  const CompileResult again = compile_kernel(src, o);
  EXPECT_FALSE(again.ok);
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(again.error, r.error);
}

TEST(Compile, MissingFileAndRefusedLibraries) {
  TempDir t;
  CompileOptions o;
  o.cache_dir = (t.p / "cache").string();
  EXPECT_NE(compile_kernel((t.p / "nope.cu").string(), o).error.find("not found"), std::string::npos);
  const std::string src = write(t.p / "lib.cu", std::string("// mskb-link: cublas\n") + kGood);
  const CompileResult r = compile_kernel(src, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("not allowed"), std::string::npos);
  o.flags = {"-Xcompiler=-fopenmp"};
  EXPECT_NE(compile_kernel(write(t.p / "f.cu", kGood), o).error.find("whitelist"), std::string::npos);
}

// The local headers a kernel reaches, transitively (next to the including file first, then
// kernels/include), each once, a cycle too: all of them are in the cache key, so editing a header
// that another header includes rebuilds (it was once left out: a stale object was served).
TEST(Compile, EveryLocalHeaderReachedIsInTheKey) {
  TempDir t;
  fs::create_directories(t.p / "sub");
  const std::string a = write(t.p / "a.cuh", "#pragma once\n#include \"sub/b.cuh\"\n#include \"mskb_vendor.cuh\"\n");
  const std::string b = write(t.p / "sub" / "b.cuh", "#pragma once\n#include \"../a.cuh\"\nint b_value = undefined_one;\n");
  const std::string src = write(t.p / "k.cu", "#include \"a.cuh\"\n#include \"a.cuh\"\n#include <cuda_runtime.h>\nextern \"C\" void f() {}\n");
  const std::string shared = (fs::path(source_root()) / "kernels" / "include" / "mskb_vendor.cuh").lexically_normal().string();
  EXPECT_EQ(local_include_files(src), (std::vector<std::string>{fs::path(a).lexically_normal().string(),
                                                                 fs::path(b).lexically_normal().string(), shared}));
  EXPECT_TRUE(local_include_files((t.p / "nope.cu").string()).empty());

  CompileOptions o;
  o.cache_dir = (t.p / "cache").string();
  const CompileResult first = compile_kernel(src, o);
  EXPECT_FALSE(first.ok);
  EXPECT_NE(first.error.find("undefined_one"), std::string::npos) << first.error;
  EXPECT_TRUE(compile_kernel(src, o).cache_hit);
  write(t.p / "sub" / "b.cuh", "#pragma once\n#include \"../a.cuh\"\nint b_value = undefined_two;\n");  // the header of a header
  const CompileResult second = compile_kernel(src, o);
  EXPECT_NE(second.key, first.key);
  EXPECT_FALSE(second.cache_hit);
  EXPECT_NE(second.error.find("undefined_two"), std::string::npos) << second.error;
}

// The architectures cudamaster's Compiler agent may choose by default: the kernels' GPU's own
// (the build's, or --arch's), with its 'a' variant from sm_90 on; never another GPU's.
TEST(BuildInfo, ArchFamilyIsTheKernelsGpusOwn) {
  EXPECT_EQ(arch_family("80"), (std::vector<std::string>{"80"}));
  EXPECT_EQ(arch_family("86"), (std::vector<std::string>{"86"}));
  EXPECT_EQ(arch_family("90"), (std::vector<std::string>{"90", "90a"}));
  EXPECT_EQ(arch_family("sm_90a"), (std::vector<std::string>{"90", "90a"}));
  EXPECT_EQ(arch_family("100f"), (std::vector<std::string>{"100", "100a"}));
  EXPECT_EQ(arch_family("120"), (std::vector<std::string>{"120", "120a"}));
  EXPECT_EQ(arch_family(), arch_family(default_arch()));
  EXPECT_EQ(arch_family().front(), default_arch().substr(3));
}
