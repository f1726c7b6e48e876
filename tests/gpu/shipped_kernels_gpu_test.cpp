// Every task, both precisions: the baseline and the vendor contender pass every correctness
// check (paper + held-out shapes, 3 seeds, every element); every wrong/ kernel gets the
// disposition its header declares.
#include <gtest/gtest.h>

#include <filesystem>

#include "mskb/registry.hpp"
#include "mskb/suite.hpp"

using namespace mskb;

namespace {

ContenderResult check(const TaskSpec& t, Precision p, const KernelFile& k) {
  CompileOptions co;
  co.allow_libraries = true;
  const CompileResult b = compile_kernel(k.path, co);
  ContenderResult r;
  if (!b.ok) {
    r.disposition = disposition::compile_error;
    r.message = b.error;
    return r;
  }
  EvalOptions e;
  e.check_only = true;
  return evaluate(t, p, k.contender, k.path, b.so_path, e);
}

class ShippedKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedKernels, BaselineAndVendorPassWrongKernelsAreRejected) {
  const TaskSpec& t = get_task(GetParam());
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const auto shipped = shipped_kernels(t, p, {"baseline", "vendor"});
    EXPECT_FALSE(shipped.empty());
    for (const auto& k : shipped) {
      const ContenderResult r = check(t, p, k);
      EXPECT_EQ(r.disposition, "passed") << t.name << " " << to_string(p) << " " << k.contender << ": " << r.message;
      std::printf("%-22s %s %-9s %-16s %d/%d checks %.1f s\n", t.name.c_str(), to_string(p), k.contender.c_str(),
                  r.disposition.c_str(), r.checks_passed, r.checks_total, r.seconds);
    }
  }
  for (const auto& w : wrong_kernels(t)) {
    ASSERT_FALSE(w.expect.empty()) << w.path << " has no // mskb-expect: header";
    for (Precision p : w.precisions) {
      const ContenderResult r = check(t, p, {w.path, std::filesystem::path(w.path).stem().string(), true});
      EXPECT_EQ(r.disposition, w.expect) << w.path << " " << to_string(p) << ": " << r.message;
      std::printf("%-22s %s wrong/%-24s %-16s (expected %s) %s\n", t.name.c_str(), to_string(p),
                  std::filesystem::path(w.path).filename().string().c_str(), r.disposition.c_str(), w.expect.c_str(), r.message.c_str());
    }
  }
}

std::vector<std::string> names() {
  std::vector<std::string> v;
  for (const auto& t : all_tasks()) v.push_back(t.name);
  return v;
}
std::string name_of(const ::testing::TestParamInfo<std::string>& i) { return i.param; }
INSTANTIATE_TEST_SUITE_P(Tasks, ShippedKernels, ::testing::ValuesIn(names()), name_of);

}  // namespace
