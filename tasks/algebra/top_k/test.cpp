// Hand-checked cases for the top_k reference (descending values, ties to the lower index).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "mskb/core/instance.hpp"
#include "support/one_cpu.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args run(const std::vector<double>& in, int64_t k) {
  const TaskSpec& t = get_task("top_k");
  Args a(5);
  a[0].data.assign(static_cast<std::size_t>(k), 0.0);
  a[1].data.assign(static_cast<std::size_t>(k), 0.0);
  a[2].data.assign(in.begin(), in.end());
  a[3].value = static_cast<double>(in.size());
  a[4].value = static_cast<double>(k);
  t.reference({{"N", static_cast<int64_t>(in.size())}, {"k", k}}, Precision::fp32, a);
  return a;
}

TEST(TopK, TiesGoToTheLowerIndex) {
  const Args a = run({1, 3, 3, 2, 3}, 4);
  EXPECT_EQ(a[0].data, (std::vector<double>{3, 3, 3, 2}));
  EXPECT_EQ(a[1].data, (std::vector<double>{1, 2, 4, 3}));
}

TEST(TopK, NegativeValuesAndKEqualsN) {
  const Args a = run({-1, -0.5, -2, -0.5}, 4);
  EXPECT_EQ(a[0].data, (std::vector<double>{-0.5, -0.5, -1, -2}));
  EXPECT_EQ(a[1].data, (std::vector<double>{1, 3, 0, 2}));
}

TEST(TopK, SingleElement) {
  const Args a = run({7}, 1);
  EXPECT_EQ(a[0].data, (std::vector<double>{7}));
  EXPECT_EQ(a[1].data, (std::vector<double>{0}));
}

TEST(TopK, ChunkedReferenceMatchesAFullSort) {
  // Above 2^16 the reference keeps per-chunk heaps; compare with a full stable sort.
  const TaskSpec& t = get_task("top_k");
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const Shape s{{"N", 100003}, {"k", 1000}};
    const Args in = make_inputs(t, s, p, 1);
    const Args out = make_expected(t, s, p, in);
    const auto& v = in[2].data;
    std::vector<int64_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t i, int64_t j) { return v[static_cast<std::size_t>(i)] > v[static_cast<std::size_t>(j)]; });
    for (std::size_t r = 0; r < 1000; ++r) {
      ASSERT_EQ(out[1].data[r], static_cast<double>(idx[r])) << r;
      ASSERT_EQ(out[0].data[r], v[static_cast<std::size_t>(idx[r])]) << r;
    }
  }
}

TEST(TopK, GeneratedTopKContainsTies) {
  // The tie rule must matter on the paper shapes: equal values inside the top k.
  const TaskSpec& t = get_task("top_k");
  for (const Shape& s : {Shape{{"N", 256}, {"k", 32}}, Shape{{"N", 65536}, {"k", 128}}, Shape{{"N", 1 << 22}, {"k", 2048}}}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const Args out = make_expected(t, s, Precision::fp32, make_inputs(t, s, Precision::fp32, seed));
      const auto& vals = out[0].data;
      EXPECT_TRUE(std::adjacent_find(vals.begin(), vals.end()) != vals.end()) << s.str();
      EXPECT_TRUE(std::is_sorted(vals.rbegin(), vals.rend())) << s.str();
    }
  }
}

}  // namespace

TEST(TopKParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("top_k");
  for (const Shape& s : {Shape{{"N", (int64_t{1} << 20) + 3}, {"k", 100}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
