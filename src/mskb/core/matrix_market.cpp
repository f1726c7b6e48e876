#include "mskb/core/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mskb {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Entry {
  int64_t r, c;
  double v;
};

}  // namespace

int64_t SparseMatrix::max_row_nnz() const {
  int64_t m = 0;
  for (int64_t r = 0; r < rows; ++r) m = std::max(m, offsets[static_cast<std::size_t>(r) + 1] - offsets[static_cast<std::size_t>(r)]);
  return m;
}

int64_t SparseMatrix::max_col_nnz() const {
  std::vector<int64_t> count(static_cast<std::size_t>(cols), 0);
  for (int32_t c : indices) ++count[static_cast<std::size_t>(c)];
  return count.empty() ? 0 : *std::max_element(count.begin(), count.end());
}

SparseMatrix read_matrix_market(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  auto fail = [&](long line, const std::string& msg) -> std::runtime_error {
    return std::runtime_error(path + ":" + std::to_string(line) + ": " + msg);
  };
  std::string line;
  long ln = 0;
  if (!std::getline(in, line)) throw fail(1, "empty file (expected a %%MatrixMarket header)");
  ++ln;
  std::istringstream hdr(line);
  std::string banner, object, format, field, symmetry;
  hdr >> banner >> object >> format >> field >> symmetry;
  if (banner != "%%MatrixMarket") throw fail(ln, "missing the %%MatrixMarket banner");
  object = lower(object), format = lower(format), field = lower(field), symmetry = lower(symmetry);
  if (object != "matrix") throw fail(ln, "object '" + object + "' is not supported (expected matrix)");
  if (format != "coordinate") throw fail(ln, "format '" + format + "' is not supported (only sparse coordinate files)");
  if (field != "real" && field != "integer" && field != "pattern" && field != "double")
    throw fail(ln, "field '" + field + "' is not supported (real, integer or pattern)");
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
    throw fail(ln, "symmetry '" + symmetry + "' is not supported (general, symmetric or skew-symmetric)");
  const bool pattern = field == "pattern";

  int64_t rows = -1, cols = -1, declared = -1;
  while (std::getline(in, line)) {
    ++ln;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '%') continue;
    std::istringstream sz(line);
    if (!(sz >> rows >> cols >> declared) || rows < 0 || cols < 0 || declared < 0)
      throw fail(ln, "bad size line (expected: rows cols nnz)");
    break;
  }
  if (declared < 0) throw fail(ln, "missing the size line");
  if (rows > std::numeric_limits<int32_t>::max() || cols > std::numeric_limits<int32_t>::max())
    throw fail(ln, "matrix larger than 2^31-1 rows or columns (the task ABI uses int indices)");

  if (symmetry != "general" && rows != cols)
    throw fail(ln, "a " + symmetry + " matrix must be square, not " + std::to_string(rows) + " x " + std::to_string(cols));
  if (declared > rows * cols)
    throw fail(ln, std::to_string(declared) + " entries declared for a " + std::to_string(rows) + " x " + std::to_string(cols) +
                       " matrix (at most " + std::to_string(rows * cols) + ")");
  // Memory follows the file: the row offsets (and a column count) take 8 bytes per row and column,
  // so a file may not declare far more rows or columns than entries.
  constexpr int64_t kFreeDims = int64_t{1} << 24, kDimsPerEntry = 64;
  if (rows + cols > kFreeDims + kDimsPerEntry * declared)
    throw fail(ln, std::to_string(rows) + " x " + std::to_string(cols) + " matrix with " + std::to_string(declared) +
                       " entries: more than " + std::to_string(kDimsPerEntry) + " rows and columns per entry beyond the first " +
                       std::to_string(kFreeDims) + " is refused (the row offsets alone would outweigh the entries)");

  std::vector<Entry> e;
  e.reserve(static_cast<std::size_t>(std::min<int64_t>(declared, int64_t{1} << 20)) * (symmetry == "general" ? 1 : 2));
  int64_t read = 0;
  while (std::getline(in, line)) {
    ++ln;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '%') continue;
    if (read == declared) throw fail(ln, "more entries than the " + std::to_string(declared) + " declared");
    std::istringstream es(line);
    int64_t r, c;
    double v = 1.0;
    if (!(es >> r >> c)) throw fail(ln, "bad entry (expected: row col" + std::string(pattern ? "" : " value") + ")");
    if (!pattern && !(es >> v)) throw fail(ln, "missing or non-numeric value");
    if (r < 1 || r > rows) throw fail(ln, "row index " + std::to_string(r) + " outside 1.." + std::to_string(rows));
    if (c < 1 || c > cols) throw fail(ln, "column index " + std::to_string(c) + " outside 1.." + std::to_string(cols));
    if (!(v == v) || v == std::numeric_limits<double>::infinity() || v == -std::numeric_limits<double>::infinity())
      throw fail(ln, "value is not finite");
    if (symmetry == "skew-symmetric" && r == c) throw fail(ln, "a skew-symmetric matrix has no diagonal entries (" + std::to_string(r) + ", " + std::to_string(c) + ")");
    e.push_back({r - 1, c - 1, v});
    if (symmetry != "general" && r != c) e.push_back({c - 1, r - 1, symmetry == "skew-symmetric" ? -v : v});
    ++read;
  }
  if (read != declared)
    throw fail(ln, "file ends after " + std::to_string(read) + " of the " + std::to_string(declared) + " declared entries");

  std::sort(e.begin(), e.end(), [](const Entry& a, const Entry& b) { return a.r != b.r ? a.r < b.r : a.c < b.c; });
  SparseMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.source = path;
  m.pattern = pattern;
  m.offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (i > 0 && e[i].r == e[i - 1].r && e[i].c == e[i - 1].c) {
      m.values.back() += e[i].v;  // duplicates are summed, as Matrix Market readers do
      if (!std::isfinite(m.values.back()))
        throw std::runtime_error(path + ": the entries at row " + std::to_string(e[i].r + 1) + ", column " + std::to_string(e[i].c + 1) +
                                 " sum to a value that is not finite");
      continue;
    }
    m.indices.push_back(static_cast<int32_t>(e[i].c));
    m.values.push_back(e[i].v);
    ++m.offsets[static_cast<std::size_t>(e[i].r) + 1];
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) m.offsets[r + 1] += m.offsets[r];
  return m;
}

}  // namespace mskb
