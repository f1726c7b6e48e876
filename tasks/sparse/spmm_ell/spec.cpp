// spmm_ell: Y = A*X with A in row-major ELL format (padding col = -1), X and Y dense row-major;
// Y is overwritten.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(spmm_ell) {
  using namespace mskb;
  namespace sp = mskb::sparse;
  spec.semantics =
      "Y[i][k] = sum over s in [0, max_nnz_per_row) with c = col_ids[i*max_nnz_per_row + s] >= 0 of "
      "values[i*max_nnz_per_row + s] * X[c][k], for every row i in [0, rows) and k in [0, K): Y = A*X for a sparse "
      "matrix A in row-major ELL format (rows x max_nnz_per_row slots, 0-based int column ids). Padding slots have "
      "col_ids = -1 (and value 0) and must be skipped; padding can sit anywhere in a row, not only after its entries. "
      "X is cols x K and Y is rows x K, both dense row-major (X[c][k] = X[c*K + k]); cols is not passed (2^10..2^14 in "
      "the paper); K is any positive int (4096 in the paper, not always a multiple of 32). Y is OVERWRITTEN: every "
      "element must be written (0 for a row of padding only). In the paper's matrices every row holds 3/4 to all of "
      "max_nnz_per_row = round(1% of cols) entries; skewed inputs have power-law row lengths and scattered padding.";
  spec.vendor =
      "cuSPARSE (Blocked-ELL with block size 1 could take these arrays as they are, but it is built for large "
      "tensor-core blocks and does not document empty (-1) blocks before valid ones in a row, so the CSR route is "
      "used): the call "
      "compacts the ELL slots into CSR on the device (count kernel, CUB exclusive scan, pack kernel; also finds the "
      "column count and nnz, one 8-byte copy) and runs cusparseSpMM on the CSR descriptor with row-major X and Y "
      "(ld = K), alpha = 1, beta = 0 after zeroing the output; the first algorithm cuSPARSE accepts of CSR_ALG2, "
      "ALG_DEFAULT, CSR_ALG3, CSR_ALG1. bf16: values and X as CUDA_R_16BF with CUDA_R_32F compute and Y staged in FP32 "
      "(cuSPARSE's BF16-in / FP32-out mode; a bf16 output failed the check on an H200, as from partial sums rounded to "
      "bf16 more than once), rounded to bf16 once at the end (a bf16 Y directly only if cuSPARSE refuses the FP32 "
      "output). The conversion and the staging are counted in the time";
  spec.vendor_abi_cost =
      "ELL with padding anywhere in a row is a format cuSPARSE's SpMM does not take (it takes COO, CSR, CSC, BSR and "
      "Blocked-ELL): each call compacts the slots into CSR (a count kernel that also finds the largest column id, a CUB "
      "exclusive scan, a pack kernel, and an 8-byte device-to-host copy for nnz and the column count), which a real "
      "application does once";
  spec.params = {int_arg("rows"), int_arg("max_nnz_per_row"), int_arg("K"), in("values"), in("col_ids", Elem::i32), in("X"),
                 out("Y")};
  for (int e = 10; e <= 14; ++e) spec.paper.push_back({{"rows", 2048}, {"cols", int64_t{1} << e}, {"K", 4096}});
  spec.heldout = {{{"rows", 1}, {"cols", 1}, {"K", 1}},
                  {{"rows", 2048}, {"cols", 1000}, {"K", 100}},
                  {{"rows", 3001}, {"cols", 4099}, {"K", 33}},
                  {{"rows", 2048}, {"cols", 5000}, {"K", 257}, {"skew", 1}},
                  {{"rows", 777}, {"cols", 20000}, {"K", 48}, {"skew", 1}}};
  spec.large = {{{"rows", int64_t{1} << 16}, {"cols", 4096}, {"K", 2048}},
                {{"rows", int64_t{1} << 15}, {"cols", int64_t{1} << 14}, {"K", 1024}, {"skew", 1}}};
  // The call watchdog also covers the harness's copy and host check of Y. Largest: rows = 2^16, K = 2048
  // (2^27 outputs, 41 slots each) and the skewed 2^15 x 1024 (2^25 outputs, 1312 slots each, about 4.4e10
  // slot visits): the naive baseline (one thread per output walking every slot) takes by estimate a
  // second at most; 60 s is ample margin.
  spec.call_timeout_s = 60.0;
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t rows = s["rows"], cols = s["cols"], K = s["K"];
    const int64_t width = sp::generate_ell(rows, cols, sp::is_skewed(s), rng, a[3].data, a[4].data);
    a[0].value = static_cast<double>(rows);
    a[1].value = static_cast<double>(width);
    a[2].value = static_cast<double>(K);
    a[5].data.resize(static_cast<std::size_t>(cols * K));
    sp::fill_values(a[5].data, rng);
    a[6].data.resize(static_cast<std::size_t>(rows * K));
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto rows = static_cast<int64_t>(a[0].value), width = static_cast<int64_t>(a[1].value),
               K = static_cast<int64_t>(a[2].value);
    const sp::RowGrouped g = sp::group_ell(rows, width, a[4].data.data(), a[3].data.data());
    sp::spmm_rows(g, K, a[5].data, a[6].data);
  };
  // A user's matrix (mskb run --matrix FILE.mtx): ELL as wide as its longest row, padding at the row
  // ends; X drawn like the generator's (K from the shape: the paper's 4096 unless given).
  spec.from_matrix = [](const SparseMatrix& m, const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t K = s["K"];
    sp::Ell e = sp::ell_from_csr(sp::csr_of(m), std::max<int64_t>(1, m.max_row_nnz()), false, rng);
    a[0].value = static_cast<double>(m.rows);
    a[1].value = static_cast<double>(e.width);
    a[2].value = static_cast<double>(K);
    a[3].data.assign(e.val.begin(), e.val.end());
    a[4].data = sp::as_doubles(e.col);
    a[5].data.resize(static_cast<std::size_t>(m.cols * K));
    sp::fill_values(a[5].data, rng);
    a[6].data.resize(static_cast<std::size_t>(m.rows * K));
  };
  spec.tolerance = [](const Shape& s, Precision p) { return sp::sum_tolerance(sp::ell_width_of(s), p); };
  // Stored slots (padding included) times K: what an ELL kernel walks.
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["rows"] * sp::ell_width_of(s) * s["K"]); };
  // Every slot (value + column id), X and Y once each.
  spec.cost = [](const Shape& s, Precision p) {
    const double slots = static_cast<double>(s["rows"] * sp::ell_width_of(s));
    const double rb = static_cast<double>(real_bytes(p)), K = static_cast<double>(s["K"]);
    return Cost{slots * (rb + 4.0) + static_cast<double>(s["cols"] + s["rows"]) * K * rb, 2.0 * slots * K};
  };
}
