// FP64 reference of data/demo/vadd/task.toml and tests/mskb/core/data/vector_add.toml: C = A + B
// (as tasks/algebra/vector_add computes it).
#include "mskb_reference.h"

extern "C" void mskb_reference(const mskb_ref_args* args) {
  const double* a = mskb_ref_data(args, "A");
  const double* b = mskb_ref_data(args, "B");
  double* c = mskb_ref_data(args, "C");
  if (!a || !b || !c) return;
  const int64_t n = mskb_ref_length(args, "C");
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
