// Owns reading a user's sparse matrix from a Matrix Market file (coordinate format; real,
// integer or pattern; general, symmetric or skew-symmetric) into sorted, duplicate-free CSR.
// Errors name the file and line: "m.mtx:7: column index 900 outside 1..800".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mskb {

struct SparseMatrix {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> offsets;   // rows + 1
  std::vector<int32_t> indices;   // column of each entry, sorted within a row
  std::vector<double> values;     // duplicates summed; pattern entries are 1
  std::string source;             // the file it came from
  bool pattern = false;
  int64_t nnz() const { return static_cast<int64_t>(values.size()); }
  int64_t max_row_nnz() const;
  int64_t max_col_nnz() const;
};

// Throws std::runtime_error with a one-line, line-numbered message.
SparseMatrix read_matrix_market(const std::string& path);

}  // namespace mskb
