// mskb::read_matrix_market (a user's --matrix file): any bytes either give a well-formed CSR
// matrix (offsets monotone from 0 to nnz, columns sorted, distinct and in range, values finite)
// or a one-line std::runtime_error; nothing else is thrown and memory stays bounded by the file.
#include <cmath>
#include <stdexcept>

#include "fuzz_support.hpp"
#include "mskb/core/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file("m.mtx");
  mskb::SparseMatrix m;
  try {
    m = mskb::read_matrix_market(file.write(data, size));
  } catch (const std::runtime_error& e) {
    fuzz::require_one_line(e.what(), "read_matrix_market");
    return 0;
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "read_matrix_market");
  }
  FUZZ_REQUIRE(m.rows >= 0 && m.cols >= 0, "negative dimensions");
  FUZZ_REQUIRE(m.offsets.size() == static_cast<std::size_t>(m.rows) + 1, "offsets are not rows + 1 long");
  FUZZ_REQUIRE(m.indices.size() == m.values.size(), "indices and values differ in length");
  FUZZ_REQUIRE(m.offsets.front() == 0 && m.offsets.back() == m.nnz(), "offsets do not run from 0 to nnz");
  for (int64_t r = 0; r < m.rows; ++r) {
    const auto b = m.offsets[static_cast<std::size_t>(r)], e = m.offsets[static_cast<std::size_t>(r) + 1];
    FUZZ_REQUIRE(b <= e, "offsets decrease");
    for (auto k = b; k < e; ++k) {
      const auto c = m.indices[static_cast<std::size_t>(k)];
      FUZZ_REQUIRE(c >= 0 && c < m.cols, "column index out of range");
      FUZZ_REQUIRE(k == b || m.indices[static_cast<std::size_t>(k) - 1] < c, "columns not sorted and distinct within a row");
      FUZZ_REQUIRE(std::isfinite(m.values[static_cast<std::size_t>(k)]), "a value is not finite");
    }
  }
  fuzz::note("read_matrix_market", "accepted " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + ", " + std::to_string(m.nnz()) + " entries");
  FUZZ_REQUIRE(m.max_row_nnz() <= m.cols && m.max_col_nnz() <= m.rows, "more entries in a row or column than fit");
  return 0;
}
