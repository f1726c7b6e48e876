// The counter-based generator (mskb/core/counter_rng.hpp) and the CPU twin of the verifier's GPU
// generation (set_uniform_inputs): the values are a pure function of (task, shape, seed, index).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "mskb/core/counter_rng.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/core/task.hpp"
#include "support/gpu_instance_tasks.hpp"

using namespace mskb;

namespace {

// SplitMix64 (Steele, Lea, Flood 2014) as published: state += golden gamma, then the mix.
uint64_t splitmix64_next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

TEST(CounterRng, IsSplitMix64AtThePosition) {
  // The published first output of SplitMix64 from state 0.
  EXPECT_EQ(counter_bits(0, 0), 0xe220a8397b1dcdafULL);
  for (uint64_t key : {uint64_t{0}, uint64_t{42}, uint64_t{0xdeadbeefcafef00dULL}}) {
    uint64_t state = key;
    for (uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(counter_bits(key, i), splitmix64_next(state)) << key << " " << i;
  }
}

TEST(CounterRng, UniformStaysInRangeAndLooksUniform) {
  double sum = 0;
  std::set<double> distinct;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double x = counter_uniform(7, static_cast<uint64_t>(i), -1.0, 1.0);
    ASSERT_GE(x, -1.0);
    ASSERT_LT(x, 1.0);
    sum += x;
    distinct.insert(x);
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(n));
  EXPECT_NE(counter_uniform(7, 0, -1, 1), counter_uniform(8, 0, -1, 1));
}

TEST(CounterRng, Bf16RoundingIsTheHostOne) {
  for (uint64_t i = 0; i < 200000; ++i) {
    const auto f = static_cast<float>(counter_uniform(3, i, -1e6, 1e6) * (i % 2 ? 1e-30 : 1.0));
    ASSERT_EQ(bf16_bits_of(float_bits(f)), bf16_bits(f)) << f;
  }
  for (float f : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 3.4028235e38f, 1.17549435e-38f, 1.0039062f, 1.0117188f})
    EXPECT_EQ(bf16_bits_of(float_bits(f)), bf16_bits(f)) << f;
}

// Every task with uniform inputs: make_inputs draws element k of input buffer i as
// counter_uniform(key_i, k, lo_i, hi_i) rounded to its type, the keys (and scalars) coming from
// draw_uniform on the instance's generator: what the verifier draws on the GPU.
TEST(UniformInputs, CpuTwinIsTheCounterDraw) {
  int tasks = 0;
  for (const TaskSpec& t : all_tasks()) {
    const std::string& name = t.name;
    if (!t.uniform_inputs) continue;
    ++tasks;
    // Up to three small shapes (the values do not depend on the size: the key is per shape).
    std::vector<Shape> shapes;
    for (const auto* sweep : {&t.paper, &t.heldout})
      for (const Shape& s : *sweep)
        if (shapes.size() < 3 && t.complexity(s) <= (uint64_t{1} << 20)) shapes.push_back(s);
    ASSERT_FALSE(shapes.empty()) << name;
    for (Precision p : {Precision::fp32, Precision::bf16})
      for (const Shape& s : shapes) {
        const uint64_t seed = 5;
        const Args a = make_inputs(t, s, p, seed);
        Rng rng(instance_seed(t, s, seed));
        const UniformDraw d = draw_uniform(t, s, rng);
        for (std::size_t i = 0; i < t.params.size(); ++i) {
          const Param& q = t.params[i];
          if (!q.is_buffer) {
            EXPECT_EQ(a[i].value, round_scalar(q.scalar, p, d.scalars[i])) << name << " " << q.name;
            continue;
          }
          ASSERT_EQ(a[i].data.size(), d.elements[i]) << name << " " << q.name;
          if (q.role != Role::in && q.role != Role::inplace) continue;
          const UniformRange r = d.ranges[i];
          for (std::size_t k = 0; k < a[i].data.size(); k += 1 + a[i].data.size() / 5000)
            ASSERT_EQ(a[i].data[k], round_elem(q.elem, p, counter_draw(d.keys[i], k, r)))
                << name << " " << q.name << " " << k;
        }
      }
  }
  // The tasks whose large instances are GPU instances (docs/harness.md section 4) draw uniform inputs.
  for (const char* name : mskb_test::kGpuInstanceTasks) EXPECT_TRUE(get_task(name).uniform_inputs) << name;
  EXPECT_GE(tasks, static_cast<int>(std::size(mskb_test::kGpuInstanceTasks)));
}
