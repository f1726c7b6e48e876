// spmv_csr: y = A*x with A in CSR format; y is overwritten.
#include <cstdint>
#include <vector>

#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(spmv_csr) {
  using namespace mskb;
  namespace sp = mskb::sparse;
  spec.semantics =
      "y[i] = sum over p in [row_offsets[i], row_offsets[i+1]) of values[p] * x[col_indices[p]], for every row i in "
      "[0, rows): y = A*x for a sparse rows x cols matrix A in CSR format (0-based int indices; row_offsets has rows+1 "
      "entries, row_offsets[0] = 0, row_offsets[rows] = nnz; column indices sorted and duplicate-free within a row). "
      "x has cols elements; cols is not passed (the paper uses 2048; other inputs have other widths, up to 20000). "
      "y has rows elements and is OVERWRITTEN: every y[i] must be written, including y[i] = 0 for an empty row. "
      "The paper's matrices have round(1% of cols) entries in every row; other inputs are skewed (power-law row "
      "lengths: a few completely dense rows, a short tail, about 3% empty rows).";
  spec.vendor =
      "cuSPARSE: cusparseSpMV on a CSR descriptor (cusparseCreateConstCsr), CUSPARSE_SPMV_CSR_ALG1, alpha = 1, beta = 0 "
      "(y zeroed first); bf16 through CUDA_R_16BF values/vectors with CUDA_R_32F compute. The descriptor's column count "
      "is the bound INT_MAX (a non-transposed SpMV reads x only at the stored column indices, so any bound >= "
      "max(col_indices) + 1 describes the same product): no column-count probe. Under 0.8 of the bandwidth roofline at the large sweep's largest shape (H200, 4aae2a5): fp32 0.73, "
      "bf16 0.60: cuSPARSE's CSR kernel is bound by the gathers of x through col_indices and the per-row "
      "work, not by streaming (bf16 values save 2 of ~10 bytes per nonzero: the bf16 call takes 0.92x the "
      "fp32 call's time)";
  spec.vendor_abi_cost =
      "nnz is not passed: each call reads row_offsets[rows] with a 4-byte device-to-host copy (one host round trip, "
      "about the naive kernel's whole time on the paper sweep)";
  spec.params = {int_arg("rows"), in("values"), in("col_indices", Elem::i32), in("row_offsets", Elem::i32), in("x"), out("y")};
  for (int e = 10; e <= 15; ++e) spec.paper.push_back({{"rows", int64_t{1} << e}, {"cols", 2048}});
  spec.heldout = {{{"rows", 1}, {"cols", 1}},
                  {{"rows", 999}, {"cols", 3001}},
                  {{"rows", 4097}, {"cols", 1500}, {"skew", 1}},
                  {{"rows", 65537}, {"cols", 2048}},
                  {{"rows", 32768}, {"cols", 2048}, {"skew", 1}},
                  {{"rows", 100003}, {"cols", 5000}, {"skew", 1}},
                  {{"rows", 30000}, {"cols", 20000}, {"skew", 1}}};
  spec.large = {{{"rows", int64_t{1} << 21}, {"cols", 2048}},
                {{"rows", int64_t{1} << 22}, {"cols", 2048}},
                {{"rows", int64_t{1} << 22}, {"cols", 2048}, {"skew", 1}},
                {{"rows", int64_t{1} << 20}, {"cols", 16384}}};
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const int64_t rows = s["rows"], cols = s["cols"];
    sp::generate_compressed(rows, cols, sp::is_skewed(s), 0, rng, a[1].data, a[2].data, a[3].data);
    a[0].value = static_cast<double>(rows);
    a[4].data.resize(static_cast<std::size_t>(cols));
    sp::fill_values(a[4].data, rng);
    a[5].data.resize(static_cast<std::size_t>(rows));
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const auto rows = static_cast<int64_t>(a[0].value);
    const sp::RowGrouped g = sp::group_csr(rows, a[2].data.data(), a[3].data.data(), a[1].data.data());
    sp::spmv_rows(g, a[4].data, a[5].data);
  };
  // A row holds per_line(cols) entries (uniform) or up to cols entries (skewed).
  // A user's matrix (mskb run --matrix FILE.mtx): its CSR as read, x drawn like the generator's.
  spec.from_matrix = [](const SparseMatrix& m, const Shape&, Precision, Rng& rng, Args& a) {
    a[0].value = static_cast<double>(m.rows);
    a[1].data.assign(m.values.begin(), m.values.end());
    a[2].data = sp::as_doubles(m.indices);
    a[3].data = sp::as_doubles(m.offsets);
    a[4].data.resize(static_cast<std::size_t>(m.cols));
    sp::fill_values(a[4].data, rng);
    a[5].data.resize(static_cast<std::size_t>(m.rows));
  };
  // A row holds per_line(cols) entries (uniform), up to cols entries (skewed), or a user matrix's
  // longest row. Values of user matrices can exceed 1 in magnitude; the tolerance then also
  // scales with the largest |value| through the reference magnitude (rtol).
  spec.tolerance = [](const Shape& s, Precision p) {
    if (s.has("max_row_nnz")) return sp::sum_tolerance(std::max<int64_t>(1, s["max_row_nnz"]), p);
    return sp::sum_tolerance(sp::is_skewed(s) ? s["cols"] : sp::per_line(s["cols"]), p);
  };
  // Both generators store exactly rows * per_line(cols) entries; a user matrix says its nnz.
  // The CPU reference groups the entries by row (serial) before its parallel sums: its GPU reference
  // (reference.cu, the same bits) takes over from about 6 million entries, the large sweep.
  spec.cpu_reference_weight = 16.0;
  spec.complexity = [](const Shape& s) {
    return static_cast<uint64_t>(std::max<int64_t>(1, s.has("nnz") ? s["nnz"] : sp::total_nnz(s["rows"], s["cols"])));
  };
  // Each entry read once (value + column index), row_offsets, x and y once each.
  spec.cost = [](const Shape& s, Precision p) {
    const double nnz = static_cast<double>(s.has("nnz") ? s["nnz"] : sp::total_nnz(s["rows"], s["cols"])),
                 rb = static_cast<double>(real_bytes(p));
    const double rows = static_cast<double>(s["rows"]), cols = static_cast<double>(s["cols"]);
    return Cost{nnz * (rb + 4.0) + (rows + 1.0) * 4.0 + (cols + rows) * rb, 2.0 * nnz};
  };
}
