// spmm_coo: Y += A*X with A in COO format (unsorted entries), X and Y dense row-major; Y accumulates.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(spmm_coo) {
  using namespace mskb;
  namespace sp = mskb::sparse;
  spec.semantics =
      "Y[row_indices[e]][k] += values[e] * X[col_indices[e]][k] for every stored entry e in [0, nnz) and k in [0, K): "
      "Y += A*X for a sparse rows x cols matrix A in COO format (0-based int indices). Entries are in no particular "
      "order (entries 0..rows-1 hold one entry of each row, the rest follow in random order; no (row, col) pair "
      "repeats), so many entries update the same Y row and concurrent updates must not be lost (atomics, or a sort). "
      "X is cols x K and Y is rows x K, both dense row-major (X[c][k] = X[c*K + k]); cols is not passed (2048 in the "
      "paper, other widths elsewhere); K is any positive int (4096 in the paper, not always a multiple of 32). Y "
      "ACCUMULATES: the caller zeroes it before the call. Use 64-bit offsets (nnz * K exceeds 2^31). Skewed inputs "
      "have a few completely dense rows.";
  spec.vendor =
      "cuSPARSE: cusparseSpMM on a COO descriptor (cusparseCreateConstCoo) of a row-sorted copy of the entries: cuSPARSE's "
      "COO format requires entries sorted by row (it gave wrong results for the unsorted ones on an H200), so each call "
      "first sorts them on the device (CUB radix sort of packed (row, col) keys with the entry index, then a gather of "
      "rows, columns and values); row-major dense X and Y (CUSPARSE_ORDER_ROW, ld = K), alpha = 1, beta = 1 (Y "
      "accumulates); the first algorithm cuSPARSE accepts of CUSPARSE_SPMM_COO_ALG4 (row-major), ALG_DEFAULT, COO_ALG2, "
      "COO_ALG1, COO_ALG3; if none accepts the configuration (mixed precision), row offsets are found on the device from "
      "the sorted rows and cusparseSpMM runs on CSR. bf16: values and X as CUDA_R_16BF with CUDA_R_32F compute and Y "
      "staged in FP32 (cuSPARSE's BF16-in / FP32-out mode; a row's partial sums may be added to Y in several updates, "
      "each of which would round a bf16 Y), rounded to bf16 once at the end. The probe, sort and gather are counted in the time";
  spec.vendor_abi_cost =
      "the entries come unsorted, which cuSPARSE's COO format does not take: each call sorts them (CUB radix sort of "
      "(row, col) keys with the entry index, then a gather), which a real application does once; the column count is "
      "not passed (it sizes the sort keys and the X descriptor): a max-reduction over col_indices and a 4-byte "
      "device-to-host copy";
  spec.params = {
      int_arg("rows"), int_arg("nnz"), int_arg("K"), in("values"), in("row_indices", Elem::i32), in("col_indices", Elem::i32),
      in("X"),         accumulate("Y")};
  for (int e = 8; e <= 16; e += 2) spec.paper.push_back({{"rows", int64_t{1} << e}, {"cols", 2048}, {"K", 4096}});
  spec.heldout = {{{"rows", 1}, {"cols", 1}, {"K", 1}},
                  {{"rows", 999}, {"cols", 3001}, {"K", 100}},
                  {{"rows", 4097}, {"cols", 1500}, {"K", 33}, {"skew", 1}},
                  {{"rows", 3001}, {"cols", 2048}, {"K", 257}},
                  {{"rows", 20000}, {"cols", 5000}, {"K", 48}, {"skew", 1}}};
  spec.large = {{{"rows", int64_t{1} << 17}, {"cols", 4096}, {"K", 2048}},
                {{"rows", int64_t{1} << 16}, {"cols", int64_t{1} << 14}, {"K", 2048}, {"skew", 1}}};
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t rows = s["rows"], cols = s["cols"], K = s["K"];
    sp::generate_coo(rows, cols, sp::is_skewed(s), rng, a[3].data, a[4].data, a[5].data);
    a[0].value = static_cast<double>(rows);
    a[1].value = static_cast<double>(a[3].data.size());
    a[2].value = static_cast<double>(K);
    a[6].data.resize(static_cast<std::size_t>(cols * K));
    sp::fill_values(a[6].data, rng);
    a[7].data.resize(static_cast<std::size_t>(rows * K));
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto rows = static_cast<int64_t>(a[0].value), nnz = static_cast<int64_t>(a[1].value),
               K = static_cast<int64_t>(a[2].value);
    const sp::RowGrouped g = sp::group_coo(rows, a[4].data.data(), a[5].data.data(), a[3].data.data(), nnz);
    sp::spmm_rows(g, K, a[6].data, a[7].data);
  };
  // A user's matrix (mskb run --matrix FILE.mtx): its entries in COO order (one per row first when no
  // row is empty, the rest shuffled), X drawn like the generator's (K from the shape).
  spec.from_matrix = [](const SparseMatrix& m, const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t K = s["K"];
    sp::Coo coo = sp::coo_for_user(sp::csr_of(m), rng);
    a[0].value = static_cast<double>(m.rows);
    a[1].value = static_cast<double>(coo.val.size());
    a[2].value = static_cast<double>(K);
    a[3].data.assign(coo.val.begin(), coo.val.end());
    a[4].data = sp::as_doubles(coo.row);
    a[5].data = sp::as_doubles(coo.col);
    a[6].data.resize(static_cast<std::size_t>(m.cols * K));
    sp::fill_values(a[6].data, rng);
    a[7].data.resize(static_cast<std::size_t>(m.rows * K));
  };
  spec.tolerance = [](const Shape& s, Precision p) { return sp::sum_tolerance(sp::row_terms(s), p); };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(sp::rowwise_nnz(s) * s["K"]); };
  // The entries (value + two indices), X and Y once each.
  spec.cost = [](const Shape& s, Precision p) {
    const double nnz = static_cast<double>(sp::rowwise_nnz(s)), rb = static_cast<double>(real_bytes(p));
    const double rows = static_cast<double>(s["rows"]), cols = static_cast<double>(s["cols"]), K = static_cast<double>(s["K"]);
    return Cost{nnz * (rb + 8.0) + (cols + rows) * K * rb, 2.0 * nnz * K};
  };
}
