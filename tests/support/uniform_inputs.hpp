// A check shared by the task tests (tasks/*/*/test.cpp) of uniform-input tasks: that an input
// buffer is a counter draw from the range the test expects, and that a drawn instance fills it.
// Header only; tests only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

#include "mskb/core/task.hpp"

namespace mskb_test {

// Parameter i of `t` is drawn uniform in [lo, hi) (its range in t.uniform_inputs), and the values
// of `in` (an instance of t, at least a few thousand elements) fill that range: all inside [lo, hi]
// (a bf16 rounding may reach hi), the smallest and the largest within 0.5% of the width of its ends.
inline void expect_fills_uniform_range(const mskb::TaskSpec& t, const mskb::Args& in, std::size_t i, double lo, double hi) {
  ASSERT_TRUE(t.uniform_inputs);
  EXPECT_EQ(t.uniform_inputs->range[i].lo, lo) << "input " << i;
  EXPECT_EQ(t.uniform_inputs->range[i].hi, hi) << "input " << i;
  ASSERT_FALSE(in[i].data.empty()) << "input " << i;
  const double margin = 0.005 * (hi - lo);
  const auto [min, max] = std::minmax_element(in[i].data.begin(), in[i].data.end());
  EXPECT_GE(*min, lo) << "input " << i;
  EXPECT_LT(*min, lo + margin) << "input " << i;
  EXPECT_LE(*max, hi) << "input " << i;
  EXPECT_GT(*max, hi - margin) << "input " << i;
}

}  // namespace mskb_test
