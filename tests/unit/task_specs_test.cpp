// Checks every registered task spec for the mistakes that make a benchmark untrustworthy:
// nondeterministic or constant inputs, a tolerance an all-zero or 5%-off output would pass, a
// tolerance the exactly-rounded reference would fail, overflowing complexity, bad sweeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

// The cheapest shape of a sweep by complexity.
Shape smallest(const std::vector<Shape>& v, const TaskSpec& t) {
  return *std::min_element(v.begin(), v.end(), [&](const Shape& a, const Shape& b) { return t.complexity(a) < t.complexity(b); });
}

double rounded_output(const Param& q, Precision p, double x) { return round_elem(q.elem, p, x); }

struct Case {
  const TaskSpec* spec;
  Precision p;
};

class EveryTask : public ::testing::TestWithParam<Case> {};

std::vector<Case> cases() {
  std::vector<Case> c;
  for (const auto& t : all_tasks())
    for (Precision p : {Precision::fp32, Precision::bf16}) c.push_back({&t, p});
  return c;
}

TEST_P(EveryTask, SweepsAndCostsAreSane) {
  const TaskSpec& t = *GetParam().spec;
  EXPECT_TRUE(validate(t).empty());
  for (const char* sweep : {"paper", "heldout", "large"})
    for (const Shape& s : t.sweep(sweep)) {
      EXPECT_GT(t.complexity(s), 0u) << sweep << " " << s.str();
      const Cost c = t.cost(s, GetParam().p);
      EXPECT_GT(c.bytes, 0) << s.str();
      EXPECT_GE(c.flops, 0) << s.str();
    }
  // The large sweep exists to fill the GPU: its largest shape costs more than the paper's largest.
  auto max_c = [&](const std::vector<Shape>& v) {
    uint64_t m = 0;
    for (const auto& s : v) m = std::max(m, t.complexity(s));
    return m;
  };
  EXPECT_GT(max_c(t.large), max_c(t.paper)) << t.name;
}

TEST_P(EveryTask, InputsAreDeterministicSeededAndNotConstant) {
  const TaskSpec& t = *GetParam().spec;
  const Precision p = GetParam().p;
  const Shape s = smallest(t.paper, t);
  const Args a1 = make_inputs(t, s, p, 1), a1b = make_inputs(t, s, p, 1), a2 = make_inputs(t, s, p, 2);
  bool any_diff = false;
  for (std::size_t i = 0; i < t.params.size(); ++i) {
    EXPECT_EQ(a1[i].data, a1b[i].data) << t.params[i].name;
    EXPECT_EQ(a1[i].value, a1b[i].value) << t.params[i].name;
    const Param& q = t.params[i];
    if (!q.is_buffer || q.role == Role::out || q.role == Role::accumulate) continue;
    any_diff |= a1[i].data != a2[i].data;
    if (q.elem != Elem::i32 && a1[i].data.size() > 8) {
      // The first 100k values are plenty to tell constant data from real data.
      const auto end = a1[i].data.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(a1[i].data.size(), 100000));
      std::set<double> distinct(a1[i].data.begin(), end);
      // Two values are allowed (triangle_attention's 0/1 mask); one is a constant input.
      EXPECT_GE(distinct.size(), 2u) << t.name << ": input '" << q.name << "' is constant";
    }
    for (double x : a1[i].data) ASSERT_TRUE(std::isfinite(x)) << q.name;
  }
  EXPECT_TRUE(any_diff) << t.name << ": seeds 1 and 2 draw the same inputs";
}

// The tolerance must separate right from wrong on the smallest paper and held-out shapes.
TEST_P(EveryTask, ToleranceSeparatesRightFromWrong) {
  const TaskSpec& t = *GetParam().spec;
  const Precision p = GetParam().p;
  // The smallest held-out shape always; the smallest paper shape too unless its CPU reference is
  // heavy (GEMM-like paper shapes start at ~1e9 operations; the GPU tests cover them).
  std::vector<Shape> shapes = {smallest(t.heldout, t)};
  if (t.complexity(smallest(t.paper, t)) <= uint64_t{1} << 26) shapes.push_back(smallest(t.paper, t));
  for (const Shape& s : shapes) {
    const Args in = make_inputs(t, s, p, 1);
    const Args ref = make_expected(t, s, p, in);
    const Tolerance tol = t.tolerance(s, p);
    CompareResult exact, zero, off;
    bool any_real_output = false;
    for (std::size_t i = 0; i < t.params.size(); ++i) {
      const Param& q = t.params[i];
      if (!q.is_buffer || q.role == Role::in) continue;
      const bool is_exact = q.elem == Elem::i32;
      std::vector<double> rounded(ref[i].data), zeros(ref[i].data.size(), 0.0), skewed(ref[i].data);
      for (auto& x : rounded) x = rounded_output(q, p, x);
      for (auto& x : skewed) x = x * 1.05 + (x == 0 ? 1.0 : 0.0);
      for (double x : ref[i].data) ASSERT_TRUE(std::isfinite(x)) << t.name << " reference is not finite at " << s.str();
      compare_buffer(q.name, rounded, {}, ref[i].data, tol, is_exact, exact);
      compare_buffer(q.name, zeros, {}, ref[i].data, tol, is_exact, zero);
      compare_buffer(q.name, skewed, {}, ref[i].data, tol, is_exact, off);
      any_real_output |= !is_exact;
    }
    EXPECT_TRUE(exact.ok) << t.name << " " << to_string(p) << " " << s.str()
                          << ": the reference rounded to the output type fails the tolerance (max err/tol " << exact.max_rel_err << ")";
    EXPECT_FALSE(zero.ok) << t.name << " " << to_string(p) << " " << s.str() << ": an all-zero output passes";
    if (any_real_output) {
      EXPECT_FALSE(off.ok) << t.name << " " << to_string(p) << " " << s.str() << ": an output 5% off passes";
    }
  }
}

TEST_P(EveryTask, SignatureNamesTheEntryPoint) {
  const TaskSpec& t = *GetParam().spec;
  const std::string sig = t.signature(GetParam().p);
  EXPECT_NE(sig.find("extern \"C\" void " + t.symbol(GetParam().p) + "("), std::string::npos) << sig;
}

std::string case_name(const ::testing::TestParamInfo<Case>& c) { return c.param.spec->name + "_" + to_string(c.param.p); }
INSTANTIATE_TEST_SUITE_P(Tasks, EveryTask, ::testing::ValuesIn(cases()), case_name);

TEST(Registry, UnknownTaskSuggestsTheClosestName) {
  try {
    get_task("vector_ad");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'vector_add'"), std::string::npos) << e.what();
  }
}

TEST(Registry, SortedByCategoryThenName) {
  const auto& t = all_tasks();
  ASSERT_FALSE(t.empty());
  for (const auto& s : t) EXPECT_EQ(s.folder, "tasks/" + s.category + "/" + s.name);
}

}  // namespace
