// The integrity screen: each rule fires on what it is for, and not on comments, strings,
// constants, CUB block primitives or the default stream.
#include <gtest/gtest.h>

#include "cudamaster/loop/screen.hpp"
#include "support/agent_doubles.hpp"

using namespace cmtest;
using cudamaster::loop::screen_source;
using cudamaster::loop::ScreenOptions;

namespace {

// The rules that fire for `extra` added to a clean kernel file.
std::vector<std::string> rules_for(const std::string& extra, bool allow_libraries = false) {
  const auto r = screen_source(spmv_kernel("") + extra, ScreenOptions{allow_libraries});
  std::vector<std::string> out;
  for (const auto& v : r.violations) out.push_back(v.rule);
  return out;
}

bool fires(const std::string& extra, const std::string& rule, bool allow_libraries = false) {
  const auto r = rules_for(extra, allow_libraries);
  return std::find(r.begin(), r.end(), rule) != r.end();
}

}  // namespace

TEST(Screen, CleanKernelPasses) {
  const auto r = screen_source(spmv_kernel(""), {});
  EXPECT_TRUE(r.ok) << r.describe();
  EXPECT_EQ(r.describe(), "");
}

TEST(Screen, VendorLibraries) {
  EXPECT_TRUE(fires("#include <cusparse.h>\n", "vendor_library"));
  EXPECT_TRUE(fires("#include \"cublas_v2.h\"\n", "vendor_library"));
  EXPECT_TRUE(fires("#include <thrust/sort.h>\n", "vendor_library"));
  EXPECT_TRUE(fires("void f(cusparseHandle_t h) { cusparseSpMV(h); }\n", "vendor_library"));
  EXPECT_TRUE(fires("void f() { cub::DeviceReduce::Sum(nullptr, n, a, b, 10); }\n", "vendor_library"));
  EXPECT_TRUE(fires("void f() { thrust::sort(a, b); }\n", "vendor_library"));
  EXPECT_TRUE(fires("// mskb-link: cusparse\n", "vendor_library"));
  // Allowed when the run allows libraries; CUB block primitives are always fine.
  EXPECT_FALSE(fires("#include <cusparse.h>\nvoid f(cusparseHandle_t h) { cusparseSpMV(h); }\n// mskb-link: cusparse\n",
                     "vendor_library", /*allow_libraries=*/true));
  EXPECT_TRUE(rules_for("#include <cub/block/block_reduce.cuh>\n__global__ void g() { using R = cub::BlockReduce<float, 256>; }\n").empty());
}

TEST(Screen, StreamsAndThreads) {
  EXPECT_TRUE(fires("void f() { cudaStream_t s; cudaStreamCreate(&s); }\n", "extra_stream"));
  EXPECT_TRUE(fires("void f() { cudaStream_t s; cudaStreamCreateWithFlags(&s, 1); }\n", "extra_stream"));
  EXPECT_TRUE(fires("void f(cudaStream_t s) { k<<<1, 32, 0, s>>>(0, 0, 0, 0, 0, 0); }\n", "extra_stream"));
  EXPECT_TRUE(fires("void f() { k<<<1, 32, 0, cudaStreamPerThread>>>(0, 0, 0, 0, 0, 0); }\n", "extra_stream"));
  EXPECT_TRUE(fires("void f() { cudaLaunchHostFunc(0, cb, nullptr); }\n", "extra_stream"));
  EXPECT_TRUE(rules_for("void f() { k<<<1, 32, 1024, 0>>>(0, 0, 0, 0, 0, 0); k<<<dim3(4), 32, smem>>>(0, 0, 0, 0, 0, 0); }\n").empty());
  EXPECT_TRUE(fires("#include <thread>\n", "host_thread"));
  EXPECT_TRUE(fires("void f() { std::thread t([] {}); t.join(); }\n", "host_thread"));
  EXPECT_TRUE(fires("void f() { auto r = std::async([] { return 1; }); }\n", "host_thread"));
  EXPECT_TRUE(fires("#pragma omp parallel for\n", "host_thread"));
}

TEST(Screen, FilesEnvironmentNetwork) {
  EXPECT_TRUE(fires("void f() { FILE* fp = fopen(\"/tmp/x\", \"w\"); }\n", "file_access"));
  EXPECT_TRUE(fires("#include <fstream>\n", "file_access"));
  EXPECT_TRUE(fires("void f() { std::ofstream o(\"x\"); }\n", "file_access"));
  EXPECT_TRUE(fires("void f() { int fd = open(\"x\", 0); }\n", "file_access"));
  EXPECT_TRUE(fires("void f() { const char* e = getenv(\"HOME\"); }\n", "env_access"));
  EXPECT_TRUE(fires("void f() { system(\"ls\"); }\n", "env_access"));
  EXPECT_TRUE(fires("#include <sys/socket.h>\n", "network_access"));
  EXPECT_TRUE(fires("void f() { int s = socket(2, 1, 0); }\n", "network_access"));
  EXPECT_TRUE(fires("void f() { void* h = dlopen(\"libcublas.so\", 1); }\n", "network_access"));
  // Member functions and std::bind are not the C calls.
  EXPECT_TRUE(rules_for("void f(File& x) { x.open(1); p->open(2); auto g = std::bind(f, x); }\n").empty());
}

TEST(Screen, StateKeptAcrossCalls) {
  EXPECT_TRUE(fires("float* g_cache = nullptr;\n", "kept_state"));
  EXPECT_TRUE(fires("static int calls;\n", "kept_state"));
  EXPECT_TRUE(fires("__device__ float g_sum;\n", "kept_state"));
  EXPECT_TRUE(fires("__managed__ int m;\n", "kept_state"));
  EXPECT_TRUE(fires("void f() { static float* buf = nullptr; if (!buf) cudaMalloc(&buf, 4); }\n", "kept_state"));
  EXPECT_TRUE(fires("void f() { thread_local int n = 0; }\n", "kept_state"));
  // Constants, type definitions, functions, statics of constants and casts are fine.
  const std::string fine =
      "constexpr int kWarps = 8;\n"
      "static const float kScale = 0.5f;\n"
      "__constant__ float c_table[16];\n"
      "namespace { constexpr int kBlock = 256; }\n"
      "struct Pair { float a; int b; };\n"
      "typedef float real;\n"
      "template <int N> __device__ float sq(float v) { return v * v; }\n"
      "static void helper(int n);\n"
      "void g() { static const int k = 3; static constexpr int m = 4; int x = static_cast<int>(2.5f); (void)x; }\n";
  const auto r = screen_source(spmv_kernel("") + fine, {});
  EXPECT_TRUE(r.ok) << r.describe();
}

TEST(Screen, CommentsAndStringsNeverTrigger) {
  const std::string text =
      "// cusparseSpMV would be faster, and cudaStreamCreate too; std::thread; fopen; getenv\n"
      "/* static float* cache = nullptr; */\n"
      "void f() { const char* msg = \"cublasSgemm fopen getenv socket(\"; (void)msg; }\n";
  const auto r = screen_source(spmv_kernel("") + text, {});
  EXPECT_TRUE(r.ok) << r.describe();
}

TEST(Screen, DescribeNamesLineAndRule) {
  const std::string src = spmv_kernel("") + "float* g_cache = nullptr;\n";
  const auto r = screen_source(src, {});
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].line, 15);
  EXPECT_EQ(r.violations[0].excerpt, "float* g_cache = nullptr;");
  EXPECT_NE(r.describe().find("rejected_static: line 15 (kept_state): global variable `g_cache`"), std::string::npos) << r.describe();
}
