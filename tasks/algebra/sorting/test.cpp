// Hand-checked cases for the sorting reference and generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

#include "mskb/core/instance.hpp"
#include "support/one_cpu.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> sorted_by_reference(const std::vector<double>& in) {
  const TaskSpec& t = get_task("sorting");
  Args a(2);
  a[0].data.assign(in.begin(), in.end());
  a[1].value = static_cast<double>(in.size());
  t.reference({{"N", static_cast<int64_t>(in.size())}}, Precision::fp32, a);
  return {a[0].data.begin(), a[0].data.end()};
}

TEST(Sorting, NegativesDuplicatesAndZeros) {
  EXPECT_EQ(sorted_by_reference({3, -1, 0, 2.5, -1, 7, 0, -8}), (std::vector<double>{-8, -1, -1, 0, 0, 2.5, 3, 7}));
}

TEST(Sorting, TinyInputs) {
  EXPECT_EQ(sorted_by_reference({5}), (std::vector<double>{5}));
  EXPECT_EQ(sorted_by_reference({2, 1}), (std::vector<double>{1, 2}));
  EXPECT_EQ(sorted_by_reference({1, 3, 2}), (std::vector<double>{1, 2, 3}));
}

TEST(Sorting, ParallelMergeMatchesStdSort) {
  // Above 2^16 the reference sorts 32 chunks and merges them; an odd length exercises the ragged tail.
  const TaskSpec& t = get_task("sorting");
  const Shape s{{"N", 100003}};
  const Args in = make_inputs(t, s, Precision::fp32, 3);
  const Args out = make_expected(t, s, Precision::fp32, in);
  std::vector<double> want(in[0].data.begin(), in[0].data.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(out[0].data, want);
}

TEST(Sorting, GeneratorHasNegativesDuplicatesAndNoSpecialValues) {
  const TaskSpec& t = get_task("sorting");
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const Args in = make_inputs(t, {{"N", 4096}}, p, 1);
    const auto& v = in[0].data;
    const std::set<double> distinct(v.begin(), v.end());
    EXPECT_LT(distinct.size(), v.size());  // duplicates
    EXPECT_GT(distinct.size(), v.size() / 4);
    EXPECT_TRUE(std::any_of(v.begin(), v.end(), [](double x) { return x < 0; }));
    for (double x : v) {
      ASSERT_TRUE(std::isfinite(x));
      ASSERT_FALSE(x == 0.0 && std::signbit(x));                   // no -0
      ASSERT_TRUE(x == 0.0 || std::abs(x) >= 1.2e-38);  // no subnormals
    }
  }
}

}  // namespace

TEST(SortingParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("sorting");
  for (const Shape& s : {Shape{{"N", (int64_t{1} << 20) + 3}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
