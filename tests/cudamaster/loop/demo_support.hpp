// The shipped demos (data/demo/matrix_vector_mul_fp32*: the README's demo, data/demo/spmv_csr_fp32*,
// data/demo/suite4*: four tasks, and data/demo/vadd*: a built-in task re-expressed as a task file,
// named in script.json's "task_file"): how their cassettes are recorded and replayed on a CPU.
// The answers in a demo folder's *.md are fed to the real loop by a scripted LLM in the order its
// script.json gives; the evaluator is scripted
// (script.json's verdicts and times), the builder is the real nvcc (--real-nvcc, genuine
// diagnostics) or scripted. The loop's requests and the answers are recorded as the cassette. A
// suite folder's script.json lists task folders ("tasks"), recorded one job at a time in that
// order. On a GPU a cassette replays with --replay-match system (one task) or task (several tasks,
// any --jobs): the prompts then carry real measurements, the agents' answers are these.
#pragma once

#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "cudamaster/loop/backends.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/util/sha256.hpp"
#include "support/agent_doubles.hpp"

namespace cmtest {

inline std::string demo_dir() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/spmv_csr_fp32"; }
inline std::string demo_cassette() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/spmv_csr_fp32.jsonl"; }
inline std::string gemv_dir() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/matrix_vector_mul_fp32"; }
inline std::string gemv_cassette() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/matrix_vector_mul_fp32.jsonl"; }
inline std::string suite_dir() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/suite4"; }
inline std::string vadd_dir() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/vadd"; }
inline std::string vadd_cassette() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/vadd.jsonl"; }
inline std::string suite_cassette() { return std::string(MSKB_SOURCE_ROOT) + "/data/demo/suite4.jsonl"; }

// Whether `dir` holds a suite (script.json lists task folders) rather than one task's demo.
inline bool is_demo_suite(const std::string& dir) { return json::parse(read_file(dir + "/script.json")).contains("tasks"); }

class Demo {
 public:
  explicit Demo(std::string dir) : dir_(std::move(dir)) {
    script_ = json::parse(read_file(dir_ + "/script.json"));
    // A demo of a user's task names its task file ("task_file", relative to the demo folder).
    if (script_.contains("task_file")) {
      task_file_ = std::filesystem::absolute(dir_ + "/" + script_["task_file"].get<std::string>()).lexically_normal().string();
      (void)mskb::register_task_file(task_file_);
    }
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
  std::string task() const { return script_["task"].get<std::string>(); }
  // The task file of a user's task (absolute), empty for a built-in task.
  const std::string& task_file() const { return task_file_; }
  const std::string& dir() const { return dir_; }

  // The size the scripted times grow with: a dimension of the shape ("size", default "rows") or
  // the task's complexity ("size": "complexity").
  double size_of(const mskb::TaskSpec& spec, const mskb::Shape& s) const {
    const std::string key = script_.value("size", "rows");
    return static_cast<double>(key == "complexity" ? static_cast<std::int64_t>(spec.complexity(s)) : s[key]);
  }

  // What script.json says about the candidate with this source (null for baseline/vendor).
  const json* spec_for(const std::string& source) const {
    const std::string sha = mskb::sha256_hex(source);
    for (const Answer& a : answers_)
      if (a.sha == sha) return &a.spec;
    return nullptr;
  }

  // What the demos say about the candidate with this source (null when none has it).
  static const json* spec_in(const std::vector<const Demo*>& demos, const std::string& source) {
    for (const Demo* d : demos)
      if (const json* s = d->spec_for(source)) return s;
    return nullptr;
  }

  class Builder final : public loop::KernelBuilder {
   public:
    explicit Builder(const Demo& d) : demos_{&d} {}
    explicit Builder(std::vector<const Demo*> demos) : demos_(std::move(demos)) {}
    mskb::CompileResult build(const loop::BuildRequest& r) override {
      mskb::CompileResult c;
      const json* s = spec_in(demos_, slurp(r.path));
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
    std::vector<const Demo*> demos_;
  };

  // Stateless, so concurrent jobs may share it.
  class Evaluator final : public loop::CandidateEvaluator {
   public:
    explicit Evaluator(const Demo& d) : demos_{&d} {}
    explicit Evaluator(std::vector<const Demo*> demos) : demos_(std::move(demos)) {}
    mskb::ContenderResult evaluate(const loop::EvalRequest& r) override {
      const Demo* found = nullptr;
      for (const Demo* d : demos_)
        if (d->task() == r.spec->name) found = d;
      if (found == nullptr) throw std::runtime_error("no demo scripts task " + r.spec->name);
      const Demo& d = *found;
      mskb::ContenderResult res;
      res.task = r.spec->name;
      res.precision = mskb::to_string(r.precision);
      res.contender = r.contender;
      res.kernel = r.kernel;
      res.checks_total = 3 * static_cast<int>(r.spec->paper.size() + r.spec->heldout.size());
      json verdict;
      if (r.contender == "baseline" || r.contender == "vendor") {
        verdict = d.script()[r.contender];
        verdict["disposition"] = "passed";
      } else {
        const json* s = d.spec_for(slurp(r.kernel));
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
        const auto checked = static_cast<std::int64_t>(d.size_of(*r.spec, shape));
        res.failure = {{"sweep", "paper"}, {"shape_str", shape.str()}, {"seed", 1},
                       {"detail", {{"checked", checked}, {"mismatches", checked - 1}, {"nans", 0}, {"unwritten", 0},
                                   {"max_abs_err", 4.41}, {"max_err_over_tol", 1.1e5}, {"atol", 1e-5}, {"rtol", 4.5e-6},
                                   {"param", "y"},
                                   {"first_mismatches", {{{"index", 0}, {"got", 0.0463}, {"want", 1.3177}},
                                                         {{"index", 1}, {"got", -0.2271}, {"want", -0.4398}},
                                                         {{"index", 2}, {"got", 0.5902}, {"want", 2.0871}}}},
                                   {"message", std::to_string(checked - 1) + " of " + std::to_string(checked) +
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
        t.time.median_us = a + b * d.size_of(*r.spec, s);
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
    std::vector<const Demo*> demos_;
  };

 private:
  struct Answer {
    std::string agent, text, sha;
    json spec;
  };
  std::string dir_;
  std::string task_file_;
  json script_;
  std::vector<Answer> answers_;
};

// A suite: the demos of the task folders its script.json lists, in that order, all at the same
// precision and number of rounds.
class DemoSuite {
 public:
  explicit DemoSuite(const std::string& dir) {
    const json script = json::parse(read_file(dir + "/script.json"));
    for (const json& t : script["tasks"]) demos_.push_back(std::make_unique<Demo>(dir + "/" + t.get<std::string>()));
    if (demos_.empty()) throw std::runtime_error(dir + "/script.json lists no tasks");
    for (const auto& d : demos_)
      if (d->script()["precision"] != demos_[0]->script()["precision"] || d->script()["rounds"] != demos_[0]->script()["rounds"])
        throw std::runtime_error(d->dir() + ": every task of a suite needs the same precision and rounds");
  }
  std::vector<const Demo*> demos() const {
    std::vector<const Demo*> out;
    for (const auto& d : demos_) out.push_back(d.get());
    return out;
  }
  // {task: script.json's "expect"} for every task.
  json expect() const {
    json out = json::object();
    for (const auto& d : demos_) out[d->task()] = d->script()["expect"];
    return out;
  }

 private:
  std::vector<std::unique_ptr<Demo>> demos_;
};

// The task a request's prompt is about: the word before " (" on the first line of its first user
// message ("# Task: NAME (fp32, ...)", "# Build of a kernel for NAME (fp32) failed").
inline std::string task_named_by(const llm::ChatRequest& request) {
  for (const llm::Message& m : request.messages) {
    if (m.role != llm::Role::User) continue;
    const std::string line = m.content.substr(0, m.content.find('\n'));
    const std::size_t paren = line.find(" (");
    if (paren == std::string::npos || paren == 0) return "";
    const std::size_t space = line.rfind(' ', paren - 1);
    const std::size_t begin = space == std::string::npos ? 0 : space + 1;
    return line.substr(begin, paren - begin);
  }
  return "";
}

// Each task's scripted answers, served to the requests about that task.
class TaskRoutedProvider final : public llm::Provider {
 public:
  explicit TaskRoutedProvider(const std::vector<const Demo*>& demos) {
    for (const Demo* d : demos) by_task_[d->task()] = d->provider();
  }
  std::string name() const override { return "openai-compatible"; }
  std::string model() const override { return "cudamaster-demo-script"; }
  std::string endpoint() const override { return "script://"; }
  llm::Result<llm::ChatResponse> complete(const llm::ChatRequest& request) override {
    const std::string task = task_named_by(request);
    const auto it = by_task_.find(task);
    if (it == by_task_.end())
      return llm::make_error(llm::LlmErrorKind::InvalidArgument, name(), "a request about no scripted task ('" + task + "')");
    return it->second->complete(request);
  }

 private:
  std::map<std::string, std::unique_ptr<ScriptedProvider>> by_task_;
};

inline loop::OptimizeRequest demo_request(const std::vector<const Demo*>& demos, const std::string& work) {
  loop::OptimizeRequest r;
  for (const Demo* d : demos) {
    r.tasks.push_back(d->task());
    if (!d->task_file().empty()) r.config.task_files.push_back(d->task_file());
  }
  r.precisions = {mskb::parse_precision(demos.front()->script()["precision"])};
  r.config.rounds = demos.front()->script()["rounds"];
  r.config.profile = cudamaster::profile::RenderMode::none;
  r.db_path = work + "/demo.db";
  r.out_dir = work + "/out";
  r.device = {{"name", "NVIDIA H200"}};
  return r;
}

inline loop::OptimizeRequest demo_request(const Demo& d, const std::string& work) { return demo_request(std::vector<const Demo*>{&d}, work); }

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

// The same per task of run 1: {task: {rounds, attempts}}, as DemoSuite::expect lists them.
inline json demo_outcomes(const std::string& db) {
  auto s = store::RunStore::open(db);
  json out = json::object();
  for (const auto& j : s->jobs(1)) {
    json& t = out[j.task];
    t = {{"rounds", json::array()}, {"attempts", json::array()}};
    for (const json& r : s->rows("rounds", j.id)) {
      t["rounds"].push_back(r["outcome"]);
      t["attempts"].push_back(r["attempts"]);
    }
  }
  return out;
}

// Records the cassette of the demo or suite in `dir` to `out` (one job at a time); returns the
// run's summary. Throws when the story differs from the scripts' "expect".
inline json record_demo(const std::string& dir, const std::string& out, bool real_nvcc, const std::string& work) {
  const bool suite = is_demo_suite(dir);
  std::unique_ptr<DemoSuite> demo_suite;
  std::unique_ptr<Demo> single;
  std::vector<const Demo*> demos;
  if (suite) {
    demo_suite = std::make_unique<DemoSuite>(dir);
    demos = demo_suite->demos();
  } else {
    single = std::make_unique<Demo>(dir);
    demos = {single.get()};
  }
  Demo::Builder scripted_builder(demos);
  loop::MskbBuilder nvcc(work + "/kernel-cache");
  Demo::Evaluator evaluator(demos);
  std::unique_ptr<llm::Provider> scripted;
  if (suite) scripted = std::make_unique<TaskRoutedProvider>(demos);
  else scripted = single->provider();
  auto provider = llm::make_recording_provider(std::move(scripted), out);
  if (!provider) throw std::runtime_error(provider.error().describe());
  auto client = std::make_unique<llm::LlmClient>(std::move(provider).value(), llm::PricingTable::builtin(), std::make_shared<llm::Budget>());
  auto gateway = loop::LlmGateway::wrap(std::move(client));
  loop::Backends b;
  b.builder = real_nvcc ? static_cast<loop::KernelBuilder*>(&nvcc) : &scripted_builder;
  b.evaluator = &evaluator;
  b.gateway = gateway.get();
  const auto res = loop::run_optimize(demo_request(demos, work), b, [](const std::string& l) { std::fprintf(stderr, "%s\n", l.c_str()); });
  const json got = suite ? demo_outcomes(work + "/demo.db") : demo_outcome(work + "/demo.db");
  const json want = suite ? demo_suite->expect() : single->script()["expect"];
  if (got != want) throw std::runtime_error("the demo did not follow its script: got " + got.dump() + ", expected " + want.dump());
  return res.summary;
}

}  // namespace cmtest
