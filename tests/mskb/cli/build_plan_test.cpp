// What `mskb build` builds and prints per kernel (src/mskb_cli/build_plan.hpp), without nvcc: a
// task's own kernels by default, its adversarial corpus only when --contenders asks for it, and
// the `[n/total]` result lines.
#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "build_plan.hpp"
#include "mskb/harness/suite_plan.hpp"
#include "mskb/core/registry.hpp"

namespace mskb {
namespace {

using cli::BuildList;
using cli::build_result_lines;
using cli::parse_build_contenders;
using cli::refused_as_declared;
using cli::select_build_files;

bool has(const BuildList& l, const std::string& needle) {
  return std::any_of(l.files.begin(), l.files.end(), [&](const KernelFile& k) { return k.path.find(needle) != std::string::npos; });
}

std::size_t count(const BuildList& l, const std::string& needle) {
  return static_cast<std::size_t>(
      std::count_if(l.files.begin(), l.files.end(), [&](const KernelFile& k) { return k.path.find(needle) != std::string::npos; }));
}

TEST(BuildPlan, ContenderListsParseLikeMskbCheck) {
  EXPECT_EQ(parse_build_contenders(cli::kDefaultBuildContenders),
            (std::vector<ContenderKind>{ContenderKind::baseline, ContenderKind::vendor, ContenderKind::wrong}));
  EXPECT_EQ(parse_build_contenders("adversarial"), std::vector<ContenderKind>{ContenderKind::adversarial});
  EXPECT_EQ(parse_build_contenders("vendor,baseline,vendor"), (std::vector<ContenderKind>{ContenderKind::vendor, ContenderKind::baseline}));
  EXPECT_TRUE(parse_build_contenders("none").empty());
  for (const std::string bad : {"candidate", "baseline,bogus", "", "all"}) {
    try {
      parse_build_contenders(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("baseline, vendor, wrong, adversarial"), std::string::npos) << e.what();
    }
  }
}

// `mskb build --task vector_add`: its baselines, vendor and wrong/ kernels, none of the corpus in
// tests/adversarial (13 files for vector_add), which comes only with --contenders adversarial.
TEST(BuildPlan, ATaskBuildsItsOwnKernelsAndTheAdversarialCorpusOnlyWhenAsked) {
  const TaskSpec& t = get_task("vector_add");
  const std::size_t corpus = adversarial_kernels(t).size(), wrong = wrong_kernels(t).size();
  ASSERT_GT(corpus, 0u) << "vector_add has an adversarial corpus";
  ASSERT_GT(wrong, 0u);

  const BuildList def = select_build_files({"vector_add"}, parse_build_contenders(cli::kDefaultBuildContenders), {});
  EXPECT_FALSE(has(def, "/tests/adversarial/"));
  EXPECT_TRUE(has(def, "/vector_add/baseline_fp32.cu"));
  EXPECT_TRUE(has(def, "/vector_add/baseline_bf16.cu"));
  EXPECT_TRUE(has(def, "/vector_add/vendor.cu"));
  EXPECT_EQ(count(def, "/vector_add/wrong/"), wrong);
  for (const KernelFile& k : def.files) EXPECT_NE(k.contender, "adversarial") << k.path;
  EXPECT_EQ(def.expect.size(), wrong) << "each wrong/ kernel's declared disposition";

  const BuildList with = select_build_files({"vector_add"}, parse_build_contenders("baseline,vendor,wrong,adversarial"), {});
  EXPECT_EQ(count(with, "/tests/adversarial/vector_add/"), corpus);
  EXPECT_EQ(with.files.size(), def.files.size() + corpus);
  for (const KernelFile& k : with.files)
    if (k.path.find("/tests/adversarial/") != std::string::npos) {
      EXPECT_EQ(k.contender, "adversarial");
      EXPECT_FALSE(k.trusted) << "the corpus is judged like user kernels: no vendor libraries";
      EXPECT_EQ(with.expect.count(k.path), 1u) << k.path;
    }

  const BuildList only = select_build_files({"vector_add"}, parse_build_contenders("adversarial"), {});
  EXPECT_EQ(only.files.size(), corpus);
  EXPECT_EQ(count(only, "/tests/adversarial/vector_add/"), corpus);

  const BuildList shipped = select_build_files({"vector_add"}, parse_build_contenders("baseline"), {});
  EXPECT_TRUE(has(shipped, "/vector_add/baseline_fp32.cu"));
  EXPECT_FALSE(has(shipped, "vendor"));
  EXPECT_FALSE(has(shipped, "/wrong/"));
}

// Several tasks and extra files: sorted and unique by path, the extra files kept as given.
TEST(BuildPlan, FilesAreSortedAndUniqueWithTheExtraFiles) {
  const std::vector<ContenderKind> kinds = parse_build_contenders("baseline,vendor");
  const BuildList one = select_build_files({"dot_product"}, kinds, {});
  const BuildList l = select_build_files({"vector_add", "dot_product", "vector_add"}, kinds, {{"/tmp/mine.cu", "kernel", false}});
  EXPECT_TRUE(std::is_sorted(l.files.begin(), l.files.end(), [](const KernelFile& a, const KernelFile& b) { return a.path < b.path; }));
  std::set<std::string> paths;
  for (const KernelFile& k : l.files) EXPECT_TRUE(paths.insert(k.path).second) << "twice: " << k.path;
  EXPECT_TRUE(has(l, "/tmp/mine.cu"));
  EXPECT_TRUE(has(l, "/dot_product/"));
  EXPECT_EQ(count(l, "/dot_product/"), one.files.size());
  const BuildList none = select_build_files({"vector_add"}, {}, {{"/tmp/mine.cu", "kernel", false}});
  ASSERT_EQ(none.files.size(), 1u) << "--contenders none: the --kernel files alone";
}

TEST(BuildPlan, ResultLinesCountAndSayWhatHappened) {
  CompileResult ok;
  ok.ok = true;
  ok.seconds = 4.14;
  EXPECT_EQ(build_result_lines(3, 28, "tasks/algebra/vector_add/baseline_fp32.cu", ok, false),
            std::vector<std::string>{"[ 3/28] ok   tasks/algebra/vector_add/baseline_fp32.cu (4.1 s)"});
  ok.cache_hit = true;
  ok.seconds = 0.02;
  EXPECT_EQ(build_result_lines(28, 28, "a.cu", ok, false), std::vector<std::string>{"[28/28] ok   a.cu (0.0 s, cached)"});
  EXPECT_EQ(build_result_lines(7, 9, "a.cu", ok, false).front().rfind("[7/9] ", 0), 0u);
  EXPECT_EQ(build_result_lines(5, 100, "a.cu", ok, false).front().rfind("[  5/100] ", 0), 0u);

  CompileResult bad;
  bad.error = "a.cu:3: error: expected ';'";
  bad.seconds = 1.0;
  EXPECT_EQ(build_result_lines(1, 2, "a.cu", bad, false),
            (std::vector<std::string>{"[1/2] FAIL a.cu (1.0 s)", "     a.cu:3: error: expected ';'"}));

  CompileResult refused;
  refused.refused_policy = true;
  refused.error = "rejected_static: imports fork: starts or controls processes";
  refused.policy_notes = {"a note"};
  EXPECT_EQ(build_result_lines(2, 2, "b.cu", refused, false),
            (std::vector<std::string>{"[2/2] REFUSED b.cu (0.0 s)", "     " + refused.error, "     note: a note"}));
  EXPECT_EQ(build_result_lines(2, 2, "b.cu", refused, true).front(), "[2/2] ok   b.cu (0.0 s, refused as declared)");
}

TEST(BuildPlan, RefusalsCountAsDeclaredOnlyWhenTheFileDeclaresThem) {
  BuildList l;
  l.files = {{"s.cu", "wrong", true}, {"c.cu", "adversarial", false}, {"p.cu", "wrong", true}, {"u.cu", "kernel", false}};
  l.expect = {{"s.cu", "rejected_static"}, {"c.cu", "compile_error"}, {"p.cu", "wrong_result"}};
  CompileResult refused;
  refused.refused_policy = true;
  CompileResult failed;  // not ok, not a policy refusal: a compile error
  CompileResult ok;
  ok.ok = true;
  EXPECT_TRUE(refused_as_declared(l, "s.cu", refused));
  EXPECT_FALSE(refused_as_declared(l, "s.cu", failed));
  EXPECT_TRUE(refused_as_declared(l, "c.cu", failed));
  EXPECT_FALSE(refused_as_declared(l, "c.cu", refused));
  EXPECT_FALSE(refused_as_declared(l, "p.cu", refused));
  EXPECT_FALSE(refused_as_declared(l, "u.cu", refused));
  EXPECT_FALSE(refused_as_declared(l, "s.cu", ok));
}

}  // namespace
}  // namespace mskb
