// Checks every registered task spec for the mistakes that make a benchmark untrustworthy:
// nondeterministic or constant inputs, a tolerance an all-zero or 5%-off output would pass, a
// tolerance the exactly-rounded reference would fail, overflowing complexity, bad sweeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <utility>

#include "mskb/core/instance.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/util/files.hpp"

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

// The verifier generates into the buffers of the instance it dropped (their allocations kept):
// whatever those held, the inputs are the ones a fresh generation draws. HostData's resize writes
// nothing, so this also holds every generator to writing each element it sizes: one that left an
// element to a zero-initializing resize shows the old storage's -777.25 there.
TEST_P(EveryTask, InputsDoNotDependOnReusedStorage) {
  const TaskSpec& t = *GetParam().spec;
  const Precision p = GetParam().p;
  const Shape s = smallest(t.paper, t);
  const Args fresh = make_inputs(t, s, p, 1);
  // Storage from another shape (other sizes) and from another seed of the same shape (the same
  // sizes: the outputs are kept, not cleared), scribbled over.
  for (const bool same_shape : {false, true}) {
    const Shape from = same_shape ? s : smallest(t.heldout, t);
    Args used = make_inputs(t, from, p, 7);
    for (Arg& a : used) {
      a.value = 12345.0;
      for (double& x : a.data) x = -777.25;
      if (!same_shape) a.data.resize(a.data.size() + 3, 99.0);
    }
    const Args reused = make_inputs(t, s, p, 1, nullptr, std::move(used));
    ASSERT_EQ(reused.size(), fresh.size());
    for (std::size_t i = 0; i < t.params.size(); ++i) {
      EXPECT_EQ(reused[i].data, fresh[i].data) << t.name << ": " << t.params[i].name << " (storage of " << from.str() << ")";
      EXPECT_EQ(reused[i].value, fresh[i].value) << t.name << ": " << t.params[i].name;
    }
  }
}

// Outputs::sized (for a GPU reference, which writes every output): the same inputs and output
// sizes as a fresh generation, and the reused output buffers not written (no pass over what can
// be gigabytes: their memory still holds the old storage's values); Outputs::zeroed zeroes them.
TEST_P(EveryTask, SizedOutputsKeepTheInputsAndTheSizes) {
  const TaskSpec& t = *GetParam().spec;
  const Precision p = GetParam().p;
  const Shape s = smallest(t.paper, t);
  const Args fresh = make_inputs(t, s, p, 1);
  for (const Outputs mode : {Outputs::sized, Outputs::zeroed}) {
    Args used = make_inputs(t, s, p, 7);
    for (Arg& a : used)
      for (double& x : a.data) x = -777.25;
    const Args got = make_inputs(t, s, p, 1, nullptr, std::move(used), mode);
    ASSERT_EQ(got.size(), fresh.size());
    for (std::size_t i = 0; i < t.params.size(); ++i) {
      const Param& q = t.params[i];
      const bool output = q.is_buffer && (q.role == Role::out || q.role == Role::accumulate);
      ASSERT_EQ(got[i].data.size(), fresh[i].data.size()) << t.name << ": " << q.name;
      EXPECT_EQ(got[i].value, fresh[i].value) << t.name << ": " << q.name;
      if (!output) {
        EXPECT_EQ(got[i].data, fresh[i].data) << t.name << ": input '" << q.name << "'";
      } else if (mode == Outputs::zeroed) {
        EXPECT_EQ(got[i].data, std::vector<double>(fresh[i].data.size(), 0.0)) << t.name << ": output '" << q.name << "'";
      } else {
        EXPECT_EQ(got[i].data, std::vector<double>(fresh[i].data.size(), -777.25)) << t.name << ": output '" << q.name << "' was written";
      }
    }
  }
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
      const HostData& want = ref[i].data;
      std::vector<double> rounded(want.begin(), want.end()), zeros(want.size(), 0.0), skewed(want.begin(), want.end());
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

// Random shapes (docs/harness.md, the threat model): deterministic in (task, seed), never a declared shape, no more
// work than the largest declared shape, and the generator and FP64 reference accept them.
TEST_P(EveryTask, RandomShapesAreValid) {
  const TaskSpec& t = *GetParam().spec;
  const Precision p = GetParam().p;
  if (!t.random_shapes_ok) {
    EXPECT_TRUE(random_shapes(t, 1, 2).empty());
    return;
  }
  std::vector<Shape> declared = t.paper;
  declared.insert(declared.end(), t.heldout.begin(), t.heldout.end());
  uint64_t max_c = 0;
  for (const Shape& s : declared) max_c = std::max(max_c, t.complexity(s));
  // The dimensions every declared shape has: a random shape differs from each declared one in them.
  std::vector<std::string> sizes;
  for (const auto& d : declared.front().dims)
    if (std::all_of(declared.begin(), declared.end(), [&](const Shape& s) { return s.has(d.first); })) sizes.push_back(d.first);
  auto same_sizes = [&](const Shape& a, const Shape& b) {
    for (const auto& n : sizes)
      if (!a.has(n) || !b.has(n) || a[n] != b[n]) return false;
    return true;
  };
  // Bounds that keep the test fast: inputs up to 64 MiB of device data, the CPU reference up to
  // 2^27 operations (the paper shapes of GEMM-like tasks are far above; the GPU runs cover those).
  constexpr double kMaxBytes = 32.0 * (1 << 20);
  constexpr uint64_t kMaxReference = uint64_t{1} << 26;
  int generated = 0, referenced = 0;
  // MSKB_RANDOM_SHAPE_SEEDS=N adds seeds 100..100+N-1 (a longer search for draws a generator rejects).
  std::vector<uint64_t> seeds = {1, 2, 0x9e3779b97f4a7c15ULL};
  if (const char* extra = std::getenv("MSKB_RANDOM_SHAPE_SEEDS"))
    for (uint64_t k = 0; k < std::strtoull(extra, nullptr, 10); ++k) seeds.push_back(100 + k);
  for (uint64_t seed : seeds) {
    std::vector<Shape> r;
    try {
      r = random_shapes(t, seed, 2);
    } catch (const std::exception& e) {
      ADD_FAILURE() << t.name << " seed " << seed << ": " << e.what();
      continue;
    }
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r, random_shapes(t, seed, 2)) << t.name << " seed " << seed << ": not deterministic";
    EXPECT_FALSE(same_sizes(r[0], r[1])) << t.name << " seed " << seed << ": the same shape twice";
    for (const Shape& s : r) {
      const std::string what = t.name + " " + to_string(p) + " seed " + std::to_string(seed) + " " + s.str();
      for (const Shape& d : declared) EXPECT_FALSE(same_sizes(s, d)) << what << " is the declared shape " << d.str();
      const uint64_t c = t.complexity(s);
      EXPECT_GT(c, 0u) << what;
      EXPECT_LE(c, max_c) << what << ": more work than every declared shape";
      const Tolerance tol = t.tolerance(s, p);
      EXPECT_TRUE(std::isfinite(tol.atol) && std::isfinite(tol.rtol) && tol.atol >= 0 && tol.rtol >= 0) << what;
      const Cost cost = t.cost(s, p);
      EXPECT_TRUE(std::isfinite(cost.bytes) && cost.bytes > 0) << what;
      EXPECT_TRUE(std::isfinite(cost.flops) && cost.flops >= 0) << what;
      if (cost.bytes > kMaxBytes) continue;
      Args in;
      try {
        in = make_inputs(t, s, p, seed);
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": make_inputs threw: " << e.what();
        continue;
      }
      ++generated;
      for (std::size_t i = 0; i < t.params.size(); ++i) {
        const Param& q = t.params[i];
        if (!q.is_buffer) {
          EXPECT_TRUE(std::isfinite(in[i].value)) << what << " " << q.name;
          continue;
        }
        EXPECT_FALSE(in[i].data.empty()) << what << " " << q.name;
        EXPECT_TRUE(std::all_of(in[i].data.begin(), in[i].data.end(), [](double x) { return std::isfinite(x); })) << what << " " << q.name;
      }
      if (c > kMaxReference) continue;
      Args ref;
      try {
        ref = make_expected(t, s, p, in);
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": the reference threw: " << e.what();
        continue;
      }
      ++referenced;
      for (std::size_t i = 0; i < t.params.size(); ++i) {
        const Param& q = t.params[i];
        if (!q.is_buffer || q.role == Role::in) continue;
        EXPECT_TRUE(std::all_of(ref[i].data.begin(), ref[i].data.end(), [](double x) { return std::isfinite(x); }))
            << what << ": reference output " << q.name << " is not finite";
      }
    }
  }
  // Most draws are cheap enough to generate and check here.
  EXPECT_GE(generated, 2) << t.name;
  EXPECT_GE(referenced, 1) << t.name;
  if (std::getenv("MSKB_PRINT_RANDOM_SPACE") && p == Precision::fp32) {
    std::cout << describe_random_space(t);
    for (uint64_t seed = 1; seed <= 4; ++seed)
      for (const Shape& s : random_shapes(t, seed, 2)) std::cout << "    seed " << seed << ": " << s.str() << " c=" << t.complexity(s) << "\n";
  }
}

TEST(RandomShapes, SeedsDrawDifferentShapesAndCountIsHonoured) {
  const TaskSpec& t = get_task("matrix_mul");
  EXPECT_EQ(random_shapes(t, 7, 5).size(), 5u);
  EXPECT_TRUE(random_shapes(t, 7, 0).empty());
  EXPECT_NE(random_shapes(t, 7, 2), random_shapes(t, 8, 2));
  // The first shapes of a longer draw are the shorter draw.
  const auto five = random_shapes(t, 7, 5), two = random_shapes(t, 7, 2);
  EXPECT_EQ(std::vector<Shape>(five.begin(), five.begin() + 2), two);
  EXPECT_NE(fresh_shape_seed(), 0u);
}

// Relations that hold in every declared shape hold in the random ones.
TEST(RandomShapes, KeepTheRelationsOfTheDeclaredShapes) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    for (const Shape& s : random_shapes(get_task("FFT"), seed, 2)) {
      const int64_t n = s["N"];
      EXPECT_TRUE(n > 0 && (n & (n - 1)) == 0) << s.str();
    }
    for (const Shape& s : random_shapes(get_task("rope"), seed, 2)) EXPECT_EQ(s["D"] % 2, 0) << s.str();
    for (const Shape& s : random_shapes(get_task("conv_1d"), seed, 2)) EXPECT_LE(s["kernel_size"], s["input_size"]) << s.str();
    for (const Shape& s : random_shapes(get_task("top_k"), seed, 2)) EXPECT_LE(s["k"], s["N"]) << s.str();
    for (const Shape& s : random_shapes(get_task("max_pooling_2d"), seed, 2)) {
      EXPECT_LT(s["p"], s["k"]) << s.str();
      EXPECT_LE(s["k"], s["H"]) << s.str();
      EXPECT_LE(s["k"], 7) << s.str();  // kernel sizes among the declared ones
    }
    for (const Shape& s : random_shapes(get_task("softmax_attention"), seed, 2)) EXPECT_LE(s["q"], s["kv"]) << s.str();
  }
}

// A task may bring its own sampler (used as is, still never a declared shape) or opt out.
TEST(RandomShapes, ExplicitSamplerAndOptOut) {
  TaskSpec t = get_task("vector_add");
  t.random_shape = [](Rng& rng) { return Shape{{"N", rng.uniform_int(1, 1000)}}; };
  std::set<int64_t> seen;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const auto r = random_shapes(t, seed, 2);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r, random_shapes(t, seed, 2));
    for (const Shape& s : r) {
      EXPECT_TRUE(s["N"] >= 1 && s["N"] <= 1000 && s["N"] != 1 && s["N"] != 1000) << s.str();  // 1 and 1000 are held-out
      seen.insert(s["N"]);
    }
  }
  EXPECT_GT(seen.size(), 50u);
  // A sampler that can only return declared shapes is an error, not an endless loop.
  t.random_shape = [](Rng&) { return Shape{{"N", 1000}}; };
  EXPECT_THROW(random_shapes(t, 1, 1), std::runtime_error);
  t.random_shapes_ok = false;
  EXPECT_TRUE(random_shapes(t, 1, 2).empty());
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

// The vendor row is what the task folder ships: a vendor.cu exactly where spec.vendor names a route; a
// 'none' reason only where there is none, and (in the categories that state theirs, issue 39) always
// there; an ABI cost only next to a route.
TEST(Registry, VendorContenderMatchesItsFileAndSaysWhyNone) {
  const std::set<std::string> reasons_required = {"sparse", "scientific"};
  for (const auto& t : all_tasks()) {
    if (t.folder.rfind("tasks/", 0) != 0) continue;  // a user's task file: no vendor
    const std::filesystem::path file = std::filesystem::path(source_root()) / t.folder / "vendor.cu";
    EXPECT_EQ(std::filesystem::exists(file), !t.vendor.empty()) << t.name << ": vendor.cu and spec.vendor disagree";
    if (!t.vendor.empty()) {
      EXPECT_TRUE(t.vendor_none_reason.empty()) << t.name << ": a vendor route and a 'none' reason";
    } else {
      EXPECT_TRUE(t.vendor_abi_cost.empty()) << t.name << ": an ABI cost without a vendor route";
      if (reasons_required.count(t.category)) {
        EXPECT_FALSE(t.vendor_none_reason.empty()) << t.name << ": no vendor and no reason";
      }
    }
  }
}

TEST(Registry, SortedByCategoryThenName) {
  const auto& t = all_tasks();
  ASSERT_FALSE(t.empty());
  for (const auto& s : t) EXPECT_EQ(s.folder, "tasks/" + s.category + "/" + s.name);
}

}  // namespace
