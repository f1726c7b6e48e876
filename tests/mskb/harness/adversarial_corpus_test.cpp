// The adversarial corpus (tests/adversarial/<task>/*.cu): every file declares what the
// harness must make of it, in headers the suite reads (`mskb check --contenders adversarial`):
//   // mskb-expect: <disposition>        the one the run must get
//   // mskb-precision: fp32 | bf16 | fp32 bf16
//   // mskb-class: <1-8> <name>          the class it attacks (docs/adversarial.md)
//   // mskb-gate: memcheck | timing      optional: judged only under --memcheck / only by mskb run
// This checks those headers against the task registry (no GPU): an existing task, a known
// disposition, precisions the task has, whose entry points the file really exports, a class 1-8,
// a known gate; and that the corpus is large enough and covers every class.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "mskb/harness/compiler.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/suite.hpp"

using namespace mskb;
namespace fs = std::filesystem;

namespace {

const std::set<std::string> kDispositions = {
    "passed",        "noisy",           "compile_error",  "missing_entry", "launch_error", "out_of_memory",
    "crashed",       "timeout",         "wrong_result",   "unwritten_output", "input_mutated", "out_of_bounds",
    "unsynced",      "too_fast",        "rejected_static", "sanitizer_error", "harness_error",
    "sandbox_violation", "sandbox_setup_failed"};

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path corpus_root() { return fs::path(source_root()) / "tests" / "adversarial"; }

struct Entry {
  const TaskSpec* task;
  WrongKernel kernel;
};

std::vector<Entry> corpus() {
  std::vector<Entry> out;
  for (const TaskSpec& t : all_tasks())
    for (auto& k : adversarial_kernels(t)) out.push_back({&t, k});
  return out;
}

}  // namespace

TEST(AdversarialCorpus, EveryFolderIsATaskAndEveryFileACudaSource) {
  ASSERT_TRUE(fs::is_directory(corpus_root())) << corpus_root();
  for (const auto& dir : fs::directory_iterator(corpus_root())) {
    if (!dir.is_directory()) continue;
    const std::string task = dir.path().filename().string();
    EXPECT_NE(find_task(task), nullptr) << "tests/adversarial/" << task << ": no such task";
    for (const auto& f : fs::directory_iterator(dir.path()))
      EXPECT_EQ(f.path().extension(), ".cu") << f.path() << ": the corpus holds only .cu kernels (others are not judged)";
  }
}

TEST(AdversarialCorpus, HeadersAreValid) {
  static const std::set<std::string> gates = {"", "memcheck", "timing"};
  for (const Entry& e : corpus()) {
    const WrongKernel& k = e.kernel;
    const std::string name = fs::relative(k.path, source_root()).string();
    const std::string src = read_all(k.path);
    EXPECT_TRUE(kDispositions.count(k.expect)) << name << ": mskb-expect '" << k.expect << "' is not a disposition";
    EXPECT_NE(k.expect, "passed") << name << ": an adversarial kernel the harness accepts is not adversarial";
    EXPECT_TRUE(std::regex_search(src, std::regex(R"(//\s*mskb-precision:\s*(fp32|bf16))"))) << name << ": no mskb-precision header";
    EXPECT_FALSE(k.precisions.empty()) << name;
    EXPECT_GE(k.klass, 1) << name << ": mskb-class must be 1-8";
    EXPECT_LE(k.klass, 8) << name << ": mskb-class must be 1-8";
    EXPECT_TRUE(gates.count(k.gate)) << name << ": unknown mskb-gate '" << k.gate << "' (memcheck or timing)";
    if (k.gate == "memcheck") {
      EXPECT_EQ(k.expect, "sanitizer_error") << name << ": a memcheck-gated kernel is caught by the sanitizer";
    }
    if (k.gate == "timing") {
      EXPECT_NE(k.expect, "rejected_static") << name << ": a static rejection needs no timing";
    }
    EXPECT_NE(src.find("Trick:"), std::string::npos) << name << ": say the trick (a `// Trick:` comment)";
    EXPECT_NE(src.find("Why reject"), std::string::npos) << name << ": say why the harness must reject it";
    for (Precision p : k.precisions) {
      // The task has this precision (a shipped baseline) and the file exports its entry point.
      EXPECT_TRUE(fs::exists(fs::path(source_root()) / e.task->folder / (std::string("baseline_") + to_string(p) + ".cu")))
          << name << ": " << e.task->name << " has no " << to_string(p) << " variant";
      const std::string sym = e.task->symbol(p);
      const std::regex entry("extern\\s+\"C\"[^;{]*\\b" + sym + "\\s*\\(");
      EXPECT_TRUE(std::regex_search(src, entry)) << name << ": declares " << to_string(p) << " but has no extern \"C\" " << sym << "(";
    }
  }
}

TEST(AdversarialCorpus, LargeEnoughAndCoversEveryClass) {
  const std::vector<Entry> c = corpus();
  EXPECT_GE(c.size(), 30u) << "the corpus covers every class with at least 30 kernels";
  std::map<int, int> per_class;
  std::set<std::string> dispositions;
  for (const Entry& e : c) {
    ++per_class[e.kernel.klass];
    dispositions.insert(e.kernel.expect);
  }
  for (int k = 1; k <= 8; ++k) EXPECT_GE(per_class[k], 3) << "class " << k << " has fewer than 3 kernels";
  // Not only static rejections: the dynamic defences are exercised too.
  for (const char* d : {"rejected_static", "wrong_result", "too_fast", "sanitizer_error"})
    EXPECT_TRUE(dispositions.count(d)) << "no kernel declares " << d;
}

TEST(AdversarialCorpus, DiscoveryReadsGateAndClass) {
  // declared_kernels is the reader behind wrong_kernels and adversarial_kernels.
  const fs::path dir = fs::temp_directory_path() / ("mskb_adv_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "b.cu") << "// mskb-expect: sanitizer_error\n// mskb-precision: fp32 bf16\n// mskb-class: 7 x\n// mskb-gate: memcheck\n";
    std::ofstream(dir / "a.cu") << "// mskb-expect: wrong_result\n// mskb-class: 3 state\n";
    std::ofstream(dir / "notes.txt") << "// mskb-expect: passed\n";
  }
  const auto k = declared_kernels(dir.string());
  fs::remove_all(dir);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(fs::path(k[0].path).filename(), "a.cu");
  EXPECT_EQ(k[0].expect, "wrong_result");
  EXPECT_EQ(k[0].klass, 3);
  EXPECT_EQ(k[0].gate, "");
  EXPECT_EQ(k[0].precisions, std::vector<Precision>{Precision::fp32});  // default
  EXPECT_EQ(k[1].gate, "memcheck");
  EXPECT_EQ(k[1].klass, 7);
  EXPECT_EQ(k[1].precisions, (std::vector<Precision>{Precision::fp32, Precision::bf16}));
  EXPECT_TRUE(declared_kernels((dir / "missing").string()).empty());
}
