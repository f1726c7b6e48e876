// `mskb task new`'s templates (src/mskb_cli/task_templates.hpp): the files load as a task file and
// their reference computes the task's semantics.
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "mskb/core/instance.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/text.hpp"
#include "task_templates.hpp"

namespace fs = std::filesystem;

namespace mskb {
namespace {

using cli::new_task_files;

class TaskTemplatesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::path(::testing::TempDir()) / ("mskb_task_templates_test_" + std::to_string(::getpid()));
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
  static void write(const fs::path& p, const std::string& text) {
    std::ofstream f(p);
    f << text;
  }
  static fs::path root_;
};
fs::path TaskTemplatesTest::root_;

TEST_F(TaskTemplatesTest, NewTaskFilesLoadAndTheirReferenceComputesTheSemantics) {
  const fs::path dir = root_ / "new_task";
  fs::create_directories(dir);
  for (const auto& [name, text] : new_task_files("my_task")) write(dir / name, text);
  const TaskFile tf = load_task_file((dir / "task.toml").string());
  EXPECT_EQ(tf.spec.name, "my_task");
  EXPECT_EQ(tf.spec.signature(Precision::fp32), "extern \"C\" void my_task(const float* x, const float* bias, float* y, float scale, int N, int C)");
  EXPECT_EQ(tf.baseline.at(Precision::bf16), (dir / "baseline.cu").string());
  const std::string baseline = read_text((dir / "baseline.cu").string());
  EXPECT_NE(baseline.find(tf.spec.signature(Precision::fp32).substr(11)), std::string::npos);  // without `extern "C" `
  EXPECT_NE(baseline.find(tf.spec.signature(Precision::bf16).substr(11)), std::string::npos);
  const Shape sh = tf.spec.heldout[1];
  const Args in = make_inputs(tf.spec, sh, Precision::bf16, 3);
  const Args want = make_expected(tf.spec, sh, Precision::bf16, in);
  const auto c = static_cast<std::size_t>(sh["C"]);
  for (std::size_t i = 0; i < want[2].data.size(); ++i) EXPECT_DOUBLE_EQ(want[2].data[i], in[3].value * in[0].data[i] + in[1].data[i % c]);
  EXPECT_THROW(new_task_files("my-task"), std::invalid_argument);
}

}  // namespace
}  // namespace mskb
