// Reference of row_argmax (task.toml). x arrives as the FP64 values of its halves (exact), so these
// comparisons are the kernel's; the index is an integer, exact in FP64.
#include "mskb_reference.h"

extern "C" void mskb_reference(const mskb_ref_args* a) {
  const double* x = mskb_ref_data(a, "x");
  double* vmax = mskb_ref_data(a, "vmax");
  double* idx = mskb_ref_data(a, "idx");
  const int64_t m = mskb_ref_dim_value(a, "M"), n = mskb_ref_dim_value(a, "N");
  if (!x || !vmax || !idx) return;  // mskb_ref_data recorded which name is missing
#pragma omp parallel for
  for (int64_t r = 0; r < m; ++r) {
    const double* row = x + r * n;
    int64_t best = 0;
    for (int64_t j = 1; j < n; ++j)
      if (row[j] > row[best]) best = j;  // strictly greater: the first maximum stays
    vmax[r] = row[best];
    idx[r] = (double)best;
  }
}
