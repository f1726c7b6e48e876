// A small runner for cuDNN graph (backend) API pointwise chains over a flat vector of N elements,
// shared by the activation tasks' vendor contenders (kernels/include is on every kernel build's include path). The cuDNN frontend C++
// headers are not part of the toolkit, so this talks to the backend descriptors directly.
// Per (chain, N, data type, parameters) it builds the operation graph once, asks the heuristics
// (mode A, then FALLBACK) for engine configurations, keeps the fastest execution plan that
// finalizes AND runs (trial executions on the first call's buffers), and caches it; a call then only builds
// a variant pack and executes on the handle's stream (the legacy default stream). Several 3-D and
// 4-D views of the vector are tried, because the pointwise engines accept only some layouts and run
// well on fewer: surveyed on the H200 with cuDNN 9.14 (scripts/diag/cudnn_pw_engines.cu, N = 2^24)
// only engine 1 ran, on two views: rows of 1024 at 2.0-3.2 TB/s, the (1, N, 1) view at 23-120 GB/s
// (GELU / leaky RELU / SELU vendors stuck on that view ran at 1-6% of the roofline). So rows come
// first, and an N that is not a multiple of 1024 runs as rows plus a plan for the remainder; where
// no engine runs at N, the vector is processed in the largest power-of-two chunks one does run on.
#pragma once

#include <cuda_runtime.h>
#include <cudnn.h>

#include <cfloat>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mskb_vendor.cuh"

namespace mskb_pw {

// One pointwise node: value = mode(value [, scalar]). `param` is the RELU lower-clip slope or the
// ELU alpha; `scalar_rhs` makes the node binary with the call's by-value FP32 scalar as second operand.
struct Node {
  cudnnPointwiseMode_t mode;
  double param;
  bool scalar_rhs;
};

class Desc {  // owns one backend descriptor
 public:
  explicit Desc(cudnnBackendDescriptorType_t t) {
    if (cudnnBackendCreateDescriptor(t, &d_) != CUDNN_STATUS_SUCCESS) d_ = nullptr;
  }
  ~Desc() {
    if (d_) cudnnBackendDestroyDescriptor(d_);
  }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

struct Plan {
  std::vector<std::unique_ptr<Desc>> keep;  // tensors, ops, graph, heuristics, configs
  cudnnBackendDescriptor_t plan = nullptr;  // owned by one of `keep`
  int64_t workspace = 0;
  float ms = FLT_MAX;  // its time on the first call's buffers (engine selection)
};

// Exact text of a parameter for cache keys ("%a": no two doubles share one).
inline std::string key_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

constexpr int64_t kUidX = 1, kUidY = 2, kUidScalar = 3, kUidVirtual = 100;

inline bool set_attr(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, int64_t count,
                     const void* v) {
  return cudnnBackendSetAttribute(d, n, t, count, v) == CUDNN_STATUS_SUCCESS;
}

// The handle attributes are deprecated in cuDNN 9 (still honoured); a refusal is not fatal here,
// the finalize that follows decides.
inline void set_handle(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t n, cudnnHandle_t handle) {
  (void)cudnnBackendSetAttribute(d, n, CUDNN_TYPE_HANDLE, 1, &handle);
}

inline cudnnBackendDescriptor_t make(Plan& p, cudnnBackendDescriptorType_t t) {
  p.keep.push_back(std::make_unique<Desc>(t));
  return p.keep.back()->get();
}

inline cudnnBackendDescriptor_t make_tensor(Plan& p, int64_t uid, cudnnDataType_t type, const std::vector<int64_t>& dims,
                                            const std::vector<int64_t>& strides, bool is_virtual, bool by_value) {
  cudnnBackendDescriptor_t d = make(p, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  if (!d) return nullptr;
  const int64_t alignment = 16;
  const auto rank = static_cast<int64_t>(dims.size());
  const bool ok = set_attr(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type) &&
                  set_attr(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, rank, dims.data()) &&
                  set_attr(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, rank, strides.data()) &&
                  set_attr(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid) &&
                  set_attr(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment) &&
                  set_attr(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual) &&
                  (!by_value || set_attr(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value)) &&
                  cudnnBackendFinalize(d) == CUDNN_STATUS_SUCCESS;
  return ok ? d : nullptr;
}

inline cudnnBackendDescriptor_t make_pointwise_op(Plan& p, const Node& node, cudnnBackendDescriptor_t x,
                                                  cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t y) {
  cudnnBackendDescriptor_t pw = make(p, CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  if (!pw) return nullptr;
  const cudnnDataType_t math = CUDNN_DATA_FLOAT;
  bool ok = set_attr(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &node.mode) &&
            set_attr(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &math);
  if (ok && node.mode == CUDNN_POINTWISE_RELU_FWD) {
    const double lower = 0.0, upper = static_cast<double>(FLT_MAX), slope = node.param;
    ok = set_attr(pw, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, 1, &lower) &&
         set_attr(pw, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1, &upper) &&
         set_attr(pw, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, CUDNN_TYPE_DOUBLE, 1, &slope);
  } else if (ok && node.mode == CUDNN_POINTWISE_ELU_FWD) {
    const double alpha = node.param;
    ok = set_attr(pw, CUDNN_ATTR_POINTWISE_ELU_ALPHA, CUDNN_TYPE_DOUBLE, 1, &alpha);
  }
  if (!ok || cudnnBackendFinalize(pw) != CUDNN_STATUS_SUCCESS) return nullptr;
  cudnnBackendDescriptor_t op = make(p, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  if (!op) return nullptr;
  ok = set_attr(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw) &&
       set_attr(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x) &&
       (!b || set_attr(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b)) &&
       set_attr(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y) &&
       cudnnBackendFinalize(op) == CUDNN_STATUS_SUCCESS;
  return ok ? op : nullptr;
}

// Executes `plan` once on x -> y; the cuDNN status (a launch the driver refuses is reported here).
inline cudnnStatus_t execute_plan(cudnnBackendDescriptor_t plan, int64_t workspace, const void* x, void* y, const float* scalar) {
  cudnnHandle_t handle = mskb_vendor::cudnn();
  void* ws = workspace > 0 ? mskb_vendor::workspace().get(static_cast<size_t>(workspace)) : nullptr;
  int64_t uids[3] = {kUidX, kUidY, kUidScalar};
  void* ptrs[3] = {const_cast<void*>(x), y, const_cast<float*>(scalar)};
  const int64_t count = scalar ? 3 : 2;
  Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  cudnnBackendDescriptor_t vp = pack.get();
  if (!vp) return CUDNN_STATUS_ALLOC_FAILED;
  cudnnStatus_t st = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, count, uids);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, count, ptrs);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnBackendFinalize(vp);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnBackendExecute(handle, plan, vp);
  return st;
}

// A plan is kept only if it runs: some engines finalize for a size and then fail at launch
// (seen on the H200: CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER for GELU at N=3000017). The trial
// runs on the call's own buffers (its output is overwritten by the real run that follows).
struct Trial {
  const void* x;
  void* y;
  const float* scalar;
  bool accepts(cudnnBackendDescriptor_t plan, int64_t workspace) const {
    const cudnnStatus_t st = execute_plan(plan, workspace, x, y, scalar);
    const cudaError_t launch = cudaGetLastError();  // clears a refused launch (not sticky)
    if (st != CUDNN_STATUS_SUCCESS || launch != cudaSuccess) return false;
    return cudaDeviceSynchronize() == cudaSuccess;
  }
  // Milliseconds of the faster of two more executions of an accepted plan (as cudnnFind* does for
  // the legacy API: the configuration the heuristics rank first is not always the fastest that
  // runs; on the H200 the configurations of the one engine that runs differ by ~10%).
  float milliseconds(cudnnBackendDescriptor_t plan, int64_t workspace) const {
    struct Events {
      cudaEvent_t a = nullptr, b = nullptr;
      Events() {
        if (cudaEventCreate(&a) != cudaSuccess) a = nullptr;
        if (cudaEventCreate(&b) != cudaSuccess) b = nullptr;
      }
      ~Events() {
        if (a) cudaEventDestroy(a);
        if (b) cudaEventDestroy(b);
      }
      Events(const Events&) = delete;
      Events& operator=(const Events&) = delete;
    } ev;
    float best = FLT_MAX;
    if (!ev.a || !ev.b) return best;
    for (int k = 0; k < 2; ++k) {
      float ms = 0;
      if (cudaEventRecord(ev.a, 0) != cudaSuccess || execute_plan(plan, workspace, x, y, scalar) != CUDNN_STATUS_SUCCESS ||
          cudaEventRecord(ev.b, 0) != cudaSuccess || cudaEventSynchronize(ev.b) != cudaSuccess ||
          cudaEventElapsedTime(&ms, ev.a, ev.b) != cudaSuccess)
        return FLT_MAX;
      if (ms < best) best = ms;
    }
    return best;
  }
};

// Builds finalized execution plans for `nodes` with one view (dims/strides) of the vector and
// keeps in `p` the fastest that runs (its time in `p.ms`).
// A plan that runs within `enough_ms`, or once `stop_after` has passed the first plan that runs,
// ends the search (each plan finalize compiles a kernel: 0.15-1 s).
inline bool try_build(Plan& p, cudnnHandle_t handle, const std::vector<Node>& nodes, cudnnDataType_t io,
                      const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, const Trial& trial,
                      std::chrono::steady_clock::time_point stop_after, float enough_ms) {
  const std::vector<int64_t> ones(dims.size(), 1);
  cudnnBackendDescriptor_t x = make_tensor(p, kUidX, io, dims, strides, false, false);
  cudnnBackendDescriptor_t y = make_tensor(p, kUidY, io, dims, strides, false, false);
  if (!x || !y) return false;
  cudnnBackendDescriptor_t scalar = nullptr;
  std::vector<cudnnBackendDescriptor_t> ops;
  cudnnBackendDescriptor_t cur = x;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const bool last = k + 1 == nodes.size();
    cudnnBackendDescriptor_t next =
        last ? y : make_tensor(p, kUidVirtual + static_cast<int64_t>(k), CUDNN_DATA_FLOAT, dims, strides, true, false);
    if (!next) return false;
    if (nodes[k].scalar_rhs && !scalar) {
      scalar = make_tensor(p, kUidScalar, CUDNN_DATA_FLOAT, ones, ones, false, true);
      if (!scalar) return false;
    }
    cudnnBackendDescriptor_t op = make_pointwise_op(p, nodes[k], cur, nodes[k].scalar_rhs ? scalar : nullptr, next);
    if (!op) return false;
    ops.push_back(op);
    cur = next;
  }
  cudnnBackendDescriptor_t graph = make(p, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  if (!graph || !set_attr(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(ops.size()),
                          ops.data()))
    return false;
  set_handle(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, handle);
  if (cudnnBackendFinalize(graph) != CUDNN_STATUS_SUCCESS) return false;
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    if (p.plan && (p.ms <= enough_ms || std::chrono::steady_clock::now() > stop_after)) break;
    cudnnBackendDescriptor_t heur = make(p, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    if (!heur || !set_attr(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph) ||
        !set_attr(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode) ||
        cudnnBackendFinalize(heur) != CUDNN_STATUS_SUCCESS)
      continue;
    int64_t count = 0;
    if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr) !=
            CUDNN_STATUS_SUCCESS ||
        count <= 0)
      continue;
    std::vector<cudnnBackendDescriptor_t> cfgs;
    for (int64_t i = 0; i < count; ++i) {
      cudnnBackendDescriptor_t c = make(p, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
      if (!c) return false;
      cfgs.push_back(c);
    }
    int64_t got = 0;
    if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, cfgs.data()) !=
        CUDNN_STATUS_SUCCESS)
      continue;
    for (int64_t i = 0; i < got && i < count; ++i) {
      if (p.plan && (p.ms <= enough_ms || std::chrono::steady_clock::now() > stop_after)) break;
      cudnnBackendDescriptor_t plan = make(p, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      if (!plan) return false;
      cudnnBackendDescriptor_t cfg = cfgs[static_cast<std::size_t>(i)];
      set_handle(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, handle);
      if (!set_attr(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg) ||
          cudnnBackendFinalize(plan) != CUDNN_STATUS_SUCCESS)
        continue;
      int64_t ws = 0, n = 0;
      if (cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &ws) !=
              CUDNN_STATUS_SUCCESS ||
          !trial.accepts(plan, ws))
        continue;
      const float ms = trial.milliseconds(plan, ws);
      if (p.plan && ms >= p.ms) continue;
      p.plan = plan;
      p.workspace = ws;
      p.ms = ms;
    }
  }
  return p.plan != nullptr;
}

// The fastest plan that runs on `n` elements, or null: the views of the packed vector in order,
// each with every engine configuration the heuristics offer for it, until one moves at least
// 1 TB/s (read + write; the H200's pointwise engines that run well reach ~3), or below 2^20
// elements (launch-bound: the first plan that runs), or after 2 s of searching (the first call,
// which makes the choice once per N, is checked under a watchdog but never timed).
inline std::unique_ptr<Plan> build_plan(const std::vector<Node>& nodes, cudnnDataType_t io, int64_t n, const Trial& trial) {
  const auto stop_after = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  const double bytes = 2.0 * static_cast<double>(n) * (io == CUDNN_DATA_FLOAT ? 4.0 : 2.0);
  // Below 2^20 elements (launch-bound) the first plan that runs; above, every configuration of the
  // view (on the H200 the configurations of the one engine that runs span 2.8-3.2 TB/s: taking the
  // first cost the vendors 10% of the roofline), and the next view only if none reached 1 TB/s.
  const bool small = n < (int64_t{1} << 20);
  const float enough_ms = small ? FLT_MAX : 0.0f;
  cudnnHandle_t handle = mskb_vendor::cudnn();
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> views;
  for (int64_t w : {int64_t{1024}, int64_t{128}})  // rows of a matrix, where N divides evenly
    if (n % w == 0 && n / w > 1) views.push_back({{1, n / w, w}, {n, w, 1}});
  views.insert(views.end(), {
      {{1, 1, n}, {n, n, 1}},        // 3-D, innermost dimension packed
      {{1, n, 1}, {n, 1, 1}},        // 3-D, middle dimension packed
      {{1, n, 1, 1}, {n, 1, n, n}},  // 4-D NHWC-like: C packed
      {{n, 1, 1, 1}, {1, 1, 1, 1}},  // 4-D, N packed
      {{1, 1, 1, n}, {n, n, n, 1}},  // 4-D NCHW, W packed
  });
  std::unique_ptr<Plan> best;
  for (const auto& v : views) {
    auto p = std::make_unique<Plan>();
    if (try_build(*p, handle, nodes, io, v.first, v.second, trial, stop_after, enough_ms) && (!best || p->ms < best->ms))
      best = std::move(p);
    if (!best) continue;
    if (small || bytes / (static_cast<double>(best->ms) * 1e-3) >= 1e12 || std::chrono::steady_clock::now() > stop_after)
      break;
  }
  return best;
}

// How a chain runs on N elements: one plan over the whole vector, or, where cuDNN has no engine
// that runs at this size, the largest power-of-two chunk (>= 2^16 elements, so every chunk starts
// 16-byte aligned) that runs, plus a plan for the tail. Each chunk is one more cudnnBackendExecute
// and is counted in the time like everything else.
struct Runner {
  int64_t n = 0, chunk = 0;
  std::unique_ptr<Plan> body, tail;
};

inline const Runner& runner_for(const std::string& key, const std::vector<Node>& nodes, cudnnDataType_t io, int64_t n,
                                const void* x, void* y, const float* scalar) {
  static std::map<std::string, std::unique_ptr<Runner>> cache;
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  auto r = std::make_unique<Runner>();
  r->n = r->chunk = n;
  const size_t elem = io == CUDNN_DATA_FLOAT ? 4 : 2;
  // Not a multiple of 1024 (the held-out sizes): the largest multiple as rows (fast), the rest
  // (< 1024 elements, 16-byte aligned) as a second execution.
  if (const int64_t rest = n % 1024; n > 1024 && rest != 0) {
    const int64_t body_n = n - rest, off = body_n * static_cast<int64_t>(elem);
    auto body = build_plan(nodes, io, body_n, Trial{x, y, scalar});
    auto tail = body ? build_plan(nodes, io, rest, Trial{static_cast<const char*>(x) + off, static_cast<char*>(y) + off, scalar})
                     : nullptr;
    if (body && tail) {
      r->chunk = body_n;
      r->body = std::move(body);
      r->tail = std::move(tail);
    }
  }
  if (!r->body) r->body = build_plan(nodes, io, n, Trial{x, y, scalar});
  for (int64_t c = int64_t{1} << 26; !r->body && c >= (int64_t{1} << 16); c >>= 1) {
    if (c >= n) continue;
    auto body = build_plan(nodes, io, c, Trial{x, y, scalar});
    if (!body) continue;
    const int64_t rest = n % c;
    std::unique_ptr<Plan> tail;
    if (rest > 0) {
      const int64_t off = (n - rest) * static_cast<int64_t>(elem);
      tail = build_plan(nodes, io, rest, Trial{static_cast<const char*>(x) + off, static_cast<char*>(y) + off, scalar});
      if (!tail) continue;
    }
    r->chunk = c;
    r->body = std::move(body);
    r->tail = std::move(tail);
  }
  if (!r->body) {
    std::fprintf(stderr, "cuDNN graph API: no engine configuration runs pointwise chain '%s' (N=%lld)\n", key.c_str(),
                 static_cast<long long>(n));
    std::abort();
  }
  const Runner& ref = *r;
  cache.emplace(key, std::move(r));
  return ref;
}

// x -> chain -> y over N elements, with `scalar` (host FP32) as the by-value second operand if
// the chain uses one. Plans are cached per `key` (chain, N, type, parameters).
inline void run(const std::string& key, const std::vector<Node>& nodes, cudnnDataType_t io, int64_t n, const void* x, void* y,
                const float* scalar) {
  const Runner& r = runner_for(key, nodes, io, n, x, y, scalar);
  const int64_t elem = io == CUDNN_DATA_FLOAT ? 4 : 2;
  int64_t done = 0;
  for (; done + r.chunk <= n; done += r.chunk)
    MSKB_VENDOR_CHECK(execute_plan(r.body->plan, r.body->workspace, static_cast<const char*>(x) + done * elem,
                                   static_cast<char*>(y) + done * elem, scalar));
  if (done < n)
    MSKB_VENDOR_CHECK(execute_plan(r.tail->plan, r.tail->workspace, static_cast<const char*>(x) + done * elem,
                                   static_cast<char*>(y) + done * elem, scalar));
}

}  // namespace mskb_pw
