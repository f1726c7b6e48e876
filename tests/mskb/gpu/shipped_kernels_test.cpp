// Every task, both precisions: the baseline and the vendor contender pass every correctness
// check (paper + held-out shapes, 3 seeds, every element); every wrong/ kernel gets the
// disposition its header declares.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "mskb/core/registry.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/suite.hpp"

using namespace mskb;

namespace {

// The same plan as `mskb check --task T --contenders baseline,vendor,wrong`: every kernel of the
// task in its own runner, several at once on the GPU (MSKB_TEST_CHECKS_PER_GPU, default 6).
int checks_per_gpu() {
  const char* e = std::getenv("MSKB_TEST_CHECKS_PER_GPU");
  return e && std::atoi(e) > 0 ? std::atoi(e) : 6;
}

// Every kernel of the tasks this run selects (--gtest_filter), built before the first task, with
// every core (compile_all, as `mskb build`): each task's run then finds its kernels in the cache.
// Built task by task instead, the nvcc builds of one task at a time kept most cores idle (the test
// took 410 s on a fresh 16-core H200 machine, about half of it builds).
class PrebuildKernels : public ::testing::Environment {
 public:
  void SetUp() override {
    std::set<std::string> selected;
    const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
    for (int i = 0; i < unit.total_test_suite_count(); ++i) {
      const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
      for (int j = 0; j < suite.total_test_count(); ++j) {
        const ::testing::TestInfo& info = *suite.GetTestInfo(j);
        const std::string name = info.name();
        if (info.should_run() && name.find('/') != std::string::npos) selected.insert(name.substr(name.rfind('/') + 1));
      }
    }
    if (selected.empty()) return;
    SuitePlan plan;
    plan.tasks.assign(selected.begin(), selected.end());
    plan.contenders = {ContenderKind::baseline, ContenderKind::vendor, ContenderKind::wrong};
    plan.eval.check_only = true;
    std::vector<KernelFile> files;
    for (const SuiteGroup& g : suite_groups(plan)) files.insert(files.end(), g.kernels.begin(), g.kernels.end());
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<CompileResult> built = compile_all(files, plan.compile, 0);
    std::size_t ok = 0;
    for (const CompileResult& r : built) ok += r.ok ? 1 : 0;
    std::printf("prebuilt %zu kernel builds of %zu tasks (%zu built, the rest refused as some wrong/ kernels declare) in %.1f s\n",
                files.size(), selected.size(), ok, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
};
[[maybe_unused]] ::testing::Environment* const kPrebuild = ::testing::AddGlobalTestEnvironment(new PrebuildKernels);

class ShippedKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedKernels, BaselineAndVendorPassWrongKernelsAreRejected) {
  const TaskSpec& t = get_task(GetParam());
  SuitePlan plan;
  plan.tasks = {t.name};
  plan.contenders = {ContenderKind::baseline, ContenderKind::vendor, ContenderKind::wrong};
  plan.eval.check_only = true;
  plan.checks_per_gpu = checks_per_gpu();
  const SuiteReport report = run_suite(plan, [](const std::string&, bool) {});
  int shipped = 0, wrong = 0;
  for (const auto& run : report.runs) {
    const ContenderResult& r = run.result;
    if (run.expect.empty()) {
      ++shipped;
      EXPECT_EQ(r.disposition, mskb::Disposition::passed) << t.name << " " << r.precision << " " << r.contender << ": " << r.message;
      std::printf("%-22s %s %-9s %-16s %d/%d checks %.1f s\n", t.name.c_str(), r.precision.c_str(), r.contender.c_str(),
                  to_string(r.disposition).c_str(), r.checks_passed, r.checks_total, r.seconds);
    } else {
      ++wrong;
      EXPECT_EQ(to_string(r.disposition), run.expect) << r.kernel << " " << r.precision << ": " << r.message;
      std::printf("%-22s %s %-30s %-16s (expected %s) %s\n", t.name.c_str(), r.precision.c_str(), r.contender.c_str(),
                  to_string(r.disposition).c_str(), run.expect.c_str(), r.message.c_str());
    }
  }
  EXPECT_GE(shipped, 2) << "both baselines at least";
  for (const auto& w : wrong_kernels(t)) EXPECT_FALSE(w.expect.empty()) << w.path << " has no // mskb-expect: header";
  EXPECT_GE(wrong, static_cast<int>(wrong_kernels(t).size()));
}

std::vector<std::string> names() {
  std::vector<std::string> v;
  for (const auto& t : all_tasks()) v.push_back(t.name);
  return v;
}
std::string name_of(const ::testing::TestParamInfo<std::string>& i) { return i.param; }
INSTANTIATE_TEST_SUITE_P(Tasks, ShippedKernels, ::testing::ValuesIn(names()), name_of);

}  // namespace
