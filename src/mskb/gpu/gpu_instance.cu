#include "mskb/gpu/gpu_instance.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "mskb/core/counter_rng.hpp"
#include "mskb/gpu/check.cuh"

namespace mskb::gpu {

namespace {

constexpr int kBlocks = 4096, kThreads = 256;

// An input buffer's counter draws in its element type: float (bytes 4), bf16 (2), or int32 for an
// integer range (set_uniform_inputs allows integer ranges on int32 buffers only).
__global__ void draw_uniform_kernel(void* out, std::size_t n, uint64_t key, UniformRange r, int bytes) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (r.integer) {
      static_cast<int32_t*>(out)[i] = static_cast<int32_t>(counter_draw(key, i, r));
      continue;
    }
    const float f = __double2float_rn(counter_draw(key, i, r));
    if (bytes == 4) static_cast<float*>(out)[i] = f;
    else static_cast<uint16_t*>(out)[i] = bf16_bits_of(__float_as_uint(f));
  }
}

__global__ void widen_kernel(const void* in, double* out, std::size_t n, int bytes) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = load_input(in, i, bytes);
}

struct Stats {
  unsigned long long mismatches, nans, unwritten, max_abs_bits, max_rel_bits;
};

// compare_range (mskb/core/instance.cpp) per element, without FMA contraction: the same verdicts.
__global__ void compare_kernel(const unsigned char* got, int kind, int bytes, bool poison, const double* want, std::size_t n, double atol,
                               double rtol, bool exact, Stats* st) {
  unsigned long long mismatches = 0, nans = 0, unwritten = 0;
  double max_abs = 0.0, max_rel = 0.0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    double g;
    bool all_poison;
    if (bytes == 4) {
      const uint32_t u = reinterpret_cast<const uint32_t*>(got)[i];
      all_poison = u == 0xFFFFFFFFu;
      g = kind == 2 ? static_cast<double>(static_cast<int32_t>(u)) : static_cast<double>(__uint_as_float(u));
    } else {
      const uint16_t u = reinterpret_cast<const uint16_t*>(got)[i];
      all_poison = u == 0xFFFFu;
      g = static_cast<double>(__uint_as_float(static_cast<uint32_t>(u) << 16));
    }
    const double w = want[i];
    bool bad = false;
    if (poison && all_poison) {
      ++unwritten;
      bad = true;
    } else if (isnan(g)) {
      ++nans;
      bad = true;
    } else if (exact) {
      bad = g != w;
      if (bad) max_rel = HUGE_VAL;
    } else if (isinf(w) || isinf(g)) {
      bad = g != w;
    } else {
      const double err = fabs(__dadd_rn(g, -w));
      const double bound = __dadd_rn(atol, __dmul_rn(rtol, fabs(w)));
      max_abs = fmax(max_abs, err);
      max_rel = fmax(max_rel, bound > 0 ? __ddiv_rn(err, bound) : (err > 0 ? HUGE_VAL : 0.0));
      bad = err > bound;
    }
    mismatches += bad ? 1 : 0;
  }
  for (int off = 16; off > 0; off /= 2) {
    mismatches += __shfl_down_sync(0xffffffffu, mismatches, off);
    nans += __shfl_down_sync(0xffffffffu, nans, off);
    unwritten += __shfl_down_sync(0xffffffffu, unwritten, off);
    max_abs = fmax(max_abs, __shfl_down_sync(0xffffffffu, max_abs, off));
    max_rel = fmax(max_rel, __shfl_down_sync(0xffffffffu, max_rel, off));
  }
  if ((threadIdx.x & 31) == 0) {
    if (mismatches) atomicAdd(&st->mismatches, mismatches);
    if (nans) atomicAdd(&st->nans, nans);
    if (unwritten) atomicAdd(&st->unwritten, unwritten);
    // Non-negative doubles order like their bit patterns.
    atomicMax(&st->max_abs_bits, static_cast<unsigned long long>(__double_as_longlong(max_abs)));
    atomicMax(&st->max_rel_bits, static_cast<unsigned long long>(__double_as_longlong(max_rel)));
  }
}

// Sets *differs when a[i] != b[i] for some i (bytes, read as words where both are aligned).
__global__ void bytes_differ_kernel(const unsigned char* a, const unsigned char* b, std::size_t n, int* differs) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  bool bad = false;
  if (reinterpret_cast<std::uintptr_t>(a) % 8 == 0 && reinterpret_cast<std::uintptr_t>(b) % 8 == 0) {
    const std::size_t words = n / 8;
    const auto* wa = reinterpret_cast<const unsigned long long*>(a);
    const auto* wb = reinterpret_cast<const unsigned long long*>(b);
    for (std::size_t i = first; i < words && !bad; i += stride) bad = wa[i] != wb[i];
    for (std::size_t i = words * 8 + first; i < n && !bad; i += stride) bad = a[i] != b[i];
  } else {
    for (std::size_t i = first; i < n && !bad; i += stride) bad = a[i] != b[i];
  }
  if (bad) atomicExch(differs, 1);
}

double from_bits(unsigned long long b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

bool is_input(const Param& q) { return q.is_buffer && (q.role == Role::in || q.role == Role::inplace); }

}  // namespace

bool gpu_compare_possible(const TaskSpec& spec) {
  for (const Param& q : spec.params)
    if (q.is_buffer && q.elem != Elem::real && q.elem != Elem::f32 && q.elem != Elem::i32) return false;
  return true;
}

GpuInstance::GpuInstance(const TaskSpec& spec, Precision p, const InstanceLayout& l, const std::vector<std::size_t>& elements,
                         const unsigned char* input_region, const Args& expected, DeviceOutputs* kept)
    : spec_(spec), p_(p), elements_(elements), in_(spec.params.size()), out_(spec.params.size()) {
  if (!gpu_compare_possible(spec)) throw std::invalid_argument("task " + spec.name + " has buffers the GPU comparison does not know");
  std::size_t scratch = 1;
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const Param& q = spec.params[i];
    const BufferPlace& b = l.params[i];
    if (!q.is_buffer || !b.buffer) continue;
    if (q.role == Role::in) {
      in_[i] = DeviceMemory(std::max<std::size_t>(b.bytes, 1));
      if (b.uploaded && b.bytes > 0) MSKB_CUDA_CHECK(cudaMemcpy(in_[i].get(), input_region + b.in_offset, b.bytes, cudaMemcpyHostToDevice));
      continue;
    }
    const std::size_t n = elements[i];
    scratch = std::max(scratch, b.bytes);
    if (kept != nullptr && i < kept->out.size() && kept->out[i].get() != nullptr) {
      if (kept->out[i].bytes() != n * sizeof(double))
        throw std::invalid_argument("the GPU reference's outputs of '" + q.name + "' do not match the layout");
      out_[i] = std::move(kept->out[i]);
      continue;
    }
    if (expected[i].data.size() != n) throw std::invalid_argument("expected outputs of '" + q.name + "' do not match the layout");
    out_[i] = DeviceMemory(std::max<std::size_t>(n * sizeof(double), 1));
    if (n > 0) MSKB_CUDA_CHECK(cudaMemcpy(out_[i].get(), expected[i].data.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  }
  scratch_bytes_ = scratch;
  stats_ = DeviceMemory(sizeof(Stats));
}

bool gpu_instance_possible(const TaskSpec& spec, const Shape& shape) {
  // The kernels here know float, bf16 and int32 buffers only: an fp16 or int64 buffer (task files
  // only, which have no uniform inputs and no device reference anyway) is never a GPU instance;
  // its instance is generated and compared on the host (compare_encoded).
  return gpu_compare_possible(spec) && spec.uniform_inputs != nullptr && find_device_reference(spec.name) != nullptr &&
         !shape.has("matrix");
}

GpuInstance::GpuInstance(const TaskSpec& spec, Precision p, const Shape& shape, const UniformDraw& draw, const std::vector<double>& scalars,
                         DeviceReferenceFn reference)
    : spec_(spec), p_(p), elements_(draw.elements), in_(spec.params.size()), out_(spec.params.size()) {
  const std::size_t n = spec.params.size();
  DeviceRefArgs d;
  d.in.assign(n, nullptr);
  d.out.assign(n, nullptr);
  d.elements = draw.elements;
  d.scalars = scalars;
  std::size_t scratch = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const Param& q = spec.params[i];
    if (!q.is_buffer) continue;
    const std::size_t count = draw.elements[i];
    const int bytes = static_cast<int>(elem_bytes(q.elem, p));
    if (is_input(q)) {
      in_[i] = DeviceMemory(std::max<std::size_t>(count * static_cast<std::size_t>(bytes), 1));
      draw_uniform_kernel<<<kBlocks, kThreads>>>(in_[i].get(), count, draw.keys[i], draw.ranges[i], bytes);
      MSKB_CUDA_CHECK(cudaGetLastError());
      d.in[i] = in_[i].get();
    }
    if (q.role != Role::in) {
      out_[i] = DeviceMemory(std::max<std::size_t>(count * sizeof(double), 1));
      if (q.role == Role::inplace) widen_kernel<<<kBlocks, kThreads>>>(in_[i].get(), static_cast<double*>(out_[i].get()), count, bytes);
      else MSKB_CUDA_CHECK(cudaMemsetAsync(out_[i].get(), 0, count * sizeof(double), 0));
      MSKB_CUDA_CHECK(cudaGetLastError());
      d.out[i] = static_cast<double*>(out_[i].get());
      scratch = std::max(scratch, count * static_cast<std::size_t>(bytes));
    }
  }
  reference(shape, p, d);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  scratch_bytes_ = scratch;  // allocated when a host region is compared (a device region needs none)
  stats_ = DeviceMemory(sizeof(Stats));
}

void GpuInstance::download_inputs(const InstanceLayout& l, unsigned char* input_region) const {
  for (std::size_t i = 0; i < spec_.params.size(); ++i)
    if (l.params[i].buffer && l.params[i].uploaded && l.params[i].bytes > 0)
      MSKB_CUDA_CHECK(cudaMemcpy(input_region + l.params[i].in_offset, in_[i].get(), l.params[i].bytes, cudaMemcpyDeviceToHost));
}

void GpuInstance::stage_inputs(const InstanceLayout& l, DeviceMemory& staging) const {
  const std::size_t bytes = std::max<std::size_t>(l.input_bytes, 1);
  if (staging.bytes() < bytes) {
    staging = DeviceMemory();
    staging = DeviceMemory(bytes);
  }
  auto* base = static_cast<unsigned char*>(staging.get());
  for (std::size_t i = 0; i < spec_.params.size(); ++i)
    if (l.params[i].buffer && l.params[i].uploaded && l.params[i].bytes > 0)
      MSKB_CUDA_CHECK(cudaMemcpyAsync(base + l.params[i].in_offset, in_[i].get(), l.params[i].bytes, cudaMemcpyDeviceToDevice, 0));
  MSKB_CUDA_CHECK(cudaStreamSynchronize(0));
}

std::string GpuInstance::mutated_input(const InstanceLayout& l, const unsigned char* device_region) const {
  if (!flag_.get()) flag_ = DeviceMemory(sizeof(int));
  for (std::size_t i = 0; i < spec_.params.size(); ++i) {
    const Param& q = spec_.params[i];
    const BufferPlace& b = l.params[i];
    if (!b.buffer || q.role != Role::in || b.bytes == 0) continue;
    MSKB_CUDA_CHECK(cudaMemsetAsync(flag_.get(), 0, sizeof(int), 0));
    bytes_differ_kernel<<<kBlocks, kThreads>>>(device_region + b.out_offset, static_cast<const unsigned char*>(in_[i].get()), b.bytes,
                                               static_cast<int*>(flag_.get()));
    MSKB_CUDA_CHECK(cudaGetLastError());
    int differs = 0;
    MSKB_CUDA_CHECK(cudaMemcpy(&differs, flag_.get(), sizeof differs, cudaMemcpyDeviceToHost));
    if (differs) return q.name;
  }
  return "";
}

CompareResult GpuInstance::compare(const InstanceLayout& l, const unsigned char* output_region, Tolerance tol, bool on_device) const {
  CompareResult r;
  for (std::size_t i = 0; i < spec_.params.size(); ++i) {
    const Param& q = spec_.params[i];
    const BufferPlace& b = l.params[i];
    if (!b.buffer || q.role == Role::in) continue;
    const std::size_t n = elements_[i];
    r.checked += n;
    if (n == 0) continue;
    const unsigned char* got = output_region + b.out_offset;
    if (!on_device) {
      if (scratch_.bytes() < b.bytes) scratch_ = DeviceMemory(scratch_bytes_);
      MSKB_CUDA_CHECK(cudaMemcpy(scratch_.get(), got, b.bytes, cudaMemcpyHostToDevice));
      got = static_cast<const unsigned char*>(scratch_.get());
    }
    MSKB_CUDA_CHECK(cudaMemsetAsync(stats_.get(), 0, sizeof(Stats), 0));
    const int bytes = static_cast<int>(elem_bytes(q.elem, p_));
    compare_kernel<<<kBlocks, kThreads>>>(got, q.elem == Elem::i32 ? 2 : 0, bytes,
                                          q.role == Role::out, static_cast<const double*>(out_[i].get()), n, tol.atol, tol.rtol,
                                          q.elem == Elem::i32, static_cast<Stats*>(stats_.get()));
    MSKB_CUDA_CHECK(cudaGetLastError());
    Stats s{};
    MSKB_CUDA_CHECK(cudaMemcpy(&s, stats_.get(), sizeof s, cudaMemcpyDeviceToHost));
    r.mismatches += s.mismatches;
    r.nans += s.nans;
    r.unwritten += s.unwritten;
    r.max_abs_err = std::max(r.max_abs_err, from_bits(s.max_abs_bits));
    r.max_rel_err = std::max(r.max_rel_err, from_bits(s.max_rel_bits));
    if (s.mismatches > 0 && r.ok) {
      r.ok = false;
      r.param = q.name;
    }
  }
  return r;
}

Args GpuInstance::expected_on_host() const {
  Args a(spec_.params.size());
  for (std::size_t i = 0; i < spec_.params.size(); ++i)
    if (out_[i].get() != nullptr && spec_.params[i].is_buffer && spec_.params[i].role != Role::in) {
      a[i].data.resize(elements_[i]);
      MSKB_CUDA_CHECK(cudaMemcpy(a[i].data.data(), out_[i].get(), elements_[i] * sizeof(double), cudaMemcpyDeviceToHost));
    }
  return a;
}

}  // namespace mskb::gpu
