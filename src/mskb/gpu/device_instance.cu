#include "mskb/gpu/device_instance.cuh"

#include <cstdint>
#include <utility>

#include "mskb/gpu/check.cuh"

namespace mskb::gpu {

DeviceInstance::DeviceInstance(const TaskSpec& s, Precision p, InstanceLayout l, const std::vector<double>& scalars)
    : spec(&s), precision(p), layout(std::move(l)) {
  const std::size_t np = s.params.size();
  bufs.resize(np);
  pristine.resize(np);
  slots.resize(np);
  for (std::size_t i = 0; i < np; ++i) {
    const Param& q = s.params[i];
    Slot& slot = slots[i];
    if (!q.is_buffer) {
      const double v = i < scalars.size() ? scalars[i] : 0.0;
      switch (q.scalar) {
        case ScalarType::i32: slot.kind = Slot::i32; slot.i = static_cast<int32_t>(v); break;
        case ScalarType::i64: slot.kind = Slot::i64; slot.l = static_cast<int64_t>(v); break;
        case ScalarType::f32: slot.kind = Slot::f32; slot.f = static_cast<float>(v); break;
        case ScalarType::real:
          if (p == Precision::fp32) {
            slot.kind = Slot::f32;
            slot.f = static_cast<float>(v);
          } else {
            slot.kind = Slot::bf16;
            slot.bits = bf16_bits(static_cast<float>(v));
          }
          break;
      }
      continue;
    }
    const BufferPlace& b = layout.params[i];
    bufs[i] = std::make_unique<GuardedBuffer>(b.bytes, layout.guard_bytes);
    slot.kind = Slot::pointer;
    slot.ptr = bufs[i]->data();
    if (q.role == Role::inplace) pristine[i] = std::make_unique<DeviceMemory>(b.bytes);
  }
}

bool DeviceInstance::fits(const InstanceLayout& l) const {
  if (l.params.size() != layout.params.size() || l.guard_bytes != layout.guard_bytes) return false;
  for (std::size_t i = 0; i < l.params.size(); ++i)
    if (l.params[i].buffer != layout.params[i].buffer || l.params[i].bytes != layout.params[i].bytes) return false;
  return true;
}

void DeviceInstance::upload(const unsigned char* input, const std::vector<double>& scalars, cudaMemcpyKind kind) {
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    const Param& q = spec->params[i];
    if (!q.is_buffer) {
      const double v = i < scalars.size() ? scalars[i] : 0.0;
      if (slots[i].kind == Slot::i32) slots[i].i = static_cast<int32_t>(v);
      if (slots[i].kind == Slot::i64) slots[i].l = static_cast<int64_t>(v);
      if (slots[i].kind == Slot::f32) slots[i].f = static_cast<float>(v);
      if (slots[i].kind == Slot::bf16) slots[i].bits = bf16_bits(static_cast<float>(v));
      continue;
    }
    bufs[i]->arm_guards();
    const BufferPlace& b = layout.params[i];
    if (!b.uploaded || b.bytes == 0) continue;
    MSKB_CUDA_CHECK(cudaMemcpy(bufs[i]->data(), input + b.in_offset, b.bytes, kind));
    if (pristine[i]) MSKB_CUDA_CHECK(cudaMemcpy(pristine[i]->get(), input + b.in_offset, b.bytes, kind));
  }
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
}

void DeviceInstance::reset() {
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    if (!bufs[i] || bufs[i]->bytes() == 0) continue;
    switch (spec->params[i].role) {
      case Role::out: MSKB_CUDA_CHECK(cudaMemsetAsync(bufs[i]->data(), kPoisonByte, bufs[i]->bytes(), 0)); break;
      case Role::accumulate: MSKB_CUDA_CHECK(cudaMemsetAsync(bufs[i]->data(), 0, bufs[i]->bytes(), 0)); break;
      case Role::inplace:
        MSKB_CUDA_CHECK(cudaMemcpyAsync(bufs[i]->data(), pristine[i]->get(), bufs[i]->bytes(), cudaMemcpyDeviceToDevice, 0));
        break;
      case Role::in: break;
    }
  }
}

void DeviceInstance::copy_outputs(const OutputTarget& to) const {
  cudaStream_t s{};
  MSKB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaError_t err = cudaSuccess;
  for (std::size_t i = 0; i < bufs.size() && err == cudaSuccess; ++i) {
    if (!bufs[i] || spec->params[i].role == Role::in || bufs[i]->bytes() == 0) continue;
    err = cudaMemcpyAsync(to.data + layout.params[i].out_offset, bufs[i]->data(), bufs[i]->bytes(), to.kind, s);
  }
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  MSKB_CUDA_CHECK(err);
}

void DeviceInstance::copy_inputs_and_guards(const OutputTarget& to) const {
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    if (!bufs[i]) continue;
    const BufferPlace& b = layout.params[i];
    if (spec->params[i].role == Role::in && b.bytes > 0)
      MSKB_CUDA_CHECK(cudaMemcpy(to.data + b.out_offset, bufs[i]->data(), b.bytes, to.kind));
    bufs[i]->copy_guards(to.host + b.guard_offset);
  }
}

}  // namespace mskb::gpu
