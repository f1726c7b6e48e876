// Owns the registry of FP64 GPU references (tasks/*/*/reference.cu), used instead of the CPU
// reference where the CPU one would take too long (large GEMMs, attention). Each is checked
// against the CPU reference on small shapes by a gpu-labelled test.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mskb/core/task.hpp"

namespace mskb::gpu {

// Reads the inputs in `a` (host, FP64), writes the outputs like TaskSpec::reference.
using GpuReferenceFn = void (*)(const Shape&, Precision, Args&);
const std::vector<std::pair<std::string, GpuReferenceFn>>& gpu_references();
GpuReferenceFn find_gpu_reference(const std::string& task);

}  // namespace mskb::gpu

#define MSKB_GPU_REFERENCE(task) \
  void mskb_gpu_reference_##task(const ::mskb::Shape& shape, ::mskb::Precision precision, ::mskb::Args& args)
