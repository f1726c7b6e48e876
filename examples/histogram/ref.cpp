// Reference of histogram (task.toml): the counts are integers, exact in FP64. The values arrive
// rounded to the entry point's type (float or bfloat16), so bin() sees what the kernel sees; v * B
// is exact in FP64 (and in FP32: B is a power of two), so the bins agree exactly.
#include "mskb_reference.h"

extern "C" void mskb_reference(const mskb_ref_args* a) {
  const double* values = mskb_ref_data(a, "values");
  double* counts = mskb_ref_data(a, "counts");  // arrives zeroed (role accumulate)
  const int64_t n = mskb_ref_length(a, "values"), bins = mskb_ref_length(a, "counts");
  if (!values || !counts) return;  // mskb_ref_data recorded which name is missing
  for (int64_t i = 0; i < n; ++i) {
    const double v = values[i];
    if (!(v >= 0.0 && v <= 1.0)) {
      mskb_ref_fail(a, "a value outside [0, 1]");
      return;
    }
    int64_t b = (int64_t)(v * (double)bins);
    if (b > bins - 1) b = bins - 1;
    counts[b] += 1.0;
  }
}
