// spmm_csc: Y += A*X with A in CSC format, X and Y dense row-major; Y accumulates.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(spmm_csc) {
  using namespace mskb;
  namespace sp = mskb::sparse;
  spec.semantics =
      "Y += A*X for a sparse rows x columns matrix A in CSC format (0-based int indices): for every column j in "
      "[0, columns), every p in [col_offsets[j], col_offsets[j+1]) and every k in [0, K), Y[row_indices[p]][k] += "
      "values[p] * X[j][k]. col_offsets has columns + 1 entries (col_offsets[columns] = nnz); row indices are sorted "
      "and distinct within a column; columns may be empty. X is columns x K and Y is rows x K, both dense row-major "
      "(X[j][k] = X[j*K + k]); K is any positive int (4096 in the paper, not always a multiple of 32); rows is 2048 in "
      "the paper but can be anything. Y ACCUMULATES: the caller zeroes it before the call; different columns update "
      "the same Y rows, so a column-parallel kernel needs atomics. Skewed inputs have a few completely dense columns.";
  spec.vendor =
      "cuSPARSE: cusparseCsr2cscEx2 turns the CSC arrays (the CSR arrays of A^T) into the CSR arrays of A, then "
      "cusparseSpMM on that CSR descriptor with row-major dense X and Y (CUSPARSE_ORDER_ROW, ld = K), alpha = 1, beta = 1 "
      "(Y accumulates); CUSPARSE_SPMM_CSR_ALG2, else the first accepted of ALG_DEFAULT, CSR_ALG3, CSR_ALG1. bf16: values "
      "and X as CUDA_R_16BF with CUDA_R_32F compute and Y staged in FP32 (cuSPARSE's BF16-in / FP32-out mode), rounded to "
      "bf16 once at the end. Rejected: cusparseSpMM on the CSC descriptor itself (the transposed scatter kernel, one "
      "atomic add per entry and output column: P 0.83..1.1 on the H200)";
  spec.vendor_abi_cost =
      "nnz is not passed (one 4-byte device-to-host copy of col_offsets[columns]) and the matrix comes in CSC, which "
      "the row-parallel SpMM does not take: each call converts it to CSR (cusparseCsr2cscEx2, O(nnz)), which a real "
      "application does once";
  spec.params = {
      int_arg("rows"), int_arg("columns"), int_arg("K"), in("values"), in("row_indices", Elem::i32), in("col_offsets", Elem::i32),
      in("X"),         accumulate("Y")};
  for (int e = 10; e <= 14; ++e) spec.paper.push_back({{"rows", 2048}, {"cols", int64_t{1} << e}, {"K", 4096}});
  spec.heldout = {{{"rows", 1}, {"cols", 1}, {"K", 1}},
                  {{"rows", 2048}, {"cols", 1000}, {"K", 100}},
                  {{"rows", 3001}, {"cols", 777}, {"K", 33}},
                  {{"rows", 2048}, {"cols", 5000}, {"K", 257}, {"skew", 1}},
                  {{"rows", 999}, {"cols", 20000}, {"K", 48}, {"skew", 1}}};
  spec.large = {{{"rows", 2048}, {"cols", int64_t{1} << 17}, {"K", 1024}},
                {{"rows", int64_t{1} << 14}, {"cols", int64_t{1} << 16}, {"K", 512}, {"skew", 1}}};
  // The call watchdog also covers the harness's copy and host check of Y. Largest: the skewed
  // 2^14 x 2^16, K = 512 (about 5.5e9 atomic adds, a dense column's thread 16384 of them in sequence) and
  // 2048 x 2^17, K = 1024 (about 2.7e9 atomic adds into 2^21 outputs, ~1280 per output): the naive
  // baseline (one thread per (column, k)) takes by estimate a second at most; 60 s is ample margin.
  spec.call_timeout_s = 60.0;
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t rows = s["rows"], cols = s["cols"], K = s["K"];
    sp::generate_compressed(cols, rows, sp::is_skewed(s), 0, rng, a[3].data, a[4].data, a[5].data);
    a[0].value = static_cast<double>(rows);
    a[1].value = static_cast<double>(cols);
    a[2].value = static_cast<double>(K);
    a[6].data.resize(static_cast<std::size_t>(cols * K));
    sp::fill_values(a[6].data, rng);
    a[7].data.resize(static_cast<std::size_t>(rows * K));
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto rows = static_cast<int64_t>(a[0].value), cols = static_cast<int64_t>(a[1].value),
               K = static_cast<int64_t>(a[2].value);
    const sp::RowGrouped g = sp::group_csc(rows, cols, a[4].data.data(), a[5].data.data(), a[3].data.data());
    sp::spmm_rows(g, K, a[6].data, a[7].data);
  };
  // A user's matrix (mskb run --matrix FILE.mtx): its CSR as read, converted to CSC; X drawn like the
  // generator's (K from the shape: the paper's 4096 unless given).
  spec.from_matrix = [](const SparseMatrix& m, const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t K = s["K"];
    sp::Compressed csc = sp::transpose(sp::csr_of(m));
    a[0].value = static_cast<double>(m.rows);
    a[1].value = static_cast<double>(m.cols);
    a[2].value = static_cast<double>(K);
    a[3].data.assign(csc.values.begin(), csc.values.end());
    a[4].data = sp::as_doubles(csc.indices);
    a[5].data = sp::as_doubles(csc.offsets);
    a[6].data.resize(static_cast<std::size_t>(m.cols * K));
    sp::fill_values(a[6].data, rng);
    a[7].data.resize(static_cast<std::size_t>(m.rows * K));
  };
  spec.tolerance = [](const Shape& s, Precision p) { return sp::sum_tolerance(sp::csc_row_terms(s), p); };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(sp::colwise_nnz(s) * s["K"]); };
  // The matrix (values, row indices, offsets), X and Y once each.
  spec.cost = [](const Shape& s, Precision p) {
    const double nnz = static_cast<double>(sp::colwise_nnz(s)), rb = static_cast<double>(real_bytes(p));
    const double rows = static_cast<double>(s["rows"]), cols = static_cast<double>(s["cols"]), K = static_cast<double>(s["K"]);
    return Cost{nnz * (rb + 4.0) + (cols + 1.0) * 4.0 + (cols + rows) * K * rb, 2.0 * nnz * K};
  };
}
