// Scoring and acceptance, replay matching of system prompts only, GPU lanes, the job pool.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "cudamaster/exec/executor.hpp"
#include "cudamaster/loop/html_report.hpp"
#include "cudamaster/loop/score.hpp"
#include "support/agent_doubles.hpp"

using namespace cmtest;

namespace {

mskb::ContenderResult timed(const std::vector<std::pair<std::uint64_t, double>>& c_and_us, double noise = 0.002) {
  mskb::ContenderResult r;
  r.disposition = mskb::Disposition::passed;
  int i = 0;
  for (const auto& [c, us] : c_and_us) {
    mskb::ShapeTiming t;
    t.sweep = mskb::Sweep::paper;
    t.shape = mskb::Shape{{"N", ++i}};
    t.complexity = c;
    t.time.median_us = us;
    t.time.noise = noise;
    t.roofline_us = 1.0;
    r.timings.push_back(t);
  }
  return r;
}

}  // namespace

TEST(Score, ComplexityWeightedSpeedupAndVendorRatio) {
  const auto base = timed({{1, 10}, {3, 40}});
  const auto cand = timed({{1, 5}, {3, 10}});   // speedups 2 and 4
  const auto vend = timed({{1, 8}, {3, 20}});   // vendor/cand 1.6 and 2
  const auto s = loop::score_result(cand, base, &vend);
  ASSERT_TRUE(s.p);
  EXPECT_DOUBLE_EQ(*s.p, (1 * 2.0 + 3 * 4.0) / 4.0);
  EXPECT_DOUBLE_EQ(*s.geomean, std::sqrt(8.0));
  EXPECT_DOUBLE_EQ(*s.vs_vendor, (1 * 1.6 + 3 * 2.0) / 4.0);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(s.rows[1].baseline_us, 40);
  EXPECT_DOUBLE_EQ(*s.shapes[0].sol_fraction, 0.2);
  // sigma_P/P with e = sqrt(2) * 0.002 on every size.
  EXPECT_NEAR(s.rel_noise, std::sqrt(2.0 * 2.0 + 12.0 * 12.0) / 14.0 * std::sqrt(2.0) * 0.002, 1e-12);
  const auto self = loop::score_result(base, base, nullptr);
  EXPECT_DOUBLE_EQ(*self.p, 1.0);
  EXPECT_FALSE(self.vs_vendor);
}

// The acceptance margin is the spread model's between-process spread of P over the candidate's
// shapes (score.hpp). A hand-made 90% model: < 100 us 10%, >= 100 us 2%, shapes independent.
mskb::SpreadModel acceptance_model() {
  return mskb::parse_spread_model({{"format", 1},
                                   {"version", 5},
                                   {"quantile", 0.9},
                                   {"bands_us", {100.0}},
                                   {"scopes", {{"between_process", {{"call", {0.1, 0.02}}, {"common", 0.0}, {"rho", 0.0}}}}}});
}

TEST(Score, AcceptOnlyBeyondTheSpreadBetweenProcesses) {
  const mskb::SpreadModel m = acceptance_model();
  // One shape of 10 us, noise 0.2% on both sides: each side's bound sqrt(0.1^2 + 2 z^2 0.002^2) =
  // 0.100108 (z = 1.644854), P's h = sqrt(2) * 0.100108 = 0.141574: margin e^h - 1 = 15.21%.
  const auto base = timed({{1, 10}});
  const auto best = loop::score_result(base, base, nullptr, m);
  auto s = loop::score_result(timed({{1, 9.0}}), base, nullptr, m);  // 11% faster
  EXPECT_NEAR(s.spread, 0.1415743, 1e-6);
  EXPECT_EQ(s.spread_shapes, 1);
  auto v = loop::judge(s, best, 0.0, m);
  EXPECT_FALSE(v.accept) << v.reason;
  EXPECT_NEAR(v.margin, 0.1520861, 1e-6);
  EXPECT_NEAR(v.required_p, 1.1520861, 1e-6);
  EXPECT_EQ(v.margin_source, "between-process spread of its 1 shape, spread model v5 (90% intervals, between processes)");
  EXPECT_NE(v.reason.find("P 1.111 <= 1.152 required (best 1.000 + 15.2% margin: between-process spread"), std::string::npos) << v.reason;
  // The model is one GPU model's: on another, the margin says whose spread it is.
  const nlohmann::json on_h200 = nlohmann::json::parse(R"({"format": 1, "version": 5, "quantile": 0.9, "bands_us": [100.0], "measured_on": {"gpu": "NVIDIA H200"},
                                 "scopes": {"between_process": {"call": [0.1, 0.02], "common": 0.0, "rho": 0.0}}})");
  const mskb::SpreadModel h200 = mskb::parse_spread_model(on_h200);
  EXPECT_EQ(loop::judge(s, best, 0.0, h200, "NVIDIA H200").margin_source, v.margin_source);
  const auto elsewhere = loop::judge(s, best, 0.0, h200, "NVIDIA L40S");
  EXPECT_NEAR(elsewhere.margin, v.margin, 1e-12);
  EXPECT_EQ(elsewhere.margin_source,
            "between-process spread of its 1 shape, spread model v5 (90% intervals, between processes; measured on NVIDIA H200, not on "
            "NVIDIA L40S)");
  v = loop::judge(loop::score_result(timed({{1, 8.5}}), base, nullptr, m), best, 0.0, m);  // 17.6% faster
  EXPECT_TRUE(v.accept) << v.reason;
  // The same 11% gain on a 200 us shape (2% band: h = 0.029039, margin 2.95%) is accepted.
  const auto base200 = timed({{1, 200}});
  v = loop::judge(loop::score_result(timed({{1, 180}}), base200, nullptr, m), loop::score_result(base200, base200, nullptr, m), 0.0, m);
  EXPECT_TRUE(v.accept) << v.reason;
  EXPECT_NEAR(v.margin, 0.0294652, 1e-6);
  // ... and a 1% gain there is not.
  v = loop::judge(loop::score_result(timed({{1, 198}}), base200, nullptr, m), loop::score_result(base200, base200, nullptr, m), 0.0, m);
  EXPECT_FALSE(v.accept) << v.reason;
  // --min-gain is a floor above the model's margin.
  v = loop::judge(loop::score_result(timed({{1, 180}}), base200, nullptr, m), loop::score_result(base200, base200, nullptr, m), 0.2, m);
  EXPECT_FALSE(v.accept);
  EXPECT_EQ(v.margin_source, "the --min-gain floor 20%");
  EXPECT_NEAR(v.required_p, 1.2, 1e-12);
  // Noisy measurements widen the margin: 3% noise -> each side sqrt(0.02^2 + 2 z^2 0.03^2) =
  // 0.072595, h = 0.102664, margin 10.81%: 8% faster is accepted without the noise, not with it.
  v = loop::judge(loop::score_result(timed({{1, 185}}), base200, nullptr, m), loop::score_result(base200, base200, nullptr, m), 0.0, m);
  EXPECT_TRUE(v.accept) << v.reason;
  const auto noisy_base = timed({{1, 200}}, 0.03);
  v = loop::judge(loop::score_result(timed({{1, 185}}, 0.03), noisy_base, nullptr, m), loop::score_result(noisy_base, noisy_base, nullptr, m), 0.0, m);
  EXPECT_FALSE(v.accept) << v.reason;
  EXPECT_NEAR(v.margin, 0.1081193, 1e-6);
  // The verdict as the store records it.
  EXPECT_EQ(v.json()["margin_source"], v.margin_source);
  EXPECT_DOUBLE_EQ(v.json()["required_p"].get<double>(), v.required_p);
  auto wrong = timed({{1, 1.0}});
  wrong.disposition = mskb::Disposition::wrong_result;
  v = loop::judge(loop::score_result(wrong, base, nullptr, m), best, 0.02, m);
  EXPECT_FALSE(v.accept);
  EXPECT_EQ(v.reason, "not correct");
  // Without complexities there is no interval: the noise rule (2 sqrt(rel^2 + rel^2)) and the floor.
  const auto flat = timed({{0, 9.0}});
  v = loop::judge(loop::score_result(flat, timed({{0, 10}}), nullptr, m), best, 0.02, m);
  EXPECT_EQ(v.margin_source, "the --min-gain floor 2%");
}

TEST(ReplayMatch, SystemOnlyIgnoresUserTextButNotSystemPromptsOrParams) {
  TempDir dir;
  const std::string path = dir.file("c.jsonl");
  {
    auto rec = llm::make_recording_provider(std::make_unique<StubProvider>("openai", "gpt-4o"), path);
    ASSERT_TRUE(rec.ok());
    llm::LlmClient client(std::move(rec).value(), llm::PricingTable::builtin(), nullptr);
    ASSERT_TRUE(client.complete(simple_request("time 5.1 us", "You are the Planner")).ok());
    ASSERT_TRUE(client.complete(simple_request("fix this", "You are the Debug agent")).ok());
  }
  auto make = [&](llm::ReplayMatch m) {
    llm::ClientOptions o;
    o.llm = "replay:" + path;
    o.provider.replay_match = m;
    return std::move(llm::LlmClient::create(o)).value();
  };
  // Full matching: different measurements in the user prompt are a mismatch.
  auto full = make(llm::ReplayMatch::Full);
  auto r = full->complete(simple_request("time 4.7 us", "You are the Planner"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm::LlmErrorKind::ReplayMismatch);
  // System-only: the same run on another GPU replays.
  auto loose = make(llm::ReplayMatch::SystemOnly);
  r = loose->complete(simple_request("time 4.7 us", "You are the Planner"));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->text, "echo: time 5.1 us");
  // ...but a different agent (system prompt) or different parameters are still mismatches.
  auto wrong_agent = loose->complete(simple_request("fix this", "You are the Coder"));
  ASSERT_FALSE(wrong_agent.ok());
  EXPECT_NE(wrong_agent.error().message.find("messages[0].content"), std::string::npos) << wrong_agent.error().message;
  auto req = simple_request("fix that", "You are the Debug agent");
  req.params.max_tokens = 999;
  auto wrong_params = make(llm::ReplayMatch::SystemOnly);
  ASSERT_TRUE(wrong_params->complete(simple_request("x", "You are the Planner")).ok());
  auto bad = wrong_params->complete(req);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("params.max_tokens"), std::string::npos) << bad.error().message;
  // Extra messages (a different conversation shape) are a mismatch too.
  auto extra = make(llm::ReplayMatch::SystemOnly);
  auto three = simple_request("x", "You are the Planner");
  three.messages.push_back({llm::Role::User, "more"});
  EXPECT_FALSE(extra->complete(three).ok());
}

TEST(Executor, LanesLimitConcurrentGpuWork) {
  cudamaster::exec::GpuLanes lanes(1);
  std::atomic<int> now{0}, peak{0};
  cudamaster::exec::run_pool(8, 4, [&](std::size_t) {
    auto lease = lanes.acquire();
    const int n = ++now;
    int p = peak.load();
    while (n > p && !peak.compare_exchange_weak(p, n)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    --now;
  });
  EXPECT_EQ(peak.load(), 1);
  EXPECT_EQ(lanes.max_in_use(), 1);
  cudamaster::exec::GpuLanes two(2);
  cudamaster::exec::run_pool(8, 4, [&](std::size_t) {
    auto lease = two.acquire();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  });
  EXPECT_EQ(two.max_in_use(), 2);
  // Affinity: lane `k % lanes`, each with its device; a busy lane makes its own users wait.
  cudamaster::exec::GpuLanes devs(std::vector<std::string>{"3", "GPU-x"});
  EXPECT_EQ(devs.lanes(), 2);
  {
    auto a = devs.acquire(4);
    EXPECT_EQ(a.lane(), 0);
    EXPECT_EQ(a.device(), "3");
    auto b = devs.acquire(1);
    EXPECT_EQ(b.device(), "GPU-x");
  }
  std::atomic<int> on_lane1{0}, peak1{0};
  cudamaster::exec::run_pool(6, 6, [&](std::size_t i) {
    auto lease = devs.acquire(static_cast<int>(i));
    if (lease.lane() == 1) {
      const int n = ++on_lane1;
      int pk = peak1.load();
      while (n > pk && !peak1.compare_exchange_weak(pk, n)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      --on_lane1;
    }
  });
  EXPECT_EQ(peak1.load(), 1);
  cudamaster::exec::GpuLanes inherit(1);
  EXPECT_EQ(inherit.acquire().device(), "");
  // Unpinned lanes (Slurm job steps): any free lane serves an affinity, none has a device.
  cudamaster::exec::GpuLanes steps(2, false);
  {
    auto a = steps.acquire(0);
    auto b = steps.acquire(0);  // lane 0 is busy: a pinned lane would wait here forever
    EXPECT_NE(a.lane(), b.lane());
    EXPECT_EQ(b.device(), "");
  }
  EXPECT_EQ(steps.max_in_use(), 2);
  std::atomic<int> ran{0};
  cudamaster::exec::run_pool(5, 3, [&](std::size_t) { ++ran; });
  EXPECT_EQ(ran.load(), 5);
}

TEST(Executor, RecordedWithTheRunAndReadBack) {
  cudamaster::exec::Executor e;
  EXPECT_EQ(e.describe(), "local");
  EXPECT_EQ(cudamaster::exec::Executor::from_json(json::object()).describe(), "local");  // a run from before executors
  e.launcher.kind = "slurm";
  e.launcher.args = {"--partition=gpu"};
  e.launcher.work_root = "/shared/w";
  e.jobs = 3;
  const auto b = cudamaster::exec::Executor::from_json(json::parse(e.to_json().dump()));
  EXPECT_EQ(b.jobs, 3);
  EXPECT_EQ(b.launcher.args, e.launcher.args);
  EXPECT_EQ(b.describe(), "slurm (srun --partition=gpu; work dir /shared/w), 3 job steps at once");
}

// The HTML report escapes every string it prints: plans, messages and kernel sources are untrusted.
TEST(HtmlReport, EscapesUntrustedTextAndMarksWinsAndLosses) {
  EXPECT_EQ(cudamaster::loop::html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  using nlohmann::json;
  json doc = {{"run", 3},
              {"status", "finished"},
              {"llm", "replay:x<y>.jsonl"},
              {"created_at", "2026-11-30T00:00:00Z"},
              {"active_seconds", 60.0},
              {"sessions", 1},
              {"config", {{"device", {{"name", "H200"}}}, {"loop", {{"rounds", 2}}}}},
              {"summary",
               {{"suite", {{"tasks", 2}, {"correct", 1}, {"success_rate", 0.5}, {"fast_1", 0.5}, {"mean_p", 1.25}}},
                {"tasks", json::array({{{"task", "softmax"}, {"precision", "bf16"}, {"status", "finished"}, {"p", 1.25}, {"vs_vendor", 0.8}},
                                       {{"task", "rope"}, {"precision", "fp32"}, {"status", "failed"}, {"p", nullptr},
                                        {"message", "<img src=x onerror=alert(1)>"}}})},
                {"agents", json::array()},
                {"cost_usd", 0.5},
                {"tokens", {{"input", 10}, {"output", 20}}}}},
              {"jobs", json::array({{{"task", "softmax"},
                                     {"precision", "bf16"},
                                     {"status", "finished"},
                                     {"stop_reason", "rounds"},
                                     {"result", {{"best", {{"origin", "candidate"}, {"p", 1.25}}}}},
                                     {"rounds", json::array({{{"round", 1}, {"outcome", "accepted"}, {"p", 1.25}, {"best_p_before", 1.0},
                                                              {"best_p_after", 1.25}, {"plan", "use <shared> memory & vectorize"}}})},
                                     {"evaluations", json::array()},
                                     {"profiles", json::array()},
                                     {"best_source", "#include <cuda_bf16.h>\n// </pre><script>x</script>\n"}}})}};
  const std::string html = cudamaster::loop::render_html(doc);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(html.find("#include &lt;cuda_bf16.h&gt;"), std::string::npos);
  EXPECT_NE(html.find("use &lt;shared&gt; memory &amp; vectorize"), std::string::npos);
  EXPECT_NE(html.find("replay:x&lt;y&gt;.jsonl"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"win\">1.25</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"loss\">0.80</td>"), std::string::npos);
  EXPECT_NE(html.find("<b>50%</b><span>success rate"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"P per round: softmax bf16\""), std::string::npos) << "P per round";
  EXPECT_NE(html.find("href=\"#task-rope-fp32\""), std::string::npos);
}
