// The examples/ task files on a real GPU, through the mskb binary as a user runs them: `mskb run
// --task-file` times each example's baseline (bias_gelu, histogram, conv1d) and it passes every
// check; `mskb check --contenders wrong` gives every wrong/ kernel its declared disposition (conv1d's
// judged against its reference kernel, reference "kernel_fp32"); a broken reference kernel is a
// harness error naming it, never a disposition of the kernel under test.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/util/files.hpp"
#include "mskb/util/process.hpp"
#include "mskb/util/text.hpp"
#include "mskb_cli_json.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

fs::path work_dir() {
  static const fs::path d = mskb_gpu_test::fresh_work_dir("mskb_gpu_examples_test_");
  return d;
}

std::string example(const std::string& name) { return mskb::source_root() + "/examples/" + name + "/task.toml"; }

using mskb_gpu_test::Outcome;
Outcome mskb_cli(std::vector<std::string> args, const std::string& tag) {
  return mskb_gpu_test::run_mskb_json(std::move(args), work_dir(), tag);
}

std::vector<json> contenders(const Outcome& o) {
  std::vector<json> out;
  if (o.report.contains("contenders"))
    for (const json& c : o.report["contenders"]) out.push_back(c);
  return out;
}

class Examples : public ::testing::TestWithParam<std::string> {};

TEST_P(Examples, BaselineRunsAndPassesEveryCheck) {
  const std::string name = GetParam();
  const Outcome o = mskb_cli({"run", "--task-file", example(name)}, "run_" + name);
  EXPECT_EQ(o.rc, 0) << o.output;
  const std::vector<json> cs = contenders(o);
  ASSERT_FALSE(cs.empty()) << o.output;
  for (const json& c : cs) {
    EXPECT_EQ(c.value("task", ""), name);
    EXPECT_EQ(c.value("contender", ""), "baseline");
    const std::string d = c.value("disposition", "");
    EXPECT_TRUE(d == "passed" || d == "noisy") << d << ": " << c.value("message", "") << "\n" << o.output;  // noisy: right, timing noisy
    EXPECT_GT(c.value("checks_total", 0), 0);
    EXPECT_EQ(c.value("checks_passed", -1), c.value("checks_total", 0));
  }
  bool timed = false;
  for (const json& r : o.report.value("results", json::array())) timed = timed || r.value("task", "") == name;
  EXPECT_TRUE(timed) << "the baseline's paper shapes are timed";
}

TEST_P(Examples, EachWrongKernelGetsItsDeclaredDisposition) {
  const std::string name = GetParam();
  const Outcome o = mskb_cli({"check", "--task-file", example(name), "--contenders", "wrong"}, "wrong_" + name);
  EXPECT_EQ(o.rc, 0) << o.output;
  const std::vector<json> cs = contenders(o);
  ASSERT_FALSE(cs.empty()) << o.output;
  std::map<std::string, std::string> got;
  for (const json& c : cs) {
    ASSERT_TRUE(c["expect"].is_string()) << c.dump();
    EXPECT_EQ(c.value("disposition", ""), c["expect"].get<std::string>()) << c.value("contender", "") << ": " << c.value("message", "");
    EXPECT_EQ(c.value("message", "").find('\n'), std::string::npos);
    got[c.value("contender", "") + " " + c.value("precision", "")] = c.value("disposition", "");
    // What the kernel was compared with: conv1d's reference is its kernel, the others' FP64 code.
    if (c["failure"].is_object() && c["failure"].contains("reference")) {
      EXPECT_EQ(c["failure"]["reference"], name == "conv1d" ? "kernel_fp32" : "cpu_fp64") << c["failure"].dump();
    }
  }
  if (name == "histogram") {
    EXPECT_EQ(got["wrong/racy_increment fp32"], "wrong_result");
    EXPECT_EQ(got["wrong/racy_increment bf16"], "wrong_result");
    EXPECT_EQ(got["wrong/rounded_bin fp32"], "out_of_bounds");
    EXPECT_EQ(got["wrong/rounded_bin bf16"], "out_of_bounds");
  } else if (name == "conv1d") {
    EXPECT_EQ(got["wrong/drops_last_tap fp32"], "wrong_result");
    EXPECT_EQ(got["wrong/short_output fp32"], "unwritten_output");
    for (const json& c : cs) {
      ASSERT_TRUE(c["failure"].is_object()) << c.dump();
      EXPECT_EQ(c["failure"].value("reference", ""), "kernel_fp32") << "judged against orig.cu";
    }
  } else {
    EXPECT_EQ(got["wrong/tanh_gelu fp32"], "wrong_result");
  }
}

INSTANTIATE_TEST_SUITE_P(TaskFiles, Examples, ::testing::Values("bias_gelu", "histogram", "conv1d"));

// A copy of examples/conv1d whose orig.cu is `orig`.
std::string conv1d_with_reference(const std::string& tag, const std::string& orig) {
  const fs::path dir = work_dir() / tag;
  fs::create_directories(dir);
  const std::string src = mskb::source_root() + "/examples/conv1d";
  for (const char* f : {"task.toml", "baseline.cu"}) fs::copy_file(src + "/" + f, dir / f, fs::copy_options::overwrite_existing);
  std::ofstream(dir / "orig.cu") << orig;
  return (dir / "task.toml").string();
}

TEST(ReferenceKernel, ABrokenReferenceIsAHarnessErrorNamingIt) {
  const std::string head =
      "#include <cuda_runtime.h>\n"
      "__global__ void k(const float* x, const float* w, float* y, long long n, int K) {\n"
      "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n";
  const std::string tail =
      "}\n"
      "extern \"C\" void conv1d(const float* x, const float* w, float* y, int N, int K) {\n"
      "  const long long n = (long long)N - K + 1;\n"
      "  k<<<(unsigned)((n + 255) / 256), 256>>>(x, w, y, n, K);\n"
      "  cudaDeviceSynchronize();\n"
      "}\n";
  struct Case {
    std::string tag, body, message;
  };
  const std::vector<Case> cases = {
      {"nan", "  if (i < n) y[i] = __int_as_float(0x7fc00000);\n", "reference kernel orig.cu: computed "},
      {"unwritten", "  if (i + 1 < n) y[i] = 0.0f;\n", "reference kernel orig.cu: left 1 of "},
      {"past_end", "  if (i <= n) y[i] = 0.0f;\n", "reference kernel orig.cu: wrote outside buffer 'y'"},
      {"writes_input", "  if (i < n) { y[i] = 0.0f; if (i == 0) ((float*)x)[0] = 7.0f; }\n", "reference kernel orig.cu: modified read-only input 'x'"},
      {"illegal_access", "  if (i < n) y[i] = *(volatile float*)8;\n", "reference kernel orig.cu: launch_error: "},
  };
  for (const Case& c : cases) {
    const Outcome o = mskb_cli({"check", "--task-file", conv1d_with_reference("ref_" + c.tag, head + c.body + tail)}, "ref_" + c.tag);
    EXPECT_NE(o.rc, 0) << c.tag;
    const std::vector<json> cs = contenders(o);
    ASSERT_EQ(cs.size(), 1u) << c.tag << "\n" << o.output;
    EXPECT_EQ(cs[0].value("contender", ""), "baseline");
    EXPECT_EQ(cs[0].value("disposition", ""), "harness_error") << c.tag << ": " << cs[0].value("message", "");
    EXPECT_NE(cs[0].value("message", "").find(c.message), std::string::npos) << c.tag << ": " << cs[0].value("message", "");
    EXPECT_EQ(cs[0].value("message", "").find('\n'), std::string::npos) << cs[0].value("message", "");
  }
}

}  // namespace
