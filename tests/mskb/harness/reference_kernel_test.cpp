// A task file's reference kernel on the parent's side (mskb/harness/reference_kernel.hpp): built
// with nvcc and the kernel recipe (no GPU needed), checked to export the task's entry points, its
// problems one line naming the file, the line and the key, and its shared object carried by every
// request of the task (RunRequest::reference_library, both ways through the request JSON).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mskb/core/registry.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/protocol/request.hpp"
#include "mskb/harness/reference_kernel.hpp"
#include "mskb/harness/suite.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;

namespace mskb {
namespace {

class ReferenceKernelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::path(::testing::TempDir()) / ("mskb_reference_kernel_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "cache");
    ::setenv("MSKB_CACHE_DIR", (root_ / "cache").c_str(), 1);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void SetUp() override {
    if (!task_files_supported()) GTEST_SKIP() << "built without toml++";
  }
  // A copy of examples/conv1d under a fresh folder with orig.cu = `orig`; returns the task file.
  std::string conv1d_copy(const std::string& orig) {
    const fs::path dir = root_ / ("t" + std::to_string(counter_++));
    fs::create_directories(dir);
    const std::string example = source_root() + "/examples/conv1d";
    fs::copy_file(example + "/task.toml", dir / "task.toml");
    write(dir / "orig.cu", orig);
    fs::copy_file(example + "/baseline.cu", dir / "baseline.cu");
    return (dir / "task.toml").string();
  }
  static void write(const fs::path& p, const std::string& text) {
    std::ofstream f(p);
    f << text;
  }
  static int line_of(const std::string& path, const std::string& needle) {
    const std::string text = read_text(path);
    const auto at = text.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  }
  static std::string error_of(const std::string& task_file) {
    try {
      build_reference_kernel(load_task_file(task_file));
    } catch (const TaskFileError& e) {
      return e.what();
    }
    return "";
  }

  static fs::path root_;
  static int counter_;  // folders stay unique across the tests of the suite
};
fs::path ReferenceKernelTest::root_;
int ReferenceKernelTest::counter_ = 0;

TEST_F(ReferenceKernelTest, Conv1dExampleBuildsWithTheKernelRecipe) {
  const TaskFile tf = load_task_file(source_root() + "/examples/conv1d/task.toml");
  const std::string so = build_reference_kernel(tf);
  ASSERT_FALSE(so.empty());
  EXPECT_TRUE(fs::is_regular_file(so)) << so;
  EXPECT_EQ(so.rfind((root_ / "cache" / "kernels").string(), 0), 0u) << "the contenders' cache: " << so;
  const std::vector<std::string> syms = exported_symbols(so);
  EXPECT_NE(std::find(syms.begin(), syms.end(), "conv1d"), syms.end());
  // The same recipe as a contender's build of the same file: the same cached object.
  CompileOptions co;
  co.binary_policy = true;
  co.allow_libraries = true;
  const CompileResult direct = compile_kernel(tf.reference_kernel, co);
  ASSERT_TRUE(direct.ok) << direct.error;
  EXPECT_TRUE(direct.cache_hit);
  EXPECT_EQ(direct.so_path, so);
  EXPECT_EQ(build_reference_kernel(load_task_file(tf.path)), so);
  // Task files whose reference is FP64 host code have no reference kernel.
  for (const char* ex : {"histogram", "bias_gelu"})
    EXPECT_EQ(build_reference_kernel(load_task_file(source_root() + "/examples/" + ex + "/task.toml")), "") << ex;
}

TEST_F(ReferenceKernelTest, ProblemsAreOneLineNamingTheKey) {
  std::string path = conv1d_copy("this is not CUDA\n");
  std::string got = error_of(path);
  const std::string where = path + ":" + std::to_string(line_of(path, "reference_kernel =")) + ": reference_kernel: ";
  EXPECT_EQ(got.rfind(where + "orig.cu does not compile: ", 0), 0u) << got;
  EXPECT_NE(got.find("error"), std::string::npos) << got;
  EXPECT_EQ(got.find('\n'), std::string::npos) << got;

  path = conv1d_copy("extern \"C\" void conv1d_v2(const float*, const float*, float*, int, int) {}\n");
  EXPECT_EQ(error_of(path), path + ":" + std::to_string(line_of(path, "reference_kernel =")) +
                                ": reference_kernel: orig.cu does not export the fp32 entry point extern \"C\" void conv1d(const float* x, "
                                "const float* w, float* y, int N, int K)");

  // Screened like any kernel that is not a vendor library: no process creation.
  path = conv1d_copy("#include <cstdlib>\nextern \"C\" void conv1d(const float*, const float*, float*, int, int) { std::system(\"true\"); }\n");
  got = error_of(path);
  EXPECT_EQ(got.rfind(path + ":" + std::to_string(line_of(path, "reference_kernel =")) + ": reference_kernel: orig.cu is refused: ", 0), 0u)
      << got;
  EXPECT_NE(got.find("system"), std::string::npos) << got;
  EXPECT_EQ(got.find('\n'), std::string::npos) << got;
}

TEST_F(ReferenceKernelTest, RequestsOfTheTaskCarryItsLibrary) {
  const std::string path = conv1d_copy(read_text(source_root() + "/examples/conv1d/orig.cu"));
  const TaskFile& tf = register_task_file(path);
  const std::string so = reference_kernel_library(tf.spec);  // built on first use
  ASSERT_FALSE(so.empty());
  EXPECT_TRUE(fs::is_regular_file(so));
  EvalOptions opt;
  const RunRequest req = evaluation_request(tf.spec, Precision::fp32, "/k.so", opt);
  EXPECT_EQ(req.reference_library, so);
  EXPECT_EQ(req.task_file, tf.absolute_path);
  const nlohmann::json j = req;
  EXPECT_EQ(j.at("reference_library"), so);
  const RunRequest back = nlohmann::json::parse(j.dump()).get<RunRequest>();
  EXPECT_EQ(back.reference_library, so);
  EXPECT_EQ(back.task_file, tf.absolute_path);
  EXPECT_EQ(single_shape_request(tf.spec, Precision::fp32, "/k.so", tf.spec.paper[0], RunMode::evaluate).reference_library, so);
  // A built-in task: no reference kernel, and the key is absent from the request.
  const RunRequest builtin = evaluation_request(get_task("vector_add"), Precision::fp32, "/k.so", opt);
  EXPECT_EQ(builtin.reference_library, "");
  EXPECT_FALSE(nlohmann::json(builtin).contains("reference_library"));
  EXPECT_EQ(nlohmann::json::parse(nlohmann::json(builtin).dump()).get<RunRequest>().reference_library, "");
}

}  // namespace
}  // namespace mskb
