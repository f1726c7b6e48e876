// Support for vendor contenders (tasks/*/*/vendor.cu): one lazily created library handle per
// process, destroyed at exit (RAII), and a check macro that names the failing call. Include the
// library's header before this one; only the handles of included libraries are defined.
// The handles are created on the first call, which the harness's warm-up keeps out of the timings.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace mskb_vendor {

inline const char* status_string(cudaError_t e) { return cudaGetErrorString(e); }
#if defined(CUBLAS_API_H_)
inline const char* status_string(cublasStatus_t s) { return cublasGetStatusString(s); }
#endif
#if defined(CUSPARSE_H_)
inline const char* status_string(cusparseStatus_t s) { return cusparseGetErrorString(s); }
#endif
#if defined(CUDNN_H_)
inline const char* status_string(cudnnStatus_t s) { return cudnnGetErrorString(s); }
#endif
#if defined(_CUFFT_H_)
inline const char* status_string(cufftResult s) { return s == CUFFT_SUCCESS ? "CUFFT_SUCCESS" : "cuFFT error"; }
#endif

template <class Status>
inline void check(Status s, Status ok, const char* expr, const char* file, int line) {
  if (s != ok) {
    std::fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, expr, status_string(s), static_cast<int>(s));
    std::abort();  // the harness runs us in a child process and records the crash with this line
  }
}
inline void check_any(cudaError_t s, const char* e, const char* f, int l) { check(s, cudaSuccess, e, f, l); }
#if defined(CUBLAS_API_H_)
inline void check_any(cublasStatus_t s, const char* e, const char* f, int l) { check(s, CUBLAS_STATUS_SUCCESS, e, f, l); }
#endif
#if defined(CUSPARSE_H_)
inline void check_any(cusparseStatus_t s, const char* e, const char* f, int l) { check(s, CUSPARSE_STATUS_SUCCESS, e, f, l); }
#endif
#if defined(CUDNN_H_)
inline void check_any(cudnnStatus_t s, const char* e, const char* f, int l) { check(s, CUDNN_STATUS_SUCCESS, e, f, l); }
#endif
#if defined(_CUFFT_H_)
inline void check_any(cufftResult s, const char* e, const char* f, int l) { check(s, CUFFT_SUCCESS, e, f, l); }
#endif

// A process-wide handle owned by a function-local static: created once, destroyed at exit.
template <class H, class Create, class Destroy>
struct Handle {
  H h{};
  Destroy destroy;
  Handle(Create create, Destroy d) : destroy(d) { check_any(create(&h), "create handle", __FILE__, __LINE__); }
  ~Handle() { destroy(h); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

#if defined(CUBLAS_API_H_)
inline cublasHandle_t cublas() {
  static Handle<cublasHandle_t, decltype(&cublasCreate), decltype(&cublasDestroy)> h(&cublasCreate, &cublasDestroy);
  return h.h;
}
#endif
#if defined(CUSPARSE_H_)
inline cusparseHandle_t cusparse() {
  static Handle<cusparseHandle_t, decltype(&cusparseCreate), decltype(&cusparseDestroy)> h(&cusparseCreate, &cusparseDestroy);
  return h.h;
}
#endif
#if defined(CUDNN_H_)
inline cudnnHandle_t cudnn() {
  static Handle<cudnnHandle_t, decltype(&cudnnCreate), decltype(&cudnnDestroy)> h(&cudnnCreate, &cudnnDestroy);
  return h.h;
}
#endif

// Scratch memory that grows on demand and is freed at exit (vendor libraries need workspaces).
struct Workspace {
  void* ptr = nullptr;
  size_t bytes = 0;
  void* get(size_t need) {
    if (need > bytes) {
      if (ptr) cudaFree(ptr);
      ptr = nullptr;
      check_any(cudaMalloc(&ptr, need), "cudaMalloc(workspace)", __FILE__, __LINE__);
      bytes = need;
    }
    return ptr;
  }
  ~Workspace() {
    if (ptr) cudaFree(ptr);
  }
};
inline Workspace& workspace() {
  static Workspace w;
  return w;
}

}  // namespace mskb_vendor

#define MSKB_VENDOR_CHECK(expr) ::mskb_vendor::check_any((expr), #expr, __FILE__, __LINE__)
