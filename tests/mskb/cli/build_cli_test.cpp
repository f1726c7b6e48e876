// `mskb build` as a user meets it, with the real nvcc (no GPU): every compiler error and warning
// as path:line:col relative to the current directory (text and JSON), --nvcc-flag checked when
// parsed and recorded with its own cache entry, --resource-usage, missing_entry from the built
// object, and `mskb task validate` refusing exactly what `mskb build --task-file` refuses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/util/process.hpp"
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Outcome {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// A folder of its own for each test (the commands run there), with its own kernel cache.
struct Sandbox {
  fs::path dir;
  Sandbox() {
    dir = fs::temp_directory_path() / ("mskb-build-cli-test-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir / "kernels");
    ::setenv("MSKB_CACHE_DIR", (dir / "cache").c_str(), 1);
  }
  ~Sandbox() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& rel, const std::string& text) const {
    std::ofstream(dir / rel) << text;
    return rel;
  }
  Outcome mskb(std::vector<std::string> args) const {
    args.insert(args.begin(), MSKB_BIN);
    Outcome r;
    r.code = mskb::run_command(args, r.out, 600, dir.string());
    return r;
  }
  json read_json(const std::string& rel) const { return json::parse(mskb::read_text((dir / rel).string())); }
};

const char* kThree =
    "#include <cuda_runtime.h>\n"
    "__global__ void k(float* a, int n) {\n"
    "  int unused_var = 0;\n"
    "  a[0] = undefined_a;\n"
    "  a[1] = undefined_b + 1;\n"
    "  float x = undefined_c;\n"
    "}\n";

const char* kWarn =
    "#include <cuda_runtime.h>\n"
    "__global__ void k(float* a, int n) {\n"
    "  int unused_var = 0;\n"
    "  __shared__ float s[256];\n"
    "  s[threadIdx.x] = a[threadIdx.x]; __syncthreads(); if (threadIdx.x < n) a[threadIdx.x] = s[255 - threadIdx.x];\n"
    "}\n"
    "extern \"C\" void vector_add(const float* A, const float* B, float* C, int N) { (void)A; (void)B; k<<<1, 256>>>(C, N); }\n";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(MskbBuild, EveryErrorAndWarningWithPathLineColumn) {
  Sandbox s;
  s.write("kernels/three.cu", kThree);
  s.write("kernels/warn.cu", kWarn);
  const Outcome r = s.mskb({"build", "--kernel", "kernels/three.cu", "--kernel", "kernels/warn.cu", "--json", "out.json"});
  EXPECT_EQ(r.code, 1) << r.out;
  for (const char* line : {"kernels/three.cu:4:10: error: identifier \"undefined_a\" is undefined",
                           "kernels/three.cu:5:10: error: identifier \"undefined_b\" is undefined",
                           "kernels/three.cu:6:13: error: identifier \"undefined_c\" is undefined",
                           "kernels/warn.cu:3:7: warning: variable \"unused_var\" was declared but never referenced"})
    EXPECT_TRUE(contains(r.out, std::string("     ") + line + "\n")) << line << "\n" << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\] ok   kernels/warn\.cu \()"))) << "a build with warnings is ok:\n" << r.out;
  EXPECT_TRUE(contains(r.out, "1 built, 1 failed")) << r.out;
  const json j = s.read_json("out.json");
  ASSERT_EQ(j.size(), 2u);
  const json& three = j[0]["kernel"] == "kernels/three.cu" ? j[0] : j[1];
  const json& warn = j[0]["kernel"] == "kernels/three.cu" ? j[1] : j[0];
  EXPECT_FALSE(three["ok"].get<bool>());
  ASSERT_EQ(three["diagnostics"].size(), 3u) << three.dump(2);
  for (const json& d : three["diagnostics"]) {
    EXPECT_EQ(d["file"], "kernels/three.cu");
    EXPECT_EQ(d["severity"], "error");
    EXPECT_TRUE(d["column"].get<int>() > 0) << d.dump();
  }
  EXPECT_EQ(three["diagnostics"][2]["line"], 6);
  EXPECT_EQ(three["diagnostics"][2]["column"], 13);
  EXPECT_TRUE(warn["ok"].get<bool>());
  ASSERT_EQ(warn["diagnostics"].size(), 1u);
  EXPECT_EQ(warn["diagnostics"][0], json::parse(R"({"file": "kernels/warn.cu", "line": 3, "column": 7, "severity": "warning",
                                                  "message": "variable \"unused_var\" was declared but never referenced"})"));

  // From another folder the paths follow where the user stands; a cached build keeps its warning.
  fs::create_directories(s.dir / "elsewhere");
  std::string out;
  ASSERT_EQ(mskb::run_command({MSKB_BIN, "build", "--kernel", "../kernels/warn.cu"}, out, 600, (s.dir / "elsewhere").string()), 0) << out;
  EXPECT_TRUE(contains(out, ", cached)")) << out;
  EXPECT_TRUE(contains(out, "     ../kernels/warn.cu:3:7: warning: variable \"unused_var\"")) << out;
}

TEST(MskbBuild, NvccFlagsAreCheckedRecordedAndKeyed) {
  Sandbox s;
  s.write("kernels/warn.cu", kWarn);
  // Refused when parsed, on build, run and check alike: one line naming the flag, exit 2.
  const std::vector<std::vector<std::string>> refused = {
      {"build", "--kernel", "kernels/warn.cu", "--nvcc-flag=-I/etc"},
      {"build", "--kernel", "kernels/warn.cu", "--nvcc-flag=-include/etc/passwd"},
      {"build", "--kernel", "kernels/warn.cu", "--flag=-Xlinker=-rpath"},
      {"build", "--kernel", "kernels/warn.cu", "--nvcc-flag=-ccbin=/tmp"},
      {"build", "--kernel", "kernels/warn.cu", "--nvcc-flag=-Xcompiler=-fplugin=/tmp/x.so"},
      {"run", "--task", "vector_add", "--nvcc-flag=--output-directory=/tmp"},
      {"check", "--task", "vector_add", "--nvcc-flag=-lcuda"},
  };
  for (const auto& args : refused) {
    const Outcome r = s.mskb(args);
    const std::string flag = args.back().substr(args.back().find('=') + 1);
    EXPECT_EQ(r.code, 2) << args.back() << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_TRUE(contains(r.out, "'" + flag + "' is not on the whitelist")) << r.out;
  }
  ASSERT_EQ(s.mskb({"build", "--kernel", "kernels/warn.cu", "--json", "plain.json"}).code, 0);
  const Outcome flagged = s.mskb({"build", "--kernel", "kernels/warn.cu", "--nvcc-flag=-DTILE=32", "--nvcc-flag", "-lineinfo", "--json", "flagged.json"});
  ASSERT_EQ(flagged.code, 0) << flagged.out;
  const json plain = s.read_json("plain.json")[0], with = s.read_json("flagged.json")[0];
  EXPECT_EQ(plain["flags"], json::array());
  EXPECT_EQ(with["flags"], json::parse(R"(["-DTILE=32", "-lineinfo"])"));
  EXPECT_NE(with["key"], plain["key"]) << "other flags, another cache entry";
  EXPECT_FALSE(with["cache_hit"].get<bool>());
}

TEST(MskbBuild, ResourceUsageWithoutAGpu) {
  Sandbox s;
  s.write("kernels/warn.cu", kWarn);
  const Outcome r = s.mskb({"build", "--kernel", "kernels/warn.cu", "--resource-usage", "--json", "ru.json"});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(function\s+registers\s+shared \(B\)\s+stack \(B\)\s+spill st/ld \(B\))"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(k\(float\*, int\)\s+[1-9][0-9]*\s+1024\s+0\s+0/0)"))) << r.out;
  const json j = s.read_json("ru.json")[0];
  EXPECT_EQ(j["flags"], json::parse(R"(["-Xptxas=-v"])"));
  ASSERT_EQ(j["resource_usage"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["resource_usage"][0]["name"], "k(float*, int)");
  EXPECT_GT(j["resource_usage"][0]["registers"].get<int>(), 0);
  EXPECT_EQ(j["resource_usage"][0]["shared_bytes"], 1024);
  // Cached: the report comes from the kept log.
  const Outcome again = s.mskb({"build", "--kernel", "kernels/warn.cu", "--resource-usage"});
  EXPECT_TRUE(contains(again.out, ", cached)")) << again.out;
  EXPECT_TRUE(std::regex_search(again.out, std::regex(R"(k\(float\*, int\)\s+[1-9][0-9]*\s+1024)"))) << again.out;
}

TEST(MskbBuild, MissingEntryFailsTheBuild) {
  Sandbox s;
  const std::string no_entry = std::string(MSKB_TEST_SOURCE_DIR) + "/tests/mskb/gpu/kernels/no_entry.cu";
  const Outcome r = s.mskb({"build", "--kernel", no_entry, "--json", "ne.json"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "FAIL ")) << r.out;
  EXPECT_TRUE(contains(r.out, "missing_entry: no_entry.cu exports no entry point of any task")) << r.out;
  EXPECT_TRUE(contains(r.out, "(it exports: vectoradd; did you mean vector_add?)")) << r.out;
  EXPECT_TRUE(contains(r.out, "0 built, 1 failed")) << r.out;
  const json j = s.read_json("ne.json")[0];
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_TRUE(j["missing_entry"].get<bool>());
  // Compiled as C++ (no extern "C"): the mangled name is named with its parameters.
  s.write("kernels/cpp.cu", "#include <cuda_runtime.h>\nvoid vector_add(const float* A, const float* B, float* C, int N) {}\n");
  const Outcome cpp = s.mskb({"build", "--kernel", "kernels/cpp.cu"});
  EXPECT_EQ(cpp.code, 1) << cpp.out;
  EXPECT_TRUE(contains(cpp.out, "missing_entry: cpp.cu exports vector_add as a C++ function, vector_add(float const*, float const*, float*, int)"))
      << cpp.out;
  s.write("kernels/good.cu", kWarn);
  EXPECT_EQ(s.mskb({"build", "--kernel", "kernels/good.cu"}).code, 0);
}

// One acceptance of a task file: what validate refuses, build --task-file refuses with the same line.
TEST(MskbBuild, TaskValidateAndBuildApplyTheSameRules) {
  Sandbox s;
  const fs::path examples = fs::path(MSKB_TEST_SOURCE_DIR) / "examples";
  // A name that is a built-in task.
  fs::copy(examples / "bias_gelu", s.dir / "softmax", fs::copy_options::recursive);
  std::string toml = mskb::read_text((s.dir / "softmax/task.toml").string());
  toml = std::regex_replace(toml, std::regex(R"(\nname = "bias_gelu")"), "\nname = \"softmax\"");
  s.write("softmax/task.toml", toml);
  // A reference kernel that does not export the task's entry point.
  fs::copy(examples / "conv1d", s.dir / "conv1d", fs::copy_options::recursive);
  std::string orig = mskb::read_text((s.dir / "conv1d/orig.cu").string());
  orig = std::regex_replace(orig, std::regex(R"(extern "C" void conv1d\()"), "extern \"C\" void conv1d_orig(");
  s.write("conv1d/orig.cu", orig);
  for (const std::string file : {"softmax/task.toml", "conv1d/task.toml"}) {
    const Outcome validate = s.mskb({"task", "validate", file});
    const Outcome build = s.mskb({"build", "--task-file", file});
    EXPECT_EQ(validate.code, 2) << validate.out;
    EXPECT_EQ(build.code, 2) << build.out;
    EXPECT_EQ(std::count(validate.out.begin(), validate.out.end(), '\n'), 1) << validate.out;
    EXPECT_EQ(validate.out, build.out);
  }
  EXPECT_TRUE(contains(s.mskb({"task", "validate", "softmax/task.toml"}).out, "name 'softmax' is a built-in task"));
  EXPECT_TRUE(contains(s.mskb({"build", "--task-file", "conv1d/task.toml"}).out, "orig.cu does not export the fp32 entry point"));
}
