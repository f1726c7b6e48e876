// FP64 reference of bias_gelu (task.toml): y = gelu(x + bias[col]), exact erf form.
#include <cmath>

#include "mskb_reference.h"

extern "C" void mskb_reference(const mskb_ref_args* a) {
  const double* x = mskb_ref_data(a, "x");
  const double* bias = mskb_ref_data(a, "bias");
  double* y = mskb_ref_data(a, "y");
  const int64_t m = mskb_ref_dim_value(a, "M"), n = mskb_ref_dim_value(a, "N");
  if (!x || !bias || !y) return;  // mskb_ref_data recorded which name is missing
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double v = x[i * n + j] + bias[j];
      y[i * n + j] = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    }
}
