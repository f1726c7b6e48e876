// fp16 and int64 task files on a real GPU, through the mskb binary as a user runs them: `mskb check
// --task-file` passes a correct kernel of a tiny fp16 task (fp16 in, fp32 and fp16 out) and of a
// tiny int64 task (int64 in and out, an int64 scalar beyond 2^32), and gives their wrong kernels
// wrong_result (a forgotten halving; int32 arithmetic) and unwritten_output (the last half / int64
// left as the 0xFF poison); examples/row_argmax's baseline runs and passes every check, and each of
// its wrong/ kernels gets its declared disposition.
#include <gtest/gtest.h>

#include <unistd.h>

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
#include "support/typed_task_files.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

fs::path work_dir() {
  static const fs::path d = mskb_gpu_test::fresh_work_dir("mskb_gpu_task_file_types_test_");
  return d;
}

using mskb_gpu_test::Outcome;
Outcome mskb_cli(std::vector<std::string> args, const std::string& tag) {
  return mskb_gpu_test::run_mskb_json(std::move(args), work_dir(), tag);
}

// contender name -> disposition (and the message, for failures).
std::map<std::string, std::string> dispositions(const Outcome& o, std::map<std::string, std::string>* messages = nullptr) {
  std::map<std::string, std::string> out;
  if (o.report.contains("contenders"))
    for (const json& c : o.report["contenders"]) {
      out[c.value("contender", "")] = c.value("disposition", "");
      if (messages) (*messages)[c.value("contender", "")] = c.value("message", "");
    }
  return out;
}

// A folder with task.toml, ref.cpp and the kernels; returns the task file's path.
std::string write_task(const std::string& tag, const std::string& toml, const std::string& ref,
                       const std::map<std::string, std::string>& kernels) {
  const fs::path dir = work_dir() / tag;
  fs::create_directories(dir);
  std::ofstream(dir / "task.toml") << toml;
  std::ofstream(dir / "ref.cpp") << ref;
  for (const auto& [name, source] : kernels) std::ofstream(dir / (name + ".cu")) << source;
  return (dir / "task.toml").string();
}

void expect_dispositions(const std::string& task, const std::string& tag, const std::map<std::string, std::string>& expected) {
  std::vector<std::string> args = {"check", "--task-file", task};
  for (const auto& [name, d] : expected) args.insert(args.end(), {"--kernel", (fs::path(task).parent_path() / (name + ".cu")).string()});
  const Outcome o = mskb_cli(args, tag);
  std::map<std::string, std::string> messages;
  const auto got = dispositions(o, &messages);
  ASSERT_EQ(got.size(), expected.size()) << o.output;
  for (const auto& [name, d] : expected) {
    const std::string contender = name;  // a user kernel is named after its file
    ASSERT_TRUE(got.count(contender)) << contender << "\n" << o.output;
    EXPECT_EQ(got.at(contender), d) << contender << ": " << messages[contender] << "\n" << o.output;
  }
}

// A kernel of half_scale: h[i] = `h_value` for i < `h_limit` (y always right).
std::string half_kernel(const std::string& h_value, const std::string& h_limit) {
  return R"CU(#include <cuda_fp16.h>
#include <cuda_runtime.h>
__global__ void k(const __half* x, const __half* w, float* y, __half* h, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= N) return;
  const float xf = __half2float(x[i]);
  y[i] = 3.0f * xf + __half2float(w[i]);
  if (i < )CU" + h_limit + R"CU() h[i] = )CU" + h_value + R"CU(;
}
extern "C" void half_scale(const __half* x, const __half* w, float* y, __half* h, int N) {
  k<<<(N + 255) / 256, 256>>>(x, w, y, h, N);
  cudaDeviceSynchronize();
}
)CU";
}

TEST(TaskFileTypes, Fp16TaskJudgesRightAndWrongKernels) {
  const std::string task = write_task("half", mskb_test::kHalfScaleToml, mskb_test::kHalfScaleRef,
                                      {{"good", half_kernel("__float2half_rn(0.5f * xf)", "N")},
                                       {"forgot_half", half_kernel("x[i]", "N")},
                                       {"last_half_unwritten", half_kernel("__float2half_rn(0.5f * xf)", "N - 1")}});
  expect_dispositions(task, "half", {{"good", "passed"}, {"forgot_half", "wrong_result"}, {"last_half_unwritten", "unwritten_output"}});
}

// A kernel of offsets64: out[i] = `value` for i < `limit`.
std::string int64_kernel(const std::string& value, const std::string& limit) {
  return R"CU(#include <cuda_runtime.h>
__global__ void k(const long long* idx, long long* out, long long base, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < )CU" + limit + R"CU() out[i] = )CU" + value + R"CU(;
}
extern "C" void offsets64(const long long* idx, long long* out, long long base, int N) {
  k<<<(N + 255) / 256, 256>>>(idx, out, base, N);
  cudaDeviceSynchronize();
}
)CU";
}

TEST(TaskFileTypes, Int64TaskJudgesRightAndWrongKernels) {
  const std::string task = write_task("int64", mskb_test::kOffsets64Toml, mskb_test::kOffsets64Ref,
                                      {{"good", int64_kernel("3 * idx[i] + base", "N")},
                                       {"int32_math", int64_kernel("static_cast<int>(3 * idx[i] + base)", "N")},  // truncated to 32 bits
                                       {"last_unwritten", int64_kernel("3 * idx[i] + base", "N - 1")}});
  expect_dispositions(task, "int64", {{"good", "passed"}, {"int32_math", "wrong_result"}, {"last_unwritten", "unwritten_output"}});
}

TEST(TaskFileTypes, RowArgmaxExampleBaselineAndWrongKernels) {
  const std::string task = mskb::source_root() + "/examples/row_argmax/task.toml";
  const Outcome run = mskb_cli({"run", "--task-file", task}, "row_argmax_run");
  EXPECT_EQ(run.rc, 0) << run.output;
  std::map<std::string, std::string> messages;
  const auto base = dispositions(run, &messages);
  ASSERT_EQ(base.count("baseline"), 1u) << run.output;
  EXPECT_TRUE(base.at("baseline") == "passed" || base.at("baseline") == "noisy") << messages["baseline"] << "\n" << run.output;

  const Outcome wrong = mskb_cli({"check", "--task-file", task, "--contenders", "wrong"}, "row_argmax_wrong");
  EXPECT_EQ(wrong.rc, 0) << wrong.output;
  const auto got = dispositions(wrong, &messages);
  EXPECT_EQ(got.size(), 3u) << wrong.output;
  EXPECT_EQ(got.count("wrong/last_maximum") ? got.at("wrong/last_maximum") : "", "wrong_result") << messages["wrong/last_maximum"];
  EXPECT_EQ(got.count("wrong/skips_first_column") ? got.at("wrong/skips_first_column") : "", "wrong_result")
      << messages["wrong/skips_first_column"];
  EXPECT_EQ(got.count("wrong/index_one_short") ? got.at("wrong/index_one_short") : "", "unwritten_output")
      << messages["wrong/index_one_short"];
}

}  // namespace
