// Device time on a real GPU, inside the candidate's OS sandbox: the vector_add fp32 baseline's
// timed shapes get a device time (CUPTI activity records of the extra calls) that is > 0 and
// within its call time, with a host share in [0, 1]; MSKB_DEVICE_TIME=off leaves it out and says
// so. The wall time of both evaluations is printed (what the extra calls cost, for one task).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mskb/harness/suite.hpp"
#include "mskb/report/document.hpp"

using namespace mskb;

namespace {

SuiteReport run_baseline(bool device_time, double& seconds) {
  SuitePlan plan;
  plan.tasks = {"vector_add"};
  plan.precisions = {Precision::fp32};
  plan.contenders = {ContenderKind::baseline};
  plan.eval.settings.device_time = device_time;
  const auto t0 = std::chrono::steady_clock::now();
  SuiteReport rep = run_suite(plan, [](const std::string&, bool) {});
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

bool sandbox_off() {
  const char* v = std::getenv("MSKB_SANDBOX");
  return v != nullptr && std::strcmp(v, "off") == 0;
}

}  // namespace

TEST(DeviceTime, BaselineShapesGetADeviceTimeWithinTheirCallTime) {
  if (sandbox_off()) GTEST_SKIP() << "MSKB_SANDBOX=off: this test is about device time inside the sandbox";
  double seconds = 0;
  const SuiteReport rep = run_baseline(true, seconds);
  ASSERT_EQ(rep.runs.size(), 1u);
  const ContenderResult& r = rep.runs[0].result;
  ASSERT_EQ(r.disposition, Disposition::passed) << r.message;
  EXPECT_NE(r.sandbox.find("seccomp"), std::string::npos) << "the kernel ran outside the seccomp filter: " << r.sandbox;
  ASSERT_FALSE(r.timings.empty());
  std::printf("vector_add fp32 baseline, sandbox %s, %.2f s with device time\n", r.sandbox.c_str(), seconds);
  // The candidate's process usage (wait4) comes back as a note; a CUDA IPC fallback would too.
  ASSERT_EQ(r.notes.count("candidate_usage"), 1u) << "no candidate_usage note";
  EXPECT_EQ(r.notes.at("candidate_usage").rfind("wall ", 0), 0u) << r.notes.at("candidate_usage");
  for (const auto& [k, v] : r.notes) std::printf("  note %s: %s\n", k.c_str(), v.c_str());
  for (const ShapeTiming& t : r.timings) {
    ASSERT_TRUE(t.time.device) << t.shape.str() << ": no device time: " << t.time.device_note;
    const DeviceTime& d = *t.time.device;
    std::printf("  %-10s call %8.2f us (median of %d), device %8.2f us of %8.2f us (%d calls), host share %3.0f%%\n", t.shape.str().c_str(),
                t.time.median_us, t.time.n, d.device_us, d.call_us, d.samples, 100 * d.host_share);
    EXPECT_GT(d.device_us, 0) << t.shape.str();
    EXPECT_LE(d.device_us, d.call_us) << t.shape.str();
    EXPECT_GE(d.samples, 1);
    EXPECT_LE(d.samples, 5);
    EXPECT_GE(d.host_share, 0.0);
    EXPECT_LE(d.host_share, 1.0);
    // The extra calls are calls of the same kernel on the same inputs: the same time as the samples, loosely.
    EXPECT_LE(d.device_us, 1.5 * t.time.median_us + 5) << t.shape.str();
  }
  // The report carries it per shape and P on device time per score.
  const nlohmann::json j = report_json(rep);
  for (const nlohmann::json& res : j["results"]) {
    EXPECT_TRUE(res.contains("device_us")) << res.dump();
    EXPECT_TRUE(res.contains("host_share")) << res.dump();
  }
  for (const nlohmann::json& s : j["scores"]) EXPECT_NEAR(s["p_device"].get<double>(), 1.0, 1e-12) << "the baseline against itself";
}

TEST(DeviceTime, OffLeavesItOutAndSaysSo) {
  double on_s = 0, off_s = 0;
  const SuiteReport on = run_baseline(true, on_s);
  const SuiteReport off = run_baseline(false, off_s);
  std::printf("vector_add fp32 baseline: %.2f s with device time, %.2f s without (MSKB_DEVICE_TIME=off)\n", on_s, off_s);
  ASSERT_EQ(off.runs.size(), 1u);
  const ContenderResult& r = off.runs[0].result;
  ASSERT_EQ(r.disposition, Disposition::passed) << r.message;
  ASSERT_FALSE(r.timings.empty());
  for (const ShapeTiming& t : r.timings) {
    EXPECT_FALSE(t.time.device) << t.shape.str();
    EXPECT_EQ(t.time.device_note, "off (MSKB_DEVICE_TIME=off)");
  }
}
