// Vendor contender: cuDNN. cudnnConvolutionForward with CUDNN_CROSS_CORRELATION on an NCHW 1x1xHxW input
// and a 1x1xKHxKW filter (no padding, stride 1, one channel), FP32 compute. The algorithm comes from
// cudnnGetConvolutionForwardAlgorithm_v7, restricted to the GEMM-type algorithms (FFT and Winograd are
// skipped: their rounding error grows with the whole image's norm and fails the per-element FP32
// tolerance), with FMA math in FP32 (no TF32). BF16: CUDNN_DATA_BFLOAT16 tensors with FP32 compute; if
// cuDNN has no bf16 engine for the shape, the input and filter are widened to FP32 and the FP32 path is
// used, rounding the output to bf16 once. Large images are processed in bands of output rows (<= 2^25
// outputs, a multiple of 8 rows so every band pointer stays 16-byte aligned).
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "mskb_vendor.cuh"

namespace {

constexpr long long kBand = 1LL << 25;              // outputs per cudnnConvolutionForward call
constexpr size_t kMaxWorkspace = size_t{512} << 20;  // skip algorithms that want more

bool gemm_type(cudnnConvolutionFwdAlgo_t a) {
  return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}

struct Plan {
  cudnnTensorDescriptor_t x{}, y{};
  cudnnFilterDescriptor_t w{};
  cudnnConvolutionDescriptor_t conv{};
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t ws = 0;
  bool usable = false;
  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }
};

// Descriptors and algorithm for one call: input 1x1xHxW, filter 1x1xKHxKW, output 1x1x(H-KH+1)x(W-KW+1).
std::unique_ptr<Plan> make_plan(int h, int w, int kh, int kw, cudnnDataType_t dt) {
  auto p = std::make_unique<Plan>();
  cudnnHandle_t handle = mskb_vendor::cudnn();
  const bool bf16 = dt == CUDNN_DATA_BFLOAT16;
  MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&p->x));
  MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&p->y));
  MSKB_VENDOR_CHECK(cudnnCreateFilterDescriptor(&p->w));
  MSKB_VENDOR_CHECK(cudnnCreateConvolutionDescriptor(&p->conv));
  const cudnnMathType_t math = bf16 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
  if (cudnnSetTensor4dDescriptor(p->x, CUDNN_TENSOR_NCHW, dt, 1, 1, h, w) != CUDNN_STATUS_SUCCESS ||
      cudnnSetFilter4dDescriptor(p->w, dt, CUDNN_TENSOR_NCHW, 1, 1, kh, kw) != CUDNN_STATUS_SUCCESS ||
      cudnnSetTensor4dDescriptor(p->y, CUDNN_TENSOR_NCHW, dt, 1, 1, h - kh + 1, w - kw + 1) != CUDNN_STATUS_SUCCESS ||
      cudnnSetConvolution2dDescriptor(p->conv, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT) !=
          CUDNN_STATUS_SUCCESS ||
      cudnnSetConvolutionMathType(p->conv, math) != CUDNN_STATUS_SUCCESS)
    return p;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int count = 0;
  if (cudnnGetConvolutionForwardAlgorithm_v7(handle, p->x, p->w, p->conv, p->y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count,
                                             perf) == CUDNN_STATUS_SUCCESS) {
    for (int i = 0; i < count; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS || !gemm_type(perf[i].algo)) continue;
      if (!bf16 && (perf[i].mathType == CUDNN_TENSOR_OP_MATH || perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION))
        continue;  // FP32 stays FP32 (no TF32)
      if (bf16 && cudnnSetConvolutionMathType(p->conv, perf[i].mathType) != CUDNN_STATUS_SUCCESS) continue;
      size_t ws = 0;
      if (cudnnGetConvolutionForwardWorkspaceSize(handle, p->x, p->w, p->conv, p->y, perf[i].algo, &ws) !=
              CUDNN_STATUS_SUCCESS ||
          ws > kMaxWorkspace)
        continue;
      p->algo = perf[i].algo;
      p->ws = ws;
      p->usable = true;
      return p;
    }
  }
  if (!bf16) {  // implicit GEMM covers every FP32 configuration
    size_t ws = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(handle, p->x, p->w, p->conv, p->y,
                                                CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws) == CUDNN_STATUS_SUCCESS) {
      p->algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
      p->ws = ws;
      p->usable = true;
    }
  }
  return p;
}

Plan* plan_for(int h, int w, int kh, int kw, cudnnDataType_t dt) {
  static std::map<std::tuple<int, int, int, int, int>, std::unique_ptr<Plan>> cache;
  auto& slot = cache[std::make_tuple(h, w, kh, kw, static_cast<int>(dt))];
  if (!slot) slot = make_plan(h, w, kh, kw, dt);
  return slot.get();
}

template <class T>
cudnnDataType_t dtype_of();
template <>
cudnnDataType_t dtype_of<float>() { return CUDNN_DATA_FLOAT; }
template <>
cudnnDataType_t dtype_of<__nv_bfloat16>() { return CUDNN_DATA_BFLOAT16; }

// output[i][j] = sum_{m,n} input[i+m][j+n] * kernel[m][n], in bands of output rows (each band reads its
// rows + kernel_rows - 1 input rows). Returns false, before writing anything, if cuDNN cannot run it.
template <class T>
bool correlate(const T* input, const T* kernel, T* output, int rows, int cols, int kr, int kc) {
  const long long out_rows = static_cast<long long>(rows) - kr + 1, out_cols = static_cast<long long>(cols) - kc + 1;
  long long band = out_rows;
  if (out_rows * out_cols > kBand) band = std::max(8LL, kBand / out_cols / 8 * 8);
  band = std::min(band, out_rows);
  const long long rest = out_rows % band;
  Plan* full = plan_for(static_cast<int>(band + kr - 1), cols, kr, kc, dtype_of<T>());
  Plan* tail = rest ? plan_for(static_cast<int>(rest + kr - 1), cols, kr, kc, dtype_of<T>()) : nullptr;
  if (!full->usable || (tail && !tail->usable)) return false;
  const float one = 1.0f, zero = 0.0f;
  for (long long r0 = 0; r0 < out_rows; r0 += band) {
    Plan* p = r0 + band <= out_rows ? full : tail;
    void* ws = p->ws ? mskb_vendor::workspace().get(p->ws) : nullptr;
    const cudnnStatus_t st = cudnnConvolutionForward(mskb_vendor::cudnn(), &one, p->x, input + r0 * cols, p->w, kernel,
                                                     p->conv, p->algo, ws, p->ws, &zero, p->y, output + r0 * out_cols);
    if (st != CUDNN_STATUS_SUCCESS && dtype_of<T>() == CUDNN_DATA_BFLOAT16 && r0 == 0) {
      p->usable = false;  // no bf16 engine after all: let the caller widen
      return false;
    }
    MSKB_VENDOR_CHECK(st);
  }
  return true;
}

// FP32 copies for the bf16 fallback, grown on demand and freed at exit.
struct Scratch {
  float* p = nullptr;
  size_t floats = 0;
  float* get(size_t need) {
    if (need > floats) {
      if (p) cudaFree(p);
      p = nullptr;
      MSKB_VENDOR_CHECK(cudaMalloc(&p, need * sizeof(float)));
      floats = need;
    }
    return p;
  }
  ~Scratch() {
    if (p) cudaFree(p);
  }
};

__global__ void widen(const __nv_bfloat16* in, float* out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}
__global__ void narrow(const float* in, __nv_bfloat16* out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}
unsigned blocks_for(long long n) { return static_cast<unsigned>((n + 255) / 256); }

}  // namespace

extern "C" void conv_2d(const float* input, const float* kernel, float* output, int input_rows, int input_cols,
                        int kernel_rows, int kernel_cols) {
  if (kernel_rows <= 0 || kernel_cols <= 0 || input_rows < kernel_rows || input_cols < kernel_cols) return;
  if (!correlate(input, kernel, output, input_rows, input_cols, kernel_rows, kernel_cols))
    MSKB_VENDOR_CHECK(CUDNN_STATUS_NOT_SUPPORTED);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void conv_2d_bf16(const __nv_bfloat16* input, const __nv_bfloat16* kernel, __nv_bfloat16* output,
                             int input_rows, int input_cols, int kernel_rows, int kernel_cols) {
  if (kernel_rows <= 0 || kernel_cols <= 0 || input_rows < kernel_rows || input_cols < kernel_cols) return;
  if (!correlate(input, kernel, output, input_rows, input_cols, kernel_rows, kernel_cols)) {
    const long long n = static_cast<long long>(input_rows) * input_cols, k = static_cast<long long>(kernel_rows) * kernel_cols;
    const long long m = (static_cast<long long>(input_rows) - kernel_rows + 1) * (input_cols - kernel_cols + 1);
    auto round_up = [](long long v) { return (v + 63) / 64 * 64; };  // keep every array 256-byte aligned
    static Scratch scratch;
    float* buf = scratch.get(static_cast<size_t>(round_up(n) + round_up(k) + m));
    float *x = buf, *w = buf + round_up(n), *y = buf + round_up(n) + round_up(k);
    widen<<<blocks_for(n), 256>>>(input, x, n);
    widen<<<blocks_for(k), 256>>>(kernel, w, k);
    if (!correlate<float>(x, w, y, input_rows, input_cols, kernel_rows, kernel_cols))
      MSKB_VENDOR_CHECK(CUDNN_STATUS_NOT_SUPPORTED);
    narrow<<<blocks_for(m), 256>>>(y, output, m);
  }
  MSKB_VENDOR_CHECK(cudaGetLastError());
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
