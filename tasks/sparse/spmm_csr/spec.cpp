// spmm_csr: Y = A*X with A in CSR format, X and Y dense row-major; Y is overwritten.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(spmm_csr) {
  using namespace mskb;
  namespace sp = mskb::sparse;
  spec.semantics =
      "Y[i][k] = sum over p in [row_offsets[i], row_offsets[i+1]) of values[p] * X[col_indices[p]][k], for every row i "
      "in [0, rows) and k in [0, K): Y = A*X for a sparse rows x cols matrix A in CSR format (0-based int indices; "
      "row_offsets has rows+1 entries, row_offsets[rows] = nnz; column indices sorted and duplicate-free within a row). "
      "X is cols x K and Y is rows x K, both dense row-major (X[c][k] = X[c*K + k]). cols is not passed (2048 in the "
      "paper, other widths elsewhere); K is any positive int (4096 in the paper, not always a multiple of 32). Y is "
      "OVERWRITTEN: every element must be written (0 for the rows of an empty matrix row). rows * K can exceed 2^31 "
      "bytes of output: use 64-bit offsets. Skewed inputs have power-law row lengths (a few completely dense rows, "
      "about 3% empty rows).";
  spec.vendor =
      "cuSPARSE: cusparseSpMM on a CSR descriptor (cusparseCreateConstCsr) with row-major dense X and Y "
      "(CUSPARSE_ORDER_ROW, ld = K), alpha = 1, beta = 0 after zeroing the output; the first algorithm cuSPARSE accepts "
      "of CUSPARSE_SPMM_CSR_ALG2 (row-major), ALG_DEFAULT, CSR_ALG3, CSR_ALG1. bf16: values and X as CUDA_R_16BF with "
      "CUDA_R_32F compute and Y staged in FP32 (cuSPARSE's BF16-in / FP32-out mode; a bf16 output failed the check on an "
      "H200, as from partial sums rounded to bf16 more than once), rounded to bf16 once at the end (a bf16 Y directly "
      "only if cuSPARSE refuses the FP32 output). All of it is counted in the time";
  spec.vendor_abi_cost =
      "nnz and the column count are not passed: each call runs one small kernel that reads row_offsets[rows] and "
      "reduces max(col_indices) + 1, and one 8-byte device-to-host copy (one host round trip)";
  spec.params = {int_arg("rows"), int_arg("K"), in("values"), in("col_indices", Elem::i32), in("row_offsets", Elem::i32),
                 in("X"),         out("Y")};
  for (int e = 10; e <= 18; e += 2) spec.paper.push_back({{"rows", int64_t{1} << e}, {"cols", 2048}, {"K", 4096}});
  spec.heldout = {{{"rows", 1}, {"cols", 1}, {"K", 1}},
                  {{"rows", 1000}, {"cols", 3000}, {"K", 100}},
                  {{"rows", 4097}, {"cols", 2048}, {"K", 33}, {"skew", 1}},
                  {{"rows", 3001}, {"cols", 1500}, {"K", 257}},
                  {{"rows", 20000}, {"cols", 5000}, {"K", 48}, {"skew", 1}}};
  spec.large = {{{"rows", int64_t{1} << 17}, {"cols", int64_t{1} << 14}, {"K", 2048}},
                {{"rows", int64_t{1} << 16}, {"cols", int64_t{1} << 15}, {"K", 4096}},
                {{"rows", int64_t{1} << 16}, {"cols", int64_t{1} << 14}, {"K", 2048}, {"skew", 1}}};
  // The call watchdog also covers the harness's copy and host check of Y. Largest: the paper's rows = 2^18,
  // K = 4096: 2^30 outputs (4 GB in FP32), 20 terms each (2.1e10 multiply-adds for the naive baseline,
  // one thread per output; X, 32 MB, stays in L2): by estimate a second at most for the kernel, but the
  // baseline ran past the default 10 s on an H200 with the check included. The large sweep has at most
  // 2^28 outputs (the skewed shape's dense rows: 16384 terms per thread). 120 s is ample margin.
  spec.call_timeout_s = 120.0;
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t rows = s["rows"], cols = s["cols"], K = s["K"];
    sp::generate_compressed(rows, cols, sp::is_skewed(s), 0, rng, a[2].data, a[3].data, a[4].data);
    a[0].value = static_cast<double>(rows);
    a[1].value = static_cast<double>(K);
    a[5].data.resize(static_cast<std::size_t>(cols * K));
    sp::fill_values(a[5].data, rng);
    a[6].data.resize(static_cast<std::size_t>(rows * K));
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto rows = static_cast<int64_t>(a[0].value), K = static_cast<int64_t>(a[1].value);
    const sp::RowGrouped g = sp::group_csr(rows, a[3].data.data(), a[4].data.data(), a[2].data.data());
    sp::spmm_rows(g, K, a[5].data, a[6].data);
  };
  // A user's matrix (mskb run --matrix FILE.mtx): its CSR as read, X drawn like the generator's (K from
  // the shape: the paper's 4096 unless given).
  spec.from_matrix = [](const SparseMatrix& m, const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t K = s["K"];
    a[0].value = static_cast<double>(m.rows);
    a[1].value = static_cast<double>(K);
    a[2].data.assign(m.values.begin(), m.values.end());
    a[3].data = sp::as_doubles(m.indices);
    a[4].data = sp::as_doubles(m.offsets);
    a[5].data.resize(static_cast<std::size_t>(m.cols * K));
    sp::fill_values(a[5].data, rng);
    a[6].data.resize(static_cast<std::size_t>(m.rows * K));
  };
  spec.tolerance = [](const Shape& s, Precision p) { return sp::sum_tolerance(sp::row_terms(s), p); };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(sp::rowwise_nnz(s) * s["K"]); };
  // The matrix, X and Y once each.
  spec.cost = [](const Shape& s, Precision p) {
    const double nnz = static_cast<double>(sp::rowwise_nnz(s)), rb = static_cast<double>(real_bytes(p));
    const double rows = static_cast<double>(s["rows"]), cols = static_cast<double>(s["cols"]), K = static_cast<double>(s["K"]);
    return Cost{nnz * (rb + 4.0) + (rows + 1.0) * 4.0 + (cols + rows) * K * rb, 2.0 * nnz * K};
  };
}
