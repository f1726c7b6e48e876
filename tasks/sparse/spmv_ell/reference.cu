// FP64 GPU reference for spmv_ell (used where the CPU reference's grouping of tens of millions of
// entries takes seconds: the large sweep): tasks/sparse/common/spmv_gpu_reference.cuh.
#include "../common/spmv_gpu_reference.cuh"
#include "mskb/gpu/reference.cuh"

MSKB_GPU_REFERENCE(spmv_ell) {
  namespace sp = mskb::sparse;
  (void)shape;
  (void)precision;
  const auto rows = static_cast<int64_t>(args[0].value), width = static_cast<int64_t>(args[1].value);
  sp::spmv_ell_gpu(rows, width, args[3].data.data(), args[2].data.data(), args[4].data, args[5].data);
}
