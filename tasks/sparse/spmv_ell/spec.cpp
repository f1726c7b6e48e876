// spmv_ell: y = A*x with A in row-major ELL format (padding col = -1); y is overwritten.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(spmv_ell) {
  using namespace mskb;
  namespace sp = mskb::sparse;
  spec.semantics =
      "y[i] = sum over s in [0, max_nnz_per_row) with col_ids[i*max_nnz_per_row + s] >= 0 of "
      "values[i*max_nnz_per_row + s] * x[col_ids[i*max_nnz_per_row + s]], for every row i in [0, rows): y = A*x for a "
      "sparse matrix A in row-major ELL format (rows x max_nnz_per_row slots, 0-based int column ids). Padding slots "
      "have col_ids = -1 (and value 0) and must be skipped; padding can sit anywhere in a row, not only after its "
      "entries. x has cols elements; cols is not passed (2^10..2^15 in the paper, other widths elsewhere). y has rows "
      "elements and is OVERWRITTEN: every y[i] must be written (0 for a row of padding only). In the paper's matrices "
      "every row holds 3/4 to all of max_nnz_per_row = round(1% of cols) entries; skewed inputs have power-law row "
      "lengths (a few full rows, many short or empty ones) and scattered padding.";
  spec.vendor =
      "CUB: cub::DeviceReduce::ReduceByKey over the rows * max_nnz_per_row slots in storage order, the key of slot s "
      "its row s / max_nnz_per_row and its value values[s] * x[col_ids[s]] in FP32 (0 for padding), both transforms of "
      "a counting iterator (the slots read once where they lie), each run's sum written to y[i] (bf16: rounded once "
      "through a transform output iterator); one pass, no conversion, no host copy. Rejected: cuSPARSE on a CSR copy "
      "(compaction and a host copy every call: P 0.09 on the H200), cuSPARSE Sliced-ELL (needs nnz, which the ABI does "
      "not pass; column-major slices), cub::DeviceSegmentedReduce (a thread block per row of ~20 slots). Just below "
      "the naive kernel on the H200's large sweep (P 0.90 fp32 / 0.93 bf16; at the largest shape 0.34 / 0.31 of the "
      "roofline, the naive kernel 0.33 / 0.25): a fixed-width row-major ELL is the layout a thread-per-row loop reads "
      "best, and no library takes it as given";
  spec.params = {int_arg("rows"), int_arg("max_nnz_per_row"), in("values"), in("col_ids", Elem::i32), in("x"), out("y")};
  for (int e = 10; e <= 15; ++e) spec.paper.push_back({{"rows", 2048}, {"cols", int64_t{1} << e}});
  spec.heldout = {{{"rows", 1}, {"cols", 1}},
                  {{"rows", 2048}, {"cols", 1000}},
                  {{"rows", 3001}, {"cols", 4099}},
                  {{"rows", 2048}, {"cols", 5000}, {"skew", 1}},
                  {{"rows", 777}, {"cols", 40000}, {"skew", 1}},
                  {{"rows", 65537}, {"cols", 2048}, {"skew", 1}}};
  spec.large = {{{"rows", int64_t{1} << 20}, {"cols", 2048}},
                {{"rows", int64_t{1} << 21}, {"cols", 2048}},
                {{"rows", int64_t{1} << 17}, {"cols", int64_t{1} << 15}},
                {{"rows", int64_t{1} << 18}, {"cols", 2048}, {"skew", 1}}};
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t rows = s["rows"], cols = s["cols"];
    const int64_t width = sp::generate_ell(rows, cols, sp::is_skewed(s), rng, a[2].data, a[3].data);
    a[0].value = static_cast<double>(rows);
    a[1].value = static_cast<double>(width);
    a[4].data.resize(static_cast<std::size_t>(cols));
    sp::fill_values(a[4].data, rng);
    a[5].data.resize(static_cast<std::size_t>(rows));
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto rows = static_cast<int64_t>(a[0].value), width = static_cast<int64_t>(a[1].value);
    const sp::RowGrouped g = sp::group_ell(rows, width, a[3].data.data(), a[2].data.data());
    sp::spmv_rows(g, a[4].data, a[5].data);
  };
  // A user's matrix (mskb run --matrix FILE.mtx): ELL as wide as its longest row, padding at the row
  // ends; x drawn like the generator's.
  spec.from_matrix = [](const SparseMatrix& m, const Shape&, Precision, Rng& rng, Args& a) {
    sp::Ell e = sp::ell_from_csr(sp::csr_of(m), std::max<int64_t>(1, m.max_row_nnz()), false, rng);
    a[0].value = static_cast<double>(m.rows);
    a[1].value = static_cast<double>(e.width);
    a[2].data.assign(e.val.begin(), e.val.end());
    a[3].data = sp::as_doubles(e.col);
    a[4].data.resize(static_cast<std::size_t>(m.cols));
    sp::fill_values(a[4].data, rng);
    a[5].data.resize(static_cast<std::size_t>(m.rows));
  };
  spec.tolerance = [](const Shape& s, Precision p) { return sp::sum_tolerance(sp::ell_width_of(s), p); };
  // Stored slots (padding included): what an ELL kernel walks.
  // The CPU reference groups the entries by row (serial) before its parallel sums: its GPU reference
  // (reference.cu, the same bits) takes over from about 6 million entries, the large sweep.
  spec.cpu_reference_weight = 16.0;
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["rows"] * sp::ell_width_of(s)); };
  // Every slot read once (value + column id), x and y once each.
  spec.cost = [](const Shape& s, Precision p) {
    const double slots = static_cast<double>(s["rows"] * sp::ell_width_of(s));
    const double rb = static_cast<double>(real_bytes(p));
    return Cost{slots * (rb + 4.0) + static_cast<double>(s["cols"] + s["rows"]) * rb, 2.0 * slots};
  };
}
