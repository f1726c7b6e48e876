// The shipped demo (data/demo/spmv_csr_fp32*): how its cassette is recorded and replayed on a
// CPU. The answers in data/demo/spmv_csr_fp32/*.md are fed to the real loop by a scripted LLM in
// the order script.json gives; the evaluator is scripted (script.json's verdicts and times), the
// builder is the real nvcc (--real-nvcc, genuine diagnostics) or scripted. The loop's requests and
// the answers are recorded as the cassette. On a GPU the cassette replays with
// --replay-match system: the prompts then carry real measurements, the agents' answers are these.
#pragma once

#include <cmath>
#include <stdexcept>

#include "cudamaster/loop/backends.hpp"
#include "mskb/util/sha256.hpp"
#include "support/agent_doubles.hpp"

namespace cmtest {

inline std::string demo_dir() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/spmv_csr_fp32"; }
inline std::string demo_cassette() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/spmv_csr_fp32.jsonl"; }

class Demo {
 public:
  explicit Demo(std::string dir) : dir_(std::move(dir)) {
    script_ = json::parse(read_file(dir_ + "/script.json"));
    const auto& spec = mskb::get_task(script_["task"].get<std::string>());
    const auto entry = agents::make_task_brief(spec, mskb::parse_precision(script_["precision"]), false, "").entry;
    for (const json& a : script_["answers"]) {
      Answer ans;
      ans.agent = a["agent"];
      ans.text = read_file(dir_ + "/" + a["file"].get<std::string>());
      if (ans.text.empty()) throw std::runtime_error("empty or missing demo answer " + a["file"].get<std::string>());
      ans.spec = a;
      if (ans.agent == "coder" || ans.agent == "debug") {
        const agents::CodeAnswer code = agents::parse_code_answer(ans.text, entry);
        if (!code.ok) throw std::runtime_error(a["file"].get<std::string>() + ": " + code.describe());
        ans.sha = mskb::sha256_hex(code.code);
      }
      answers_.push_back(ans);
    }
  }

  std::unique_ptr<ScriptedProvider> provider() const {
    auto p = std::make_unique<ScriptedProvider>("openai-compatible", "cudamaster-demo-script");
    for (const Answer& a : answers_) {
      const agents::Agent agent = a.agent == "planner" ? agents::Agent::planner
                                  : a.agent == "coder" ? agents::Agent::coder
                                  : a.agent == "debug" ? agents::Agent::debug
                                                       : agents::Agent::compiler;
      p->add(agent, a.text);
    }
    return p;
  }

  const json& script() const { return script_; }

  // What script.json says about the candidate with this source (null for baseline/vendor).
  const json* spec_for(const std::string& source) const {
    const std::string sha = mskb::sha256_hex(source);
    for (const Answer& a : answers_)
      if (a.sha == sha) return &a.spec;
    return nullptr;
  }

  class Builder final : public loop::KernelBuilder {
   public:
    explicit Builder(const Demo& d) : d_(d) {}
    mskb::CompileResult build(const loop::BuildRequest& r) override {
      mskb::CompileResult c;
      const json* s = d_.spec_for(slurp(r.path));
      if (s != nullptr && s->contains("build")) {
        const json& b = (*s)["build"];
        c.log = r.path + "(" + std::to_string(b.value("line", 1)) + "): error: " + b.value("error", "") + "\n\n1 error detected in the compilation of \"" +
                r.path + "\".\n";
        c.diagnostics = mskb::parse_nvcc_diagnostics(c.log);
        c.error = "compile error: " + b.value("error", "");
        return c;
      }
      c.ok = true;
      c.so_path = r.path;
      return c;
    }

   private:
    const Demo& d_;
  };

  class Evaluator final : public loop::CandidateEvaluator {
   public:
    explicit Evaluator(const Demo& d) : d_(d) {}
    mskb::ContenderResult evaluate(const loop::EvalRequest& r) override {
      mskb::ContenderResult res;
      res.task = r.spec->name;
      res.precision = mskb::to_string(r.precision);
      res.contender = r.contender;
      res.kernel = r.kernel;
      res.checks_total = 3 * static_cast<int>(r.spec->paper.size() + r.spec->heldout.size());
      json verdict;
      if (r.contender == "baseline" || r.contender == "vendor") {
        verdict = d_.script()[r.contender];
        verdict["disposition"] = "passed";
      } else {
        const json* s = d_.spec_for(slurp(r.kernel));
        if (s == nullptr || !s->contains("eval")) throw std::runtime_error("the demo script has no verdict for " + r.kernel);
        verdict = (*s)["eval"];
      }
      res.disposition = verdict.value("disposition", mskb::Disposition::passed);
      if (r.mode == loop::kEvalMemcheck || r.mode == loop::kEvalRacecheck) {  // the acceptance gate: no timing
        res.checks_total = sanitizer_checks(*r.spec);
        if (res.disposition == mskb::Disposition::passed) res.checks_passed = res.checks_total;
        return res;
      }
      if (res.disposition == mskb::Disposition::wrong_result) {
        const mskb::Shape& shape = r.spec->paper.front();
        res.failure = {{"sweep", "paper"}, {"shape_str", shape.str()}, {"seed", 1},
                       {"detail", {{"checked", shape["rows"]}, {"mismatches", shape["rows"] - 1}, {"nans", 0}, {"unwritten", 0},
                                   {"max_abs_err", 4.41}, {"max_err_over_tol", 1.1e5}, {"atol", 1e-5}, {"rtol", 4.5e-6},
                                   {"param", "y"},
                                   {"first_mismatches", {{{"index", 0}, {"got", 0.0463}, {"want", 1.3177}},
                                                         {{"index", 1}, {"got", -0.2271}, {"want", -0.4398}},
                                                         {{"index", 2}, {"got", 0.5902}, {"want", 2.0871}}}},
                                   {"message", std::to_string(shape["rows"] - 1) + " of " + std::to_string(shape["rows"]) +
                                                   " elements outside tolerance (0 NaN) in 'y'"}}}};
        res.message = "wrong_result at " + shape.str() + " (paper, seed 1): " + res.failure["detail"]["message"].get<std::string>();
        return res;
      }
      res.checks_passed = res.checks_total;
      const double a = verdict["time_us"].value("a", 5.0), b = verdict["time_us"].value("b", 0.0);
      for (const mskb::Shape& s : r.spec->paper) {
        mskb::ShapeTiming t;
        t.sweep = mskb::Sweep::paper;
        t.shape = s;
        t.complexity = r.spec->complexity(s);
        t.time.median_us = a + b * static_cast<double>(s["rows"]);
        t.time.min_us = t.time.median_us * 0.99;
        t.time.max_us = t.time.median_us * 1.03;
        t.time.n = 200;
        t.time.noise = 0.003;
        t.disposition = mskb::Disposition::passed;
        const mskb::Cost cost = r.spec->cost(s, r.precision);
        t.roofline_us = cost.bytes / 4.3e9 * 1e6 / 1000.0;  // 4.3 TB/s
        res.timings.push_back(t);
      }
      return res;
    }

   private:
    const Demo& d_;
  };

 private:
  struct Answer {
    std::string agent, text, sha;
    json spec;
  };
  std::string dir_;
  json script_;
  std::vector<Answer> answers_;
};

inline loop::OptimizeRequest demo_request(const Demo& d, const std::string& work) {
  loop::OptimizeRequest r;
  r.tasks = {d.script()["task"].get<std::string>()};
  r.precisions = {mskb::parse_precision(d.script()["precision"])};
  r.config.rounds = d.script()["rounds"];
  r.config.profile = cudamaster::profile::RenderMode::none;
  r.db_path = work + "/demo.db";
  r.out_dir = work + "/out";
  r.device = {{"name", "NVIDIA H200"}};
  return r;
}

// The rounds' outcomes and fix attempts of run 1 in `db`, as script.json's "expect" lists them.
inline json demo_outcome(const std::string& db) {
  auto s = store::RunStore::open(db);
  json out = {{"rounds", json::array()}, {"attempts", json::array()}};
  for (const auto& j : s->jobs(1))
    for (const json& r : s->rows("rounds", j.id)) {
      out["rounds"].push_back(r["outcome"]);
      out["attempts"].push_back(r["attempts"]);
    }
  return out;
}

// Records the demo cassette to `out`; returns the run's summary. Throws when the story differs
// from script.json's "expect".
inline json record_demo(const std::string& dir, const std::string& out, bool real_nvcc, const std::string& work) {
  Demo d(dir);
  Demo::Builder scripted_builder(d);
  loop::MskbBuilder nvcc(work + "/kernel-cache");
  Demo::Evaluator evaluator(d);
  auto provider = llm::make_recording_provider(d.provider(), out);
  if (!provider) throw std::runtime_error(provider.error().describe());
  auto client = std::make_unique<llm::LlmClient>(std::move(provider).value(), llm::PricingTable::builtin(), std::make_shared<llm::Budget>());
  auto gateway = loop::LlmGateway::wrap(std::move(client));
  loop::Backends b;
  b.builder = real_nvcc ? static_cast<loop::KernelBuilder*>(&nvcc) : &scripted_builder;
  b.evaluator = &evaluator;
  b.gateway = gateway.get();
  const auto res = loop::run_optimize(demo_request(d, work), b, [](const std::string& l) { std::fprintf(stderr, "%s\n", l.c_str()); });
  const json got = demo_outcome(work + "/demo.db");
  if (got != d.script()["expect"])
    throw std::runtime_error("the demo did not follow its script: got " + got.dump() + ", expected " + d.script()["expect"].dump());
  return res.summary;
}

}  // namespace cmtest
