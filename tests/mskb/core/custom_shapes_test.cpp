// `mskb run|check --shape`: an ad-hoc shape as the task's dimensions, checked against the task's
// size space (mskb/core/random_shapes.hpp: custom_shape, shape_constraint_problems).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"

namespace mskb {
namespace {

// The usage error of `text` for `task` ("" when it is accepted).
std::string refusal(const std::string& task, const std::string& text) {
  try {
    (void)custom_shape(get_task(task), text);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

TEST(CustomShape, OneDimension) {
  const Shape s = custom_shape(get_task("vector_add"), "N=1048576");
  EXPECT_EQ(s.str(), "N=1048576");
  // Larger than every declared shape: an ad-hoc size is free.
  EXPECT_EQ(custom_shape(get_task("vector_add"), "N=1073741824").str(), "N=1073741824");
}

TEST(CustomShape, SeveralDimensionsInTheTasksOrder) {
  EXPECT_EQ(custom_shape(get_task("matrix_mul"), "K=128,N=256,M=512").str(), "M=512,N=256,K=128");
}

// A relation every declared shape keeps may be chance (matrix_mul's N <= K): a note, not a refusal.
TEST(CustomShape, BrokenRelationsAreNotes) {
  std::vector<std::string> notes;
  EXPECT_EQ(custom_shape(get_task("matrix_mul"), "M=512,N=256,K=128", &notes).str(), "M=512,N=256,K=128");
  EXPECT_EQ(notes, std::vector<std::string>{"--shape 'M=512,N=256,K=128': N <= K in every declared shape of matrix_mul (the task may assume it)"});
  notes.clear();
  (void)custom_shape(get_task("matrix_mul"), "M=512,N=256,K=1024", &notes);
  EXPECT_TRUE(notes.empty());
}

TEST(CustomShape, UnknownAndMissingDimensionsAreNamed) {
  EXPECT_EQ(refusal("vector_add", "M=4"), "--shape 'M=4': unknown dimension 'M' (vector_add's dimensions: N); missing dimension N (vector_add needs N)");
  EXPECT_EQ(refusal("matrix_mul", "M=512,N=256"), "--shape 'M=512,N=256': missing dimension K (matrix_mul needs M, N, K)");
}

TEST(CustomShape, BadTextIsNamed) {
  EXPECT_NE(refusal("vector_add", "N").find("write each dimension as NAME=VALUE"), std::string::npos);
  EXPECT_NE(refusal("vector_add", "N=1,").find("write each dimension as NAME=VALUE"), std::string::npos);
  EXPECT_EQ(refusal("vector_add", "N=1e6"), "--shape 'N=1e6': N: '1e6' is not a whole number");
  EXPECT_EQ(refusal("vector_add", "N=-5"), "--shape 'N=-5': N: '-5' is not a whole number");
  EXPECT_EQ(refusal("matrix_mul", "M=1,M=2,N=3,K=4"), "--shape 'M=1,M=2,N=3,K=4': M is given twice");
  EXPECT_EQ(refusal("vector_add", "N=0"), "--shape 'N=0': N=0: must be at least 1");
}

TEST(CustomShape, ConstraintsOfTheDeclaredShapesHold) {
  // max_pooling_2d: the window k, stride s and padding p take only the values its shapes declare.
  const TaskSpec& pool = get_task("max_pooling_2d");
  Shape ok = pool.paper.front();
  EXPECT_EQ(refusal("max_pooling_2d", ok.str()), "");
  std::string text;
  for (const auto& [name, v] : ok.dims) text += (text.empty() ? "" : ",") + name + "=" + (name == "k" ? std::string("9") : std::to_string(v));
  const std::string why = refusal("max_pooling_2d", text);
  EXPECT_NE(why.find("k=9: must be one of"), std::string::npos) << why;
}

// Every shape a task declares (paper, held-out, large) and every random shape it draws is in its space.
TEST(CustomShape, EveryDeclaredAndRandomShapeOfEveryTaskIsAccepted) {
  for (const TaskSpec& t : all_tasks()) {
    for (const char* which : {"paper", "heldout", "large"})
      for (const Shape& s : t.sweep(which)) EXPECT_EQ(refusal(t.name, s.str()), "") << t.name << " " << which;
    for (const Shape& s : random_shapes(t, 42, 4)) EXPECT_TRUE(shape_constraint_problems(t, s).empty()) << t.name << " " << s.str();
  }
}

}  // namespace
}  // namespace mskb
