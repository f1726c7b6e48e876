// Matrix Market input for the sparse tasks: formats, symmetry, duplicates, and line-numbered errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mskb/harness/compiler.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;
namespace fs = std::filesystem;

namespace {

std::string write_mtx(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("mskb-mm-" + std::to_string(::getpid()) + "-" + name + ".mtx");
  std::ofstream(p) << text;
  return p.string();
}

std::string error_of(const std::string& text) {
  try {
    read_matrix_market(write_mtx("err", text));
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(MatrixMarket, GeneralRealWithDuplicatesSummedAndSorted) {
  const auto m = read_matrix_market(write_mtx("gen", "%%MatrixMarket matrix coordinate real general\n% comment\n3 4 4\n3 2 1.5\n1 4 -2\n1 1 0.5\n3 2 1.0\n"));
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 4);
  EXPECT_EQ(m.nnz(), 3);  // (3,2) appears twice: summed
  EXPECT_EQ(m.offsets, (std::vector<int64_t>{0, 2, 2, 3}));
  EXPECT_EQ(m.indices, (std::vector<int32_t>{0, 3, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{0.5, -2.0, 2.5}));
  EXPECT_EQ(m.max_row_nnz(), 2);
  EXPECT_EQ(m.max_col_nnz(), 1);
}

TEST(MatrixMarket, SymmetricAndSkewExpandPatternIsOne) {
  const auto s = read_matrix_market(write_mtx("sym", "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 4\n2 1 3\n"));
  EXPECT_EQ(s.nnz(), 3);
  EXPECT_EQ(s.values, (std::vector<double>{4, 3, 3}));
  const auto k = read_matrix_market(write_mtx("skew", "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n"));
  EXPECT_EQ(k.values, (std::vector<double>{-3, 3}));
  const auto p = read_matrix_market(write_mtx("pat", "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 2\n"));
  EXPECT_TRUE(p.pattern);
  EXPECT_EQ(p.values, (std::vector<double>{1, 1}));
}

TEST(MatrixMarket, ErrorsNameTheLine) {
  EXPECT_NE(error_of("hello\n").find(":1: missing the %%MatrixMarket banner"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix array real general\n2 2\n").find(":1: format 'array'"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate complex general\n").find(":1: field 'complex'"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n% c\nx y z\n").find(":3: bad size line"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n3 1 1\n").find(":4: row index 3 outside 1..2"),
            std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 abc\n").find(":3: missing or non-numeric value"),
            std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n").find("1 of the 3 declared"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n").find(":4: more entries"), std::string::npos);
  try {
    read_matrix_market("/nonexistent/m.mtx");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

// Found by tests/fuzz (matrix_market): a three-line file could make the reader reserve or allocate
// gigabytes, and summed duplicates could overflow to infinity past the finite-value check.
TEST(MatrixMarket, MemoryFollowsTheFileAndSumsStayFinite) {
  const std::string head = "%%MatrixMarket matrix coordinate real general\n";
  EXPECT_NE(error_of(head + "1 1 99999999999\n1 1 1\n").find(":2: 99999999999 entries declared for a 1 x 1 matrix (at most 1)"),
            std::string::npos);
  EXPECT_NE(error_of(head + "2000000000 2000000000 1\n1 1 1\n").find(":2: 2000000000 x 2000000000 matrix with 1 entries: more than 64"),
            std::string::npos);
  const auto tall = read_matrix_market(write_mtx("tall", head + "1000000 10 1\n999999 3 2.5\n"));  // within the first 2^24 rows
  EXPECT_EQ(tall.rows, 1000000);
  EXPECT_EQ(tall.nnz(), 1);
  EXPECT_EQ(tall.offsets.back(), 1);
  EXPECT_NE(error_of(head + "2 2 2\n1 1 1e308\n1 1 1e308\n").find("the entries at row 1, column 1 sum to a value that is not finite"),
            std::string::npos);
  // A symmetric file that is not square mirrored (5, 4) of a 7 x 4 matrix to column 5: out of range.
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate pattern symmetric\n7 4 1\n5 4\n").find(":2: a symmetric matrix must be square, not 7 x 4"),
            std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n").find(":3: a skew-symmetric matrix has no diagonal entries (2, 2)"),
            std::string::npos);
}

TEST(MatrixMarket, ShippedMatricesLoadAndSpmvCsrUsesThem) {
  const fs::path dir = fs::path(source_root()) / "tasks/sparse/common/matrices";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".mtx") continue;
    const auto m = read_matrix_market(e.path().string());
    EXPECT_GT(m.nnz(), 0) << e.path();
    ++n;
  }
  EXPECT_GE(n, 3);
}

TEST(MatrixMarket, SpmvCsrInstanceFromAMatrix) {
  const TaskSpec& t = get_task("spmv_csr");
  ASSERT_TRUE(t.from_matrix);
  const auto m = read_matrix_market(write_mtx("spmv", "%%MatrixMarket matrix coordinate real general\n3 2 3\n1 1 2\n1 2 -1\n3 2 4\n"));
  const Shape s = matrix_shape(t, m);
  EXPECT_EQ(s["nnz"], 3);
  EXPECT_EQ(s["max_row_nnz"], 2);
  EXPECT_EQ(t.complexity(s), 3u);
  const Args in = make_inputs(t, s, Precision::fp32, 1, &m);
  const Args out = make_expected(t, s, Precision::fp32, in);
  const auto& x = in[4].data;
  ASSERT_EQ(x.size(), 2u);
  EXPECT_DOUBLE_EQ(out[5].data[0], 2 * x[0] - x[1]);
  EXPECT_DOUBLE_EQ(out[5].data[1], 0.0);  // an empty row
  EXPECT_DOUBLE_EQ(out[5].data[2], 4 * x[1]);
  EXPECT_THROW(make_inputs(get_task("vector_add"), s, Precision::fp32, 1, &m), std::invalid_argument);
}
