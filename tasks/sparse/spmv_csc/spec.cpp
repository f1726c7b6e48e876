// spmv_csc: y += A*x with A in CSC format; y accumulates (the harness zeroes it).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(spmv_csc) {
  using namespace mskb;
  namespace sp = mskb::sparse;
  spec.semantics =
      "y += A*x for a sparse rows x columns matrix A in CSC format (0-based int indices): for every column j in "
      "[0, columns) and every p in [col_offsets[j], col_offsets[j+1]), y[row_indices[p]] += values[p] * x[j]. "
      "col_offsets has columns + 1 entries (col_offsets[0] = 0, col_offsets[columns] = nnz); row indices are sorted "
      "and distinct within a column; columns may be empty. x has columns elements, y has rows elements and "
      "ACCUMULATES: the caller zeroes it before the call. Different columns update the same y elements, so a "
      "column-parallel kernel needs atomics. rows is 2048 in the paper sweep but can be anything. Some inputs are "
      "skewed (a few completely dense columns, most columns short).";
  spec.vendor =
      "cuSPARSE: cusparseSpMV on a CSC descriptor (cusparseCreateConstCsc), CUSPARSE_SPMV_ALG_DEFAULT (else the first "
      "accepted of CSR_ALG1, CSR_ALG2), alpha = 1, "
      "beta = 1 (y accumulates); bf16: values and x as CUDA_R_16BF with CUDA_R_32F compute and y staged in FP32 (cuSPARSE's "
      "BF16-in / FP32-out mode; scattered updates would otherwise round a bf16 y once per entry), rounded to bf16 once at the "
      "end. nnz is read from "
      "col_offsets[columns] with a 4-byte device-to-host copy (counted in the time)";
  spec.vendor_abi_cost =
      "nnz is not passed: each call reads col_offsets[columns] with a 4-byte device-to-host copy (one host round trip)";
  spec.params = {int_arg("rows"), int_arg("columns"), in("values"), in("row_indices", Elem::i32), in("col_offsets", Elem::i32),
                 in("x"),         accumulate("y")};
  for (int e = 10; e <= 15; ++e) spec.paper.push_back({{"rows", 2048}, {"cols", int64_t{1} << e}});
  spec.heldout = {{{"rows", 1}, {"cols", 1}},
                  {{"rows", 2048}, {"cols", 1000}},
                  {{"rows", 3001}, {"cols", 777}},
                  {{"rows", 2048}, {"cols", 5000}, {"skew", 1}},
                  {{"rows", 999}, {"cols", 40000}, {"skew", 1}},
                  {{"rows", 50000}, {"cols", 3001}, {"skew", 1}}};
  spec.large = {{{"rows", 2048}, {"cols", int64_t{1} << 20}},
                {{"rows", int64_t{1} << 14}, {"cols", int64_t{1} << 18}},
                {{"rows", int64_t{1} << 13}, {"cols", int64_t{1} << 19}, {"skew", 1}}};
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t rows = s["rows"], cols = s["cols"];
    sp::generate_compressed(cols, rows, sp::is_skewed(s), 0, rng, a[2].data, a[3].data, a[4].data);
    a[0].value = static_cast<double>(rows);
    a[1].value = static_cast<double>(cols);
    a[5].data.resize(static_cast<std::size_t>(cols));
    sp::fill_values(a[5].data, rng);
    a[6].data.resize(static_cast<std::size_t>(rows));
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto rows = static_cast<int64_t>(a[0].value), cols = static_cast<int64_t>(a[1].value);
    const sp::RowGrouped g = sp::group_csc(rows, cols, a[3].data.data(), a[4].data.data(), a[2].data.data());
    sp::spmv_rows(g, a[5].data, a[6].data);
  };
  // A user's matrix (mskb run --matrix FILE.mtx): its CSR as read, converted to CSC; x drawn like the
  // generator's.
  spec.from_matrix = [](const SparseMatrix& m, const Shape&, Precision, Rng& rng, Args& a) {
    sp::Compressed csc = sp::transpose(sp::csr_of(m));
    a[0].value = static_cast<double>(m.rows);
    a[1].value = static_cast<double>(m.cols);
    a[2].data.assign(csc.values.begin(), csc.values.end());
    a[3].data = sp::as_doubles(csc.indices);
    a[4].data = sp::as_doubles(csc.offsets);
    a[5].data.resize(static_cast<std::size_t>(m.cols));
    sp::fill_values(a[5].data, rng);
    a[6].data.resize(static_cast<std::size_t>(m.rows));
  };
  spec.tolerance = [](const Shape& s, Precision p) { return sp::sum_tolerance(sp::csc_row_terms(s), p); };
  // The CPU reference groups the entries by row (serial) before its parallel sums: its GPU reference
  // (reference.cu, the same bits) takes over from about 6 million entries, the large sweep.
  spec.cpu_reference_weight = 16.0;
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(sp::colwise_nnz(s)); };
  // Each entry read once (value + row index), the offsets, x and y once each.
  spec.cost = [](const Shape& s, Precision p) {
    const double nnz = static_cast<double>(sp::colwise_nnz(s)), rb = static_cast<double>(real_bytes(p));
    const double cols = static_cast<double>(s["cols"]), rows = static_cast<double>(s["rows"]);
    return Cost{nnz * (rb + 4.0) + (cols + 1.0) * 4.0 + (cols + rows) * rb, 2.0 * nnz};
  };
}
