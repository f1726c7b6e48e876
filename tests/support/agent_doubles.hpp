// Test doubles for the agent loop: a scripted LLM provider that answers each agent from its own
// queue, in-process fakes of the builder, evaluator and profiler (driven by the markers of
// fake_markers.hpp), kernel files for spmv_csr, and a helper that runs the loop in-process.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <map>
#include <mutex>
#include <thread>

#include "cudamaster/agents/agents.hpp"
#include "cudamaster/loop/optimizer.hpp"
#include "cudamaster/loop/summary.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/suite.hpp"
#include "support/fake_markers.hpp"
#include "support/llm_doubles.hpp"

namespace cmtest {

// The checks a sanitizer-gate evaluation makes (mskb::sanitizer_subset: its shapes x its seeds).
inline int sanitizer_checks(const mskb::TaskSpec& spec) {
  const mskb::TaskSpec subset = mskb::sanitizer_subset(spec);
  return subset.seeds * static_cast<int>(subset.paper.size() + subset.heldout.size());
}

namespace agents = cudamaster::agents;
namespace loop = cudamaster::loop;
namespace store = cudamaster::store;
using nlohmann::json;

// An answer that ends with finish_reason "length" (cut at the token limit).
inline std::string truncated(const std::string& text) { return "<<truncated>>" + text; }

// Answers each agent from its own queue (the agent is read from the system prompt). Reports
// usage of about one token per four characters, as provider `provider:model`.
class ScriptedProvider final : public llm::Provider {
 public:
  explicit ScriptedProvider(std::string provider = "openai-compatible", std::string model = "scripted")
      : provider_(std::move(provider)), model_(std::move(model)) {}
  void add(agents::Agent a, std::string text) {
    std::lock_guard<std::mutex> lock(mutex_);
    queues_[a].push_back(std::move(text));
  }
  std::string name() const override { return provider_; }
  std::string model() const override { return model_; }
  std::string endpoint() const override { return "script://"; }
  llm::Result<llm::ChatResponse> complete(const llm::ChatRequest& request) override {
    const auto agent = agents::agent_of(request);
    std::string text;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!agent) return llm::make_error(llm::LlmErrorKind::InvalidArgument, provider_, "request for no known agent");
      auto& q = queues_[*agent];
      if (q.empty())
        return llm::make_error(llm::LlmErrorKind::ReplayExhausted, provider_,
                               std::string("no scripted answer left for the ") + agents::to_string(*agent));
      text = q.front();
      q.pop_front();
      requests.push_back(request);
    }
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    llm::ChatResponse r;
    r.provider = provider_;
    r.model = model_;
    r.response_model = model_;
    r.finish_reason = llm::FinishReason::Stop;
    r.finish_reason_raw = "stop";
    const std::string mark = "<<truncated>>";
    if (text.rfind(mark, 0) == 0) {
      text = text.substr(mark.size());
      r.finish_reason = llm::FinishReason::Length;
      r.finish_reason_raw = "length";
    }
    r.text = text;
    std::size_t chars = 0;
    for (const auto& m : request.messages) chars += m.content.size();
    r.usage.input_tokens = static_cast<std::int64_t>(chars / 4 + 1);
    r.usage.output_tokens = static_cast<std::int64_t>(text.size() / 4 + 1);
    r.raw_request = "{}";
    r.raw_response = "{}";
    return r;
  }
  std::vector<llm::ChatRequest> requests;
  int delay_ms = 0;

 private:
  std::string provider_, model_;
  std::mutex mutex_;
  std::map<agents::Agent, std::deque<std::string>> queues_;
};

// Builds like the fake nvcc, in-process.
class FakeBuilder final : public loop::KernelBuilder {
 public:
  mskb::CompileResult build(const loop::BuildRequest& r) override {
    ++builds;
    mskb::CompileResult c;
    const Markers m = read_markers(slurp(r.path));
    if (!m.build_error.empty()) {
      c.log = r.path + "(" + std::to_string(m.build_error_line) + "): error: " + m.build_error + "\n";
      c.diagnostics = mskb::parse_nvcc_diagnostics(c.log);
      c.error = "compile error: " + m.build_error;
      return c;
    }
    if (m.policy_refuses && r.binary_policy) {  // as mskb::compile_kernel reports a binary-policy refusal
      c.so_path = r.path;
      c.policy_checked = c.refused_policy = true;
      c.policy_violations = {{"import", "cudaStreamCreate", "creates a stream (work could outlive the call)"}};
      c.error = "rejected_static: " + c.policy_violations[0].describe();
      return c;
    }
    if (m.needs_90a && r.recipe.arch != "90a") {
      c.log = "ptxas fatal   : Instruction 'wgmma.mma_async' requires .target 'sm_90a'\n";
      c.diagnostics = mskb::parse_nvcc_diagnostics(c.log);
      c.error = "compile error: Instruction 'wgmma.mma_async' requires .target 'sm_90a'";
      return c;
    }
    c.ok = true;
    c.so_path = r.path;
    return c;
  }
  std::atomic<int> builds{0};
};

// Evaluates like the fake runner, in-process; records how many evaluations were in flight at
// once, in all and on each GPU lane.
class FakeEvaluator final : public loop::CandidateEvaluator {
 public:
  mskb::ContenderResult evaluate(const loop::EvalRequest& r) override {
    const int now = ++in_flight;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      max_in_flight = std::max(max_in_flight, now);
      const int on_lane = ++in_flight_on_[r.gpu];
      max_in_flight_on[r.gpu] = std::max(max_in_flight_on[r.gpu], on_lane);
      libraries.push_back(r.library);
      gpus.push_back({mskb::to_string(r.precision), r.gpu});
    }
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    mskb::ContenderResult res;
    res.task = r.spec->name;
    res.precision = mskb::to_string(r.precision);
    res.contender = r.contender;
    res.kernel = r.kernel;
    Markers m = read_markers(slurp(r.library));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      modes.push_back(r.contender + "/" + r.mode);
    }
    const bool sanitize = r.mode == loop::kEvalMemcheck || r.mode == loop::kEvalRacecheck;
    if (r.mode == loop::kEvalRemeasure && m.remeasure_speed > 0) m.speed = m.remeasure_speed;
    res.checks_total = 3 * static_cast<int>(r.spec->paper.size() + r.spec->heldout.size());
    if (sanitize) res.checks_total = sanitizer_checks(*r.spec);
    if (sanitize && m.sanitizer_tool == r.mode) {
      res.disposition = mskb::Disposition::sanitizer_error;
      res.message = "sanitizer_error: " + m.sanitizer_line;
      res.checks_passed = res.checks_total;
    } else if (sanitize && (m.eval == "passed")) {
      res.disposition = mskb::Disposition::passed;
      res.checks_passed = res.checks_total;
    } else if (m.eval == "wrong_result" || m.eval == "heldout_wrong") {
      const bool heldout = m.eval == "heldout_wrong";
      const mskb::Shape& s = heldout ? r.spec->heldout.front() : r.spec->paper.front();
      res.disposition = mskb::Disposition::wrong_result;
      res.failure = {{"sweep", heldout ? "heldout" : "paper"}, {"shape_str", s.str()}, {"seed", 1},
                     {"detail", {{"checked", 1024}, {"mismatches", 1000}, {"max_abs_err", 3.25}, {"max_err_over_tol", 25000.0},
                                 {"atol", 1e-5}, {"rtol", 1e-5}, {"param", "y"},
                                 {"first_mismatches", {{{"index", 0}, {"got", 0.5}, {"want", 3.75}}}},
                                 {"message", "1000 of 1024 elements outside tolerance (0 NaN) in 'y'"}}}};
      res.message = "wrong_result at " + s.str() + " (" + (heldout ? "heldout" : "paper") + ", seed 1): 1000 of 1024 elements outside tolerance";
    } else if (m.eval == "crash") {
      res.disposition = mskb::Disposition::crashed;
      res.message = "crashed: SIGSEGV during call";
    } else {
      res.disposition = mskb::Disposition::passed;
      res.checks_passed = res.checks_total;
      for (const mskb::Shape& s : r.spec->paper) {
        mskb::ShapeTiming t;
        t.sweep = mskb::Sweep::paper;
        t.shape = s;
        t.complexity = r.spec->complexity(s);
        double prod = 1;
        for (const auto& d : s.dims) prod *= static_cast<double>(d.second);
        t.time.median_us = fake_base_us(prod) / m.speed * jitter;
        t.time.n = 50;
        t.time.noise = 0.002;
        t.disposition = mskb::Disposition::passed;
        res.timings.push_back(t);
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --in_flight_on_[r.gpu];
    }
    --in_flight;
    return res;
  }
  std::atomic<int> in_flight{0};
  int max_in_flight = 0;
  std::map<std::string, int> max_in_flight_on;  // GPU lane -> the most evaluations at once on it
  int delay_ms = 0;
  double jitter = 1.0;  // multiplies every time (a "different GPU")
  std::vector<std::string> libraries;
  std::vector<std::string> modes;  // "<contender>/<mode>" per evaluation
  std::vector<std::pair<std::string, std::string>> gpus;  // (precision, lane device) per evaluation

 private:
  std::mutex mutex_;
  std::map<std::string, int> in_flight_on_;
};

class FakeProfiler final : public loop::ProfileProvider {
 public:
  loop::ProfileSummary profile(const loop::ProfileRequest& r) override {
    ++calls;
    loop::ProfileSummary s;
    s.ok = true;
    s.cls = "memory-latency";
    s.confidence = 0.8;
    s.source = "ncu";
    s.rendered = "Bottleneck: memory-latency (confidence 0.80) of " + std::string(cudamaster::profile::to_string(r.mode)) + " kernel " + r.kernel + "\n";
    return s;
  }
  std::atomic<int> calls{0};
};

// A spmv_csr kernel file (the right entry point) carrying `markers` as comments.
inline std::string spmv_kernel(const std::string& markers, const std::string& body_comment = "candidate") {
  return "// spmv_csr " + body_comment + "\n" + markers +
         "#include <cuda_runtime.h>\n"
         "__global__ void k(int rows, const float* v, const int* c, const int* o, const float* x, float* y) {\n"
         "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i >= rows) return;\n"
         "  float acc = 0.0f;\n"
         "  for (int p = o[i]; p < o[i + 1]; ++p) acc += v[p] * x[c[p]];\n"
         "  y[i] = acc;\n"
         "}\n"
         "extern \"C\" void spmv_csr(int rows, const float* values, const int* col_indices, const int* row_offsets,\n"
         "                           const float* x, float* y) {\n"
         "  if (rows > 0) k<<<(rows + 255) / 256, 256>>>(rows, values, col_indices, row_offsets, x, y);\n"
         "  cudaDeviceSynchronize();\n"
         "}\n";
}

inline std::string code_answer(const std::string& code, const std::string& prose = "Here is the kernel.") {
  return prose + "\n\n```cuda\n" + code + "```\n";
}

inline std::string plan_answer(const std::string& name, double speedup = 2.0) {
  return "The baseline is latency bound.\n```json\n{\"bottleneck\": \"serial loads\", \"strategies\": [{\"name\": \"" + name +
         "\", \"change\": \"do it\", \"expected_gain\": \"2x\"}], \"expected_speedup\": " + std::to_string(speedup) +
         ", \"rationale\": \"because\"}\n```\n";
}

// The scripted story used by several tests (R = 2): round 1: compile error -> Debug -> wrong
// result -> Debug -> correct but slower (rejected); round 2: faster (accepted).
inline void script_story(ScriptedProvider& p, bool with_planner = true) {
  using agents::Agent;
  if (with_planner) p.add(Agent::planner, plan_answer("block per row"));
  p.add(Agent::coder, code_answer(spmv_kernel("// fake-build: error identifier \"__shfl_down\" is undefined\n")));
  p.add(Agent::debug, code_answer(spmv_kernel("// fake-eval: wrong_result\n"), "The shuffle needs _sync."));
  p.add(Agent::debug, code_answer(spmv_kernel("// fake-eval: speed=0.3\n"), "The result was read from shared memory."));
  if (with_planner) p.add(Agent::planner, plan_answer("warp per row", 2.5));
  p.add(Agent::coder, code_answer(spmv_kernel("// fake-eval: speed=2.5\n"), "Warp per row."));
}

struct InProcess {
  TempDir dir;
  FakeBuilder builder;
  FakeEvaluator evaluator;
  FakeProfiler profiler;
  std::vector<std::string> lines;
  std::mutex lines_mutex;
  std::vector<std::unique_ptr<loop::LlmGateway>> gateways;

  loop::OptimizeRequest request(const std::string& llm_text = "replay:unused") {
    loop::OptimizeRequest r;
    r.tasks = {"spmv_csr"};
    r.llm = llm_text;
    r.db_path = dir.file("runs.db");
    r.out_dir = dir.file("out");
    r.config.rounds = 2;
    r.config.profile = cudamaster::profile::RenderMode::filtered;
    r.device = {{"name", "Fake H200"}};
    return r;
  }
  // Runs with `provider` (wrapped in a client with `budget`, recording to `record` if set).
  loop::OptimizeResult run(const loop::OptimizeRequest& r, std::unique_ptr<llm::Provider> provider,
                           std::shared_ptr<llm::Budget> budget = nullptr, const std::string& record = "",
                           const std::atomic<bool>* interrupted = nullptr) {
    if (!record.empty()) provider = std::move(llm::make_recording_provider(std::move(provider), record)).value();
    auto client = std::make_unique<llm::LlmClient>(std::move(provider), llm::PricingTable::builtin(),
                                                   budget ? budget : std::make_shared<llm::Budget>());
    gateways.push_back(loop::LlmGateway::wrap(std::move(client)));  // kept: tests inspect their providers afterwards
    loop::Backends b{&builder, &evaluator, &profiler, gateways.back().get()};
    return loop::run_optimize(r, b, [this](const std::string& s) {
      std::lock_guard<std::mutex> lock(lines_mutex);
      lines.push_back(s);
    }, interrupted);
  }
  // Runs against the client run_optimize builds itself from r.llm (e.g. replay:FILE).
  loop::OptimizeResult run_llm(const loop::OptimizeRequest& r) {
    loop::Backends b{&builder, &evaluator, &profiler, nullptr};
    return loop::run_optimize(r, b, [this](const std::string& s) {
      std::lock_guard<std::mutex> lock(lines_mutex);
      lines.push_back(s);
    });
  }
  std::string log() {
    std::lock_guard<std::mutex> lock(lines_mutex);
    std::string all;
    for (const auto& l : lines) all += l + "\n";
    return all;
  }
};

// Records the story cassette in-process (scripted LLM, in-process fakes with the same markers).
inline std::string record_story(const std::string& path) {
  InProcess rec;
  auto p = std::make_unique<ScriptedProvider>();
  script_story(*p);
  auto req = rec.request();
  req.config.profile = cudamaster::profile::RenderMode::none;
  EXPECT_EQ(rec.run(req, std::move(p), nullptr, path).status, cudamaster::store::Status::finished);
  return path;
}

// (agent, round, attempt) of every journaled call of a run, in order.
inline std::vector<std::string> call_trace(store::RunStore& s, std::int64_t run) {
  std::vector<std::string> out;
  for (const store::JobInfo& j : s.jobs(run))
    for (const json& c : s.rows("llm_calls", j.id))
      if (!c["seq"].is_null())
        out.push_back(j.task + "/" + c["agent"].get<std::string>() + "/r" + std::to_string(c["round"].get<int>()) + "/a" +
                      std::to_string(c["attempt"].get<int>()));
  return out;
}

}  // namespace cmtest
