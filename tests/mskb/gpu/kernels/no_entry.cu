// Bad input: compiles, but exports the wrong name -> missing_entry.
#include <cuda_runtime.h>
extern "C" void vectoradd(const float* A, const float* B, float* C, int N) { (void)A; (void)B; (void)C; (void)N; }
