// Diagnostic (not part of the harness): every cuDNN engine, and every single-knob variation of it,
// that runs a one-node pointwise graph over N elements, with its time. Used to see why the graph
// API's GELU / leaky RELU / SELU engines reach only a few % of DRAM bandwidth on the H200.
//   nvcc -std=c++17 -O2 -I kernels/include scripts/diag/cudnn_pw_engines.cu -lcudnn -o pw_engines
//   ./pw_engines [log2 N = 24]
#include <cuda_runtime.h>
#include <cudnn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mskb_cudnn_pointwise.cuh"
#include "mskb_vendor.cuh"

using namespace mskb_pw;

namespace {

cudnnBackendDescriptor_t graph_for(Plan& p, const std::vector<Node>& nodes, cudnnDataType_t io, const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& strides) {
  const std::vector<int64_t> ones(dims.size(), 1);
  cudnnBackendDescriptor_t x = make_tensor(p, kUidX, io, dims, strides, false, false);
  cudnnBackendDescriptor_t y = make_tensor(p, kUidY, io, dims, strides, false, false);
  cudnnBackendDescriptor_t scalar = nullptr, cur = x;
  std::vector<cudnnBackendDescriptor_t> ops;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const bool last = k + 1 == nodes.size();
    cudnnBackendDescriptor_t next =
        last ? y : make_tensor(p, kUidVirtual + static_cast<int64_t>(k), CUDNN_DATA_FLOAT, dims, strides, true, false);
    if (nodes[k].scalar_rhs && !scalar) scalar = make_tensor(p, kUidScalar, CUDNN_DATA_FLOAT, ones, ones, false, true);
    ops.push_back(make_pointwise_op(p, nodes[k], cur, nodes[k].scalar_rhs ? scalar : nullptr, next));
    if (!ops.back()) return nullptr;
    cur = next;
  }
  cudnnBackendDescriptor_t graph = make(p, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  cudnnHandle_t handle = mskb_vendor::cudnn();
  set_attr(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(ops.size()), ops.data());
  set_handle(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, handle);
  return cudnnBackendFinalize(graph) == CUDNN_STATUS_SUCCESS ? graph : nullptr;
}

struct Knob {
  int64_t type, lo, hi, stride;
};

// Plan for engine `g` with optional single knob choice; its time, or < 0 with the reason.
double time_cfg(Plan& p, cudnnBackendDescriptor_t graph, int64_t g, const Knob* knob, int64_t value, const Trial& trial,
                double* finalize_ms) {
  cudnnBackendDescriptor_t eng = make(p, CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  set_attr(eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
  set_attr(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &g);
  if (cudnnBackendFinalize(eng) != CUDNN_STATUS_SUCCESS) return -1;
  cudnnBackendDescriptor_t cfg = make(p, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  set_attr(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &eng);
  if (knob) {
    cudnnBackendDescriptor_t choice = make(p, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    const auto type = static_cast<cudnnBackendKnobType_t>(knob->type);
    set_attr(choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &type);
    set_attr(choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &value);
    if (cudnnBackendFinalize(choice) != CUDNN_STATUS_SUCCESS) return -2;
    set_attr(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &choice);
  }
  if (cudnnBackendFinalize(cfg) != CUDNN_STATUS_SUCCESS) return -3;
  cudnnBackendDescriptor_t plan = make(p, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  set_handle(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, mskb_vendor::cudnn());
  set_attr(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
  const auto t0 = std::chrono::steady_clock::now();
  const cudnnStatus_t st = cudnnBackendFinalize(plan);
  *finalize_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (st != CUDNN_STATUS_SUCCESS) return -4;
  int64_t ws = 0, n = 0;
  cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &ws);
  if (!trial.accepts(plan, ws)) return -5;
  return trial.milliseconds(plan, ws);
}

std::vector<Knob> knobs_of(Plan& p, cudnnBackendDescriptor_t graph, int64_t g) {
  std::vector<Knob> out;
  cudnnBackendDescriptor_t eng = make(p, CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  set_attr(eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
  set_attr(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &g);
  if (cudnnBackendFinalize(eng) != CUDNN_STATUS_SUCCESS) return out;
  std::vector<cudnnBackendDescriptor_t> infos;
  for (int i = 0; i < 64; ++i) infos.push_back(make(p, CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR));
  int64_t got = 0;
  if (cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR, 64, &got, infos.data()) !=
      CUDNN_STATUS_SUCCESS)
    return out;
  for (int64_t i = 0; i < got; ++i) {
    Knob k{};
    int64_t c = 0;
    cudnnBackendKnobType_t t{};
    cudnnBackendGetAttribute(infos[i], CUDNN_ATTR_KNOB_INFO_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &c, &t);
    k.type = t;
    cudnnBackendGetAttribute(infos[i], CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, CUDNN_TYPE_INT64, 1, &c, &k.lo);
    cudnnBackendGetAttribute(infos[i], CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, CUDNN_TYPE_INT64, 1, &c, &k.hi);
    cudnnBackendGetAttribute(infos[i], CUDNN_ATTR_KNOB_INFO_STRIDE, CUDNN_TYPE_INT64, 1, &c, &k.stride);
    out.push_back(k);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = int64_t{1} << (argc > 1 ? std::atoi(argv[1]) : 24);
  std::printf("cuDNN %zu, N = %lld\n", cudnnGetVersion(), static_cast<long long>(n));
  void *x = nullptr, *y = nullptr;
  MSKB_VENDOR_CHECK(cudaMalloc(&x, n * 4));
  MSKB_VENDOR_CHECK(cudaMalloc(&y, n * 4));
  MSKB_VENDOR_CHECK(cudaMemset(x, 0, n * 4));
  const float scalar = 1.05f;
  struct Case {
    const char* name;
    std::vector<Node> nodes;
    cudnnDataType_t io;
  };
  const std::vector<Case> cases = {
      {"gelu f32", {{CUDNN_POINTWISE_GELU_FWD, 0.0, false}}, CUDNN_DATA_FLOAT},
      {"leaky f32", {{CUDNN_POINTWISE_RELU_FWD, 0.01, false}}, CUDNN_DATA_FLOAT},
      {"relu f32", {{CUDNN_POINTWISE_RELU_FWD, 0.0, false}}, CUDNN_DATA_FLOAT},
      {"gelu bf16", {{CUDNN_POINTWISE_GELU_FWD, 0.0, false}}, CUDNN_DATA_BFLOAT16},
      {"selu f32", {{CUDNN_POINTWISE_ELU_FWD, 1.67, false}, {CUDNN_POINTWISE_MUL, 0.0, true}}, CUDNN_DATA_FLOAT},
  };
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> views = {
      {{1, 1, n}, {n, n, 1}}, {{1, n, 1}, {n, 1, 1}}, {{1, n / 1024, 1024}, {n, 1024, 1}}, {{1, n, 1, 1}, {n, 1, n, n}}};
  for (const auto& c : cases) {
    const double bytes = 2.0 * n * (c.io == CUDNN_DATA_FLOAT ? 4 : 2);
    const auto t_case = std::chrono::steady_clock::now();
    for (std::size_t v = 0; v < views.size(); ++v) {
      Plan p;
      cudnnBackendDescriptor_t graph = graph_for(p, c.nodes, c.io, views[v].first, views[v].second);
      if (!graph) {
        std::printf("%s view %zu: graph not finalized\n", c.name, v);
        continue;
      }
      int64_t count = 0, got = 0;
      cudnnBackendGetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &got, &count);
      const Trial trial{x, y, c.nodes.back().scalar_rhs ? &scalar : nullptr};
      for (int64_t g = 0; g < count; ++g) {
        double fin = 0;
        const double ms = time_cfg(p, graph, g, nullptr, 0, trial, &fin);
        if (ms < 0) continue;
        std::printf("%s view %zu engine %lld default: %.3f ms (%.0f GB/s), plan finalize %.0f ms\n", c.name, v,
                    static_cast<long long>(g), ms, bytes / (ms * 1e6), fin);
        for (const Knob& k : knobs_of(p, graph, g)) {
          std::printf("  knob type %lld range [%lld, %lld] stride %lld:", static_cast<long long>(k.type),
                      static_cast<long long>(k.lo), static_cast<long long>(k.hi), static_cast<long long>(k.stride));
          const int64_t step = k.stride > 0 ? k.stride : 1;
          int tried = 0;
          for (int64_t val = k.lo; val <= k.hi && tried < 12; val += step, ++tried) {
            double f2 = 0;
            const double t = time_cfg(p, graph, g, &k, val, trial, &f2);
            if (t < 0)
              std::printf(" %lld:x%d", static_cast<long long>(val), static_cast<int>(t));
            else
              std::printf(" %lld:%.0fGB/s", static_cast<long long>(val), bytes / (t * 1e6));
          }
          std::printf("\n");
        }
        std::fflush(stdout);
      }
      if (std::chrono::steady_clock::now() - t_case > std::chrono::seconds(40)) {
        std::printf("%s: 40 s cap\n", c.name);
        break;
      }
    }
  }
  cudaFree(x);
  cudaFree(y);
  return 0;
}
