#include "mskb/gpu/reference.cuh"

#include <algorithm>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"

namespace mskb::gpu {

GpuReferenceFn find_gpu_reference(const std::string& task) {
  for (const auto& [name, fn] : gpu_references())
    if (name == task) return fn;
  return nullptr;
}

DeviceReferenceFn find_device_reference(const std::string& task) {
  for (const auto& [name, fn] : device_references())
    if (name == task) return fn;
  return nullptr;
}

void run_device_reference(const std::string& task, DeviceReferenceFn fn, const Shape& shape, Precision p, Args& args, DeviceOutputs* keep) {
  const TaskSpec& spec = get_task(task);
  const std::size_t n = spec.params.size();
  DeviceRefArgs d;
  d.in.assign(n, nullptr);
  d.out.assign(n, nullptr);
  d.elements.assign(n, 0);
  d.scalars.assign(n, 0.0);
  std::vector<DeviceMemory> mem(2 * n);
  // The inputs in their element types, as the candidate gets them.
  std::vector<std::size_t> elements;
  for (const Arg& a : args) elements.push_back(a.data.size());
  const InstanceLayout l = instance_layout(spec, p, elements, 0);
  std::vector<unsigned char> host(l.input_bytes + 1);
  encode_inputs(spec, p, args, l, host.data());
  for (std::size_t i = 0; i < n; ++i) {
    const Param& q = spec.params[i];
    if (!q.is_buffer) {
      d.scalars[i] = args[i].value;
      continue;
    }
    const HostData& v = args[i].data;
    d.elements[i] = v.size();
    if (l.params[i].uploaded) {
      mem[2 * i] = DeviceMemory(std::max<std::size_t>(l.params[i].bytes, 1));
      MSKB_CUDA_CHECK(cudaMemcpy(mem[2 * i].get(), host.data() + l.params[i].in_offset, l.params[i].bytes, cudaMemcpyHostToDevice));
      d.in[i] = mem[2 * i].get();
    }
    if (q.role != Role::in) {
      mem[2 * i + 1] = DeviceMemory(std::max<std::size_t>(v.size() * sizeof(double), 1));
      if (q.role == Role::inplace)
        MSKB_CUDA_CHECK(cudaMemcpy(mem[2 * i + 1].get(), v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice));
      else
        MSKB_CUDA_CHECK(cudaMemset(mem[2 * i + 1].get(), 0, v.size() * sizeof(double)));
      d.out[i] = static_cast<double*>(mem[2 * i + 1].get());
    }
  }
  fn(shape, p, d);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t i = 0; i < n; ++i) {
    if (d.out[i] == nullptr) continue;
    if (keep != nullptr && i < keep->out.size()) {
      keep->out[i] = std::move(mem[2 * i + 1]);
      continue;
    }
    args[i].data.resize(d.elements[i]);
    MSKB_CUDA_CHECK(cudaMemcpy(args[i].data.data(), d.out[i], d.elements[i] * sizeof(double), cudaMemcpyDeviceToHost));
  }
}

}  // namespace mskb::gpu
