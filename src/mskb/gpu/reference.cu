#include "mskb/gpu/reference.cuh"

namespace mskb::gpu {

GpuReferenceFn find_gpu_reference(const std::string& task) {
  for (const auto& [name, fn] : gpu_references())
    if (name == task) return fn;
  return nullptr;
}

}  // namespace mskb::gpu
