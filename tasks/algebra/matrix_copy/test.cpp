// Hand-checked cases for the matrix_copy reference.
#include <gtest/gtest.h>

#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

TEST(MatrixCopy, CopiesEveryElementInOrder) {
  const TaskSpec& t = get_task("matrix_copy");
  Args a(4);
  a[0].data = {1.0, -2.0, 3.5, 4.0, 0.25, -6.0};  // 2 x 3
  a[1].data.assign(6, 0.0);
  a[2].value = 2;
  a[3].value = 3;
  t.reference({{"M", 2}, {"N", 3}}, Precision::fp32, a);
  EXPECT_EQ(a[1].data, a[0].data);
}

TEST(MatrixCopy, SingleElementAndExactTolerance) {
  const TaskSpec& t = get_task("matrix_copy");
  Args a(4);
  a[0].data = {-0.5};
  a[1].data = {0.0};
  a[2].value = 1;
  a[3].value = 1;
  t.reference({{"M", 1}, {"N", 1}}, Precision::bf16, a);
  EXPECT_EQ(a[1].data, (std::vector<double>{-0.5}));
  EXPECT_EQ(t.tolerance({{"M", 1}, {"N", 1}}, Precision::bf16).rtol, 0.0);
}

TEST(MatrixCopy, HeldOutCoversOtherWidthsAndTails) {
  const TaskSpec& t = get_task("matrix_copy");
  bool wider = false, not_multiple_of_4 = false;
  for (const Shape& s : t.heldout) {
    wider |= s["N"] > 2048;
    not_multiple_of_4 |= (s["M"] * s["N"]) % 4 != 0;
  }
  EXPECT_TRUE(wider);
  EXPECT_TRUE(not_multiple_of_4);
}

}  // namespace
