// FP64 GPU reference for spmv_csr (used where the CPU reference's grouping of tens of millions of
// entries takes seconds: the large sweep): tasks/sparse/common/spmv_gpu_reference.cuh.
#include "../common/spmv_gpu_reference.cuh"
#include "mskb/gpu/reference.cuh"

MSKB_GPU_REFERENCE(spmv_csr) {
  namespace sp = mskb::sparse;
  (void)shape;
  (void)precision;
  const auto rows = static_cast<int64_t>(args[0].value);
  sp::spmv_csr_gpu(rows, args[3].data.data(), args[2].data.data(), args[1].data.data(), args[4].data, args[5].data);
}
