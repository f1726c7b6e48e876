// spmv_coo: y += A*x with A in COO format (unsorted entries); y accumulates (the harness zeroes it).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(spmv_coo) {
  using namespace mskb;
  namespace sp = mskb::sparse;
  spec.semantics =
      "y[row_indices[e]] += values[e] * x[col_indices[e]] for every stored entry e in [0, nnz): y += A*x for a sparse "
      "rows x cols matrix A in COO format (0-based int indices). The entries are in no particular order: entries "
      "0..rows-1 hold one entry of each row (so no row is empty), the rest follow in random order, so many entries "
      "share a row and concurrent updates of y must not be lost (atomics, or a sort). No (row, col) pair repeats. "
      "x has cols elements; cols is not passed (it is at least max(col_indices) + 1 and may exceed 2048). y has rows "
      "elements and ACCUMULATES: the caller zeroes it before the call. Some inputs are skewed (a few completely dense "
      "rows, most rows short).";
  spec.vendor = "";
  spec.vendor_none_reason =
      "no library route fits unsorted, accumulating COO input. cuSPARSE's COO SpMV requires the entries sorted by row (it "
      "crashed on the task's unsorted entries on an H200) and no other library primitive scatter-adds unsorted (row, "
      "value) pairs (cusparseScatter overwrites; CUB/Thrust reduce-by-key need sorted keys; CSR/CSC need compressed "
      "input). The only library route sorts all nnz entries on every call (CUB radix sort of (row, col) keys, a gather, "
      "a column-count probe, then cusparseSpMV): measured on the H200 (e192307) at P 0.15 / 0.20 (fp32 / bf16, paper) "
      "and 0.17 / 0.19 (large) against the naive atomic baseline, 4% of the roofline: the sort, not the product, was "
      "the call. A real application sorts once (cusparseXcoosortByRow) and reuses the sorted matrix, which the ABI's "
      "call cannot do (the order is data, not shape)";
  spec.params = {int_arg("rows"), int_arg("nnz"), in("values"), in("row_indices", Elem::i32), in("col_indices", Elem::i32),
                 in("x"),         accumulate("y")};
  for (int e = 10; e <= 15; ++e) spec.paper.push_back({{"rows", int64_t{1} << e}, {"cols", 2048}});
  spec.heldout = {{{"rows", 1}, {"cols", 1}},
                  {{"rows", 999}, {"cols", 3001}},
                  {{"rows", 4097}, {"cols", 1500}, {"skew", 1}},
                  {{"rows", 65537}, {"cols", 2048}, {"skew", 1}},
                  {{"rows", 100003}, {"cols", 5000}, {"skew", 1}}};
  spec.large = {{{"rows", int64_t{1} << 20}, {"cols", 2048}},
                {{"rows", int64_t{1} << 21}, {"cols", 2048}},
                {{"rows", int64_t{1} << 21}, {"cols", 2048}, {"skew", 1}},
                {{"rows", int64_t{1} << 18}, {"cols", 16384}}};
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t rows = s["rows"], cols = s["cols"];
    sp::generate_coo(rows, cols, sp::is_skewed(s), rng, a[2].data, a[3].data, a[4].data);
    a[0].value = static_cast<double>(rows);
    a[1].value = static_cast<double>(a[2].data.size());
    a[5].data.resize(static_cast<std::size_t>(cols));
    sp::fill_values(a[5].data, rng);
    a[6].data.resize(static_cast<std::size_t>(rows));
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto rows = static_cast<int64_t>(a[0].value), nnz = static_cast<int64_t>(a[1].value);
    const sp::RowGrouped g = sp::group_coo(rows, a[3].data.data(), a[4].data.data(), a[2].data.data(), nnz);
    sp::spmv_rows(g, a[5].data, a[6].data);
  };
  // A user's matrix (mskb run --matrix FILE.mtx): its entries in COO order (one per row first when no
  // row is empty, the rest shuffled), x drawn like the generator's.
  spec.from_matrix = [](const SparseMatrix& m, const Shape&, Precision, Rng& rng, Args& a) {
    sp::Coo coo = sp::coo_for_user(sp::csr_of(m), rng);
    a[0].value = static_cast<double>(m.rows);
    a[1].value = static_cast<double>(coo.val.size());
    a[2].data.assign(coo.val.begin(), coo.val.end());
    a[3].data = sp::as_doubles(coo.row);
    a[4].data = sp::as_doubles(coo.col);
    a[5].data.resize(static_cast<std::size_t>(m.cols));
    sp::fill_values(a[5].data, rng);
    a[6].data.resize(static_cast<std::size_t>(m.rows));
  };
  spec.tolerance = [](const Shape& s, Precision p) { return sp::sum_tolerance(sp::row_terms(s), p); };
  // The CPU reference groups the entries by row (serial) before its parallel sums: its GPU reference
  // (reference.cu, the same bits) takes over from about 6 million entries, the large sweep.
  spec.cpu_reference_weight = 16.0;
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(sp::rowwise_nnz(s)); };
  // Each entry read once (value + two indices), x and y once each.
  spec.cost = [](const Shape& s, Precision p) {
    const double nnz = static_cast<double>(sp::rowwise_nnz(s)), rb = static_cast<double>(real_bytes(p));
    const double bytes = nnz * (rb + 8.0) + static_cast<double>(s["cols"] + s["rows"]) * rb;
    return Cost{bytes, 2.0 * nnz};
  };
}
