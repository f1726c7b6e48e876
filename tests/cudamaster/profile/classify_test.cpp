// The bottleneck classifier on every captured export and on synthetic profiles.
//
// Expected classes of the captured exports (H200, ncu 2025.3, largest paper shapes):
// - stream_copy: DRAM 86 %, L2 91 % of peak, SM 4 %: memory-bandwidth by construction.
// - pointer_chase: build_perm (5 % of the time) is compute-busy, the dependent chase (95 %) has
//   every unit under 4 % and 97 % long-scoreboard stalls: memory-latency by construction.
// - fma_loop: SM 98 %, FMA pipe 96 %, memory 2 %: compute by construction.
// - matrix_mul_vendor (cuBLAS sgemm): SM 86 %, FMA pipe 76 %, L1 61 %: compute.
// - matrix_mul_baseline (naive, one output per thread, no tiling): L1 99.6 % and memory
//   throughput 99.5 % of peak against SM 66 % (the LSU pipe), DRAM only 2 %: every thread
//   re-reads A and B through L1, so the kernel is limited by (L1) memory bandwidth, not by
//   FLOPs: memory-bandwidth. Tiling into shared memory is the fix the class should suggest.
// - stencil_2d_baseline: L2 67 %, DRAM 47 %, SM 44 %, 83 % long-scoreboard: memory-bandwidth
//   (L2), just above the busy line, so with a low confidence.
// - vector_add (baseline, cuBLAS axpy) at N = 2^18: 3 us, 3 MiB that fit in L2, every unit under
//   30 %, long scoreboard the top stall: memory-latency (too little work to fill the pipes).
// - dot_product, softmax, spmv_csr (baselines and vendors): every unit under the busy line
//   (the highest is softmax_vendor's L2 at 45 %) and long scoreboard the top stall: memory-latency.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "cudamaster/profile/classify.hpp"
#include "cudamaster/profile/report.hpp"
#include "support/profile_fixtures.hpp"

using namespace cudamaster::profile;
using cmprof_test::fixture;
using cmprof_test::fixture_facts;

namespace {

KernelProfile synthetic(const std::map<std::string, double>& values) {
  KernelProfile k;
  k.name = "synthetic";
  for (const auto& [name, v] : values) {
    Metric m;
    m.name = name;
    m.unit = name.find("pct") != std::string::npos ? "%" : "";
    m.kind = ValueKind::number;
    m.value = v;
    m.raw = std::to_string(v);
    k.add(m);
  }
  return k;
}

const char* kSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
const char* kMem = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
const char* kDram = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
const char* kL2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
const char* kFma = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed";
const char* kAlu = "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed";
std::string stall(const char* r) { return std::string("smsp__average_warps_issue_stalled_") + r + "_per_issue_active.ratio"; }

}  // namespace

TEST(ClassifyFixtures, EveryFixtureHasItsClass) {
  std::map<std::string, int> seen;
  for (const auto& f : fixture_facts()) {
    SCOPED_TRACE(f.name);
    const ProfileOutcome o = analyze(load_ncu_csv(fixture(std::string(f.name) + ".csv")));
    const Classification& c = o.classification;
    EXPECT_EQ(to_string(c.cls), std::string(f.cls)) << c.reason;
    EXPECT_EQ(c.source, "ncu");
    EXPECT_GT(c.confidence, 0.25);
    EXPECT_LE(c.confidence, 1.0);
    EXPECT_GT(c.threshold, 0);
    EXPECT_LT(c.threshold, 100);
    EXPECT_GE(c.separability, 0);
    EXPECT_LE(c.separability, 1);
    EXPECT_FALSE(c.reason.empty());
    EXPECT_GE(c.units.size(), 10u);  // every unit of the SOL / workload sections is in the export
    EXPECT_FALSE(c.evidence.empty());
    EXPECT_EQ(c.evidence.front().role, "top unit");
    ASSERT_EQ(o.kernel_classes.size(), f.kernels);
    ++seen[f.cls];
    std::printf("%-22s %-17s conf %.2f  Otsu %5.1f %%  eta %.2f  compute %5.1f %%  memory %5.1f %%  mem-stalls %3.0f %%\n",
                f.name, to_string(c.cls), c.confidence, c.threshold, c.separability, c.peak_compute, c.peak_memory,
                100 * c.memory_stall_share);
  }
  EXPECT_EQ(seen.size(), 3u);  // all three classes occur
}

TEST(ClassifyFixtures, KnownBoundKernelsAreConfident) {
  for (const char* name : {"stream_copy", "fma_loop", "pointer_chase"}) {
    const ProfileOutcome o = analyze(load_ncu_csv(fixture(std::string(name) + ".csv")));
    EXPECT_GT(o.classification.confidence, 0.75) << name;
  }
}

TEST(ClassifyFixtures, PerKernelBreakdown) {
  const ProfileOutcome o = analyze(load_ncu_csv(fixture("pointer_chase.csv")));
  ASSERT_EQ(o.kernel_classes.size(), 2u);
  EXPECT_EQ(o.kernel_classes[0].cls, Bottleneck::compute);         // build_perm: integer hashing, SM 70 %
  EXPECT_EQ(o.kernel_classes[1].cls, Bottleneck::memory_latency);  // chase
  EXPECT_NEAR(o.weights[0] + o.weights[1], 1.0, 1e-12);
  EXPECT_GT(o.weights[1], 0.9);
  EXPECT_EQ(o.classification.top_stall, "long_scoreboard");
  EXPECT_GT(o.classification.memory_stall_share, 0.9);
}

TEST(ClassifySynthetic, BandwidthComputeLatency) {
  const auto bw = classify(synthetic({{kSm, 5}, {kFma, 2}, {kMem, 88}, {kDram, 88}, {kL2, 70}, {stall("long_scoreboard"), 50}}));
  EXPECT_EQ(bw.cls, Bottleneck::memory_bandwidth);
  const auto comp = classify(synthetic({{kSm, 92}, {kFma, 90}, {kAlu, 20}, {kMem, 10}, {kDram, 3}, {kL2, 8}}));
  EXPECT_EQ(comp.cls, Bottleneck::compute);
  const auto lat = classify(synthetic({{kSm, 3}, {kFma, 1}, {kMem, 4}, {kDram, 2}, {kL2, 5}, {stall("long_scoreboard"), 40},
                                       {stall("wait"), 2}, {stall("selected"), 1}}));
  EXPECT_EQ(lat.cls, Bottleneck::memory_latency);
  EXPECT_EQ(lat.top_stall, "long_scoreboard");
  EXPECT_NEAR(lat.memory_stall_share, 40.0 / 42.0, 1e-12);  // "selected" is not a stall
}

TEST(ClassifySynthetic, LowUtilisationWithDependencyStallsIsCompute) {
  // A dependent FMA chain in few warps: nothing busy, compute ahead of memory, stalls on "wait".
  const auto c = classify(synthetic({{kSm, 35}, {kFma, 30}, {kMem, 3}, {kDram, 1}, {kL2, 2}, {stall("wait"), 6},
                                     {stall("math_pipe_throttle"), 2}, {stall("long_scoreboard"), 0.5}}));
  EXPECT_EQ(c.cls, Bottleneck::compute);
}

TEST(ClassifySynthetic, MemoryAheadWithoutStallMetricsIsLatencyBelowTheBusyLine) {
  const auto c = classify(synthetic({{kSm, 10}, {kMem, 40}, {kDram, 40}, {kL2, 30}}));
  EXPECT_EQ(c.cls, Bottleneck::memory_latency);
  EXPECT_EQ(c.memory_stall_share, -1);
}

TEST(ClassifySynthetic, BusyLineAndMarginsDriveConfidence) {
  const auto clear = classify(synthetic({{kSm, 4}, {kFma, 1}, {kMem, 95}, {kDram, 95}, {kL2, 90}}));
  const auto close = classify(synthetic({{kSm, 58}, {kFma, 20}, {kMem, 62}, {kDram, 62}, {kL2, 40}}));
  EXPECT_EQ(clear.cls, Bottleneck::memory_bandwidth);
  EXPECT_EQ(close.cls, Bottleneck::memory_bandwidth);
  EXPECT_GT(clear.confidence, close.confidence + 0.2);
  ClassifierConfig strict;
  strict.busy_pct = 70;  // the busy line is a parameter: 62 % is then latency
  EXPECT_EQ(classify(synthetic({{kSm, 58}, {kMem, 62}, {kDram, 62}}), strict).cls, Bottleneck::memory_latency);
}

// Found by tests/fuzz (ncu_csv): compute units only, all at 0 %, took the absent memory side as
// the busier one and dereferenced it. One kind only is that kind's side.
TEST(ClassifySynthetic, UnitsOfOneKindOnly) {
  EXPECT_EQ(classify(synthetic({{kSm, 0}, {kFma, 0}})).cls, Bottleneck::compute);
  EXPECT_EQ(classify(synthetic({{kSm, 40}})).cls, Bottleneck::compute);
  const auto mem = classify(synthetic({{kDram, 0}}));
  EXPECT_NE(mem.cls, Bottleneck::compute);
  EXPECT_EQ(classify(synthetic({{kDram, 95}, {kMem, 95}})).cls, Bottleneck::memory_bandwidth);
}

TEST(ClassifySynthetic, NoUtilisationMetricsIsAnError) {
  EXPECT_THROW(classify(synthetic({{"gpu__time_duration.sum", 100}})), ProfileError);
}

TEST(ClassifySol, ModelOnly) {
  SolInput in;
  in.bytes = 3.0 * 4 * (1 << 28);  // vector_add at N = 2^28: 3.2 GB
  in.flops = 1 << 28;
  in.dram_bandwidth_gbs = 4300;
  in.fp32_tflops = 60;
  in.bf16_tflops = 790;
  in.measured_us = 900;  // ~83 % of the DRAM ceiling
  const auto bw = classify_sol(in);
  EXPECT_EQ(bw.cls, Bottleneck::memory_bandwidth);
  EXPECT_EQ(bw.source, "sol_model");
  EXPECT_DOUBLE_EQ(bw.threshold, 60);
  EXPECT_LE(bw.confidence, 0.75);
  EXPECT_NEAR(bw.peak_memory, 100 * (in.bytes / 4300e9 * 1e6) / 900, 1e-9);
  in.measured_us = 20000;  // 4 % of the ceiling: memory is the limiter, far from it
  EXPECT_EQ(classify_sol(in).cls, Bottleneck::memory_latency);
  SolInput gemm = in;
  gemm.bytes = 3.0 * 4 * 4096 * 4096;
  gemm.flops = 2.0 * 4096 * 4096 * 4096;  // 137 GFLOP: 2.3 ms at 60 TFLOP/s
  gemm.measured_us = 2600;
  EXPECT_EQ(classify_sol(gemm).cls, Bottleneck::compute);
  gemm.tensor = true;  // the same FLOPs at the BF16 tensor peak: 0.17 ms, far below 2.6 ms
  EXPECT_EQ(classify_sol(gemm).cls, Bottleneck::compute);
  EXPECT_LT(classify_sol(gemm).peak_compute, 60);
  in.measured_us = 0;
  EXPECT_THROW(classify_sol(in), std::invalid_argument);
  in.measured_us = 10;
  in.dram_bandwidth_gbs = 0;
  EXPECT_THROW(classify_sol(in), std::invalid_argument);
}
