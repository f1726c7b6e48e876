// The real `cudamaster` binary, faked only at the process boundary: MSKB_NVCC is the fake nvcc
// script, MSKB_RUNNER the fake mskb-runner, the LLM a replay cassette or a loopback HTTP server.
// A run is killed with SIGKILL at several points and resumed; the store must end up exactly as
// an uninterrupted run leaves it.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "mskb/core/registry.hpp"
#include "support/agent_doubles.hpp"
#include "support/child_process.hpp"
#if CM_HAVE_HTTPLIB
#include "support/fake_llm_server.hpp"
#endif

using namespace cmtest;
using agents::Agent;

namespace {

struct Cli : FakeCliDir {
  Proc run(const std::vector<std::string>& args, const std::string& program = CM_CUDAMASTER_BIN) { return run_program(args, program); }
};

std::vector<std::string> optimize_args(const std::string& cassette, const std::string& db, const std::string& out) {
  return {"optimize", "--task", "spmv_csr", "--llm", "replay:" + cassette, "--rounds", "2", "--profile", "none",
          "--db", db, "--out", out};
}

std::size_t lines_in(const std::string& path) { return read_lines(path).size(); }

}  // namespace

TEST(Cli, ReplayRunThroughTheBinaryWithEvaluationsInChildProcesses) {
  Cli c;
  const std::string cassette = record_story(c.dir.file("story.jsonl"));
  auto args = optimize_args(cassette, c.db(), c.dir.file("out"));
  args.push_back("--json");
  const Proc p = c.run(args);
  ASSERT_EQ(p.code, 0) << p.err;
  const json summary = json::parse(p.out);
  EXPECT_EQ(summary["status"], "finished");
  EXPECT_NEAR(summary["suite"]["mean_p"].get<double>(), 2.5, 1e-9);
  EXPECT_DOUBLE_EQ(summary["suite"]["success_rate"].get<double>(), 1.0);
  EXPECT_EQ(summary["config"]["device"]["name"], "Fake H200");
  EXPECT_NE(p.err.find("[spmv_csr fp32] round 1: coder: compile_error"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("round  outcome"), std::string::npos);
  EXPECT_NE(read_file(c.dir.file("out") + "/spmv_csr_fp32.cu").find("fake-eval: speed=2.5"), std::string::npos);
  // Baseline, vendor and three candidates, each judged by its own runner process, and for the
  // accepted candidate memcheck, racecheck and the re-measurement of baseline and candidate.
  EXPECT_EQ(lines_in(c.dir.file("runner.log")), 9u);

  const Proc runs = c.run({"runs", "--db", c.db()});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_NE(runs.out.find("finished"), std::string::npos) << runs.out;
  EXPECT_NE(runs.out.find("replay:"), std::string::npos);
  const Proc runs_json = c.run({"runs", "--db", c.db(), "--json"});
  EXPECT_EQ(json::parse(runs_json.out)[0]["jobs_done"], 1);

  const Proc show = c.run({"show", "1", "--db", c.db(), "--calls"});
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("round 1: rejected"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("round 2: accepted"), std::string::npos);
  EXPECT_NE(show.out.find("- debug 1: wrong_result"), std::string::npos);
  EXPECT_NE(show.out.find("recorded: 6 agent calls"), std::string::npos);
  const Proc call = c.run({"show", "1", "--db", c.db(), "--call", "1"});
  EXPECT_NE(call.out.find("===== system =====\nYou are the Planner"), std::string::npos) << call.out;
  EXPECT_NE(call.out.find("===== answer (stop) ====="), std::string::npos);
  const Proc cand = c.run({"show", "1", "--db", c.db(), "--candidate", "6"});
  EXPECT_NE(cand.out.find("extern \"C\" void spmv_csr"), std::string::npos) << cand.out;
  const Proc sj = c.run({"show", "1", "--db", c.db(), "--json"});
  EXPECT_EQ(json::parse(sj.out)["jobs"][0]["rounds"].size(), 2u);

  // The HTML report of the newest run: self-contained, every number from the store, sources escaped.
  const Proc rep = c.run({"report", "--db", c.db(), "--html", c.dir.file("run.html")});
  ASSERT_EQ(rep.code, 0) << rep.err;
  const std::string html = read_file(c.dir.file("run.html"));
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(html.find("<h1>CUDAMaster run 1: finished</h1>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"win\">2.50</td>"), std::string::npos) << "the task's best P";
  EXPECT_NE(html.find("<td>rejected</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>accepted</td>"), std::string::npos);
  EXPECT_NE(html.find("best kernel source"), std::string::npos);
  EXPECT_NE(html.find("extern &quot;C&quot; void spmv_csr"), std::string::npos) << "the best source, escaped";
  EXPECT_EQ(html.find("extern \"C\""), std::string::npos) << "unescaped source in the page";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos) << "no external resources";
  EXPECT_EQ(html.find("https://"), std::string::npos) << "no external resources";
  const Proc none = c.run({"report", "--db", c.db(), "--run", "7", "--html", c.dir.file("x.html")});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("cudamaster report: no run 7 in"), std::string::npos) << none.err;
}

// Two GPUs on the fake machine (FAKE_GPUS=2): four tasks, four jobs, --gpus 0,1, the four-task
// replay cassette. Every runner process records its task, its GPU and when it ran
// (FAKE_RUNNER_SPANS): each job's evaluations (baseline, vendor, candidates, the acceptance
// gate's) stay on one GPU, both GPUs are used, and no two evaluations overlap on one GPU, so none
// is timed beside another's work.
TEST(Cli, FourJobsOnTwoGpusKeepEachJobOnOneGpuAndOneEvaluationAtATimePerGpu) {
  Cli c;
  c.env["FAKE_GPUS"] = "2";
  c.env["FAKE_RUNNER_SPANS"] = c.dir.file("spans.log");
  c.env["FAKE_RUNNER_SLEEP_MS"] = "30";
  const Proc p = c.run({"optimize", "--task", "spmv_csr,vector_add,softmax,dot_product", "--precision", "fp32", "--jobs", "4", "--gpus",
                        "0,1", "--llm", std::string("replay:") + CM_SUITE4_CASSETTE, "--replay-match", "task", "--rounds", "2",
                        "--profile", "none", "--db", c.db(), "--out", c.dir.file("out"), "--json"});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(json::parse(p.out)["status"], "finished");
  EXPECT_NE(p.err.find("GPU lanes: 2 (CUDA_VISIBLE_DEVICES 0,1)"), std::string::npos) << p.err;
  struct Span {
    std::string task, gpu;
    long long begin = 0, end = 0;
  };
  std::vector<Span> spans;
  for (const std::string& line : read_lines(c.dir.file("spans.log"))) {
    Span s;
    char task[64] = {}, gpu[16] = {};
    ASSERT_EQ(std::sscanf(line.c_str(), "task=%63s gpu=%15s begin=%lld end=%lld", task, gpu, &s.begin, &s.end), 4) << line;
    s.task = task;
    s.gpu = gpu;
    spans.push_back(s);
  }
  std::map<std::string, std::set<std::string>> gpus_of;
  std::map<std::string, std::vector<Span>> on_gpu;
  for (const Span& s : spans) {
    gpus_of[s.task].insert(s.gpu);
    on_gpu[s.gpu].push_back(s);
  }
  ASSERT_EQ(gpus_of.size(), 4u) << "an evaluation of each task";
  for (const auto& [task, gpus] : gpus_of) EXPECT_EQ(gpus.size(), 1u) << task << " moved between GPUs";
  ASSERT_EQ(on_gpu.size(), 2u);
  EXPECT_EQ(on_gpu.count("0") + on_gpu.count("1"), 2u);
  for (auto& [gpu, list] : on_gpu) {
    std::sort(list.begin(), list.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    long long busy_until = 0;  // the latest end so far
    for (const Span& s : list) {
      EXPECT_GE(s.begin, busy_until) << "GPU " << gpu << ": " << s.task << " began while another evaluation ran";
      busy_until = std::max(busy_until, s.end);
    }
  }
  EXPECT_GE(spans.size(), 16u);  // a baseline, a vendor and candidates per task
}

TEST(Cli, UsageErrors) {
  Cli c;
  Proc p = c.run({"optimize", "--task", "spmv_csrr", "--llm", "replay:x", "--db", c.db()});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("unknown task 'spmv_csrr'"), std::string::npos) << p.err;
  p = c.run({"optimize", "--task", "spmv_csr", "--db", c.db()});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("--llm"), std::string::npos);
  p = c.run({"optimize", "--resume", "7", "--db", c.db()});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("no run store at " + c.db()), std::string::npos) << p.err;
  // A bad --llm is a usage error found before the GPU is probed (FAKE_GPUS=0 would say "no CUDA device").
  c.env["FAKE_GPUS"] = "0";
  p = c.run({"optimize", "--task", "spmv_csr", "--llm", "replay:/no/such/file.jsonl", "--db", c.db(), "--profile", "none"});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("cannot read cassette"), std::string::npos) << p.err;
  p = c.run({"optimize", "--task", "spmv_csr", "--llm", "gpt-4o", "--db", c.db()});
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(p.err.find("no CUDA device"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("bad --llm 'gpt-4o'"), std::string::npos) << p.err;
  EXPECT_FALSE(std::filesystem::exists(c.db()));
  c.env.erase("FAKE_GPUS");
  p = c.run({"runs", "--db", c.dir.file("missing.db")});
  EXPECT_EQ(p.code, 2);
  p = c.run({"show", "3", "--db", c.db()});
  EXPECT_EQ(p.code, 2);
}

TEST(Cli, KilledWithSigkillAndResumedLeavesTheStoreAsAnUninterruptedRun) {
  Cli ref;
  const std::string cassette = record_story(ref.dir.file("story.jsonl"));
  ASSERT_EQ(ref.run(optimize_args(cassette, ref.db(), ref.dir.file("out"))).code, 0);
  auto rs = store::RunStore::open(ref.db());
  const auto ref_trace = call_trace(*rs, 1);
  const auto ref_job = rs->jobs(1)[0];
  const auto ref_steps = rs->journal(ref_job.id);
  std::vector<std::string> ref_shas;
  for (const json& c : rs->rows("candidates", ref_job.id)) ref_shas.push_back(c["sha256"]);

  // Kill points: after the n-th agent call is recorded, or while the n-th evaluation runs.
  struct Kill {
    const char* table;
    int count;
  };
  for (const Kill k : {Kill{"llm_calls", 1}, Kill{"evaluations", 3}, Kill{"llm_calls", 4}, Kill{"candidates", 5}}) {
    SCOPED_TRACE(std::string(k.table) + " >= " + std::to_string(k.count));
    Cli c;
    c.env["FAKE_RUNNER_SLEEP_MS"] = "250";  // evaluations take a while: the kill lands mid-run
    const pid_t pid = spawn(optimize_args(cassette, c.db(), c.dir.file("out")), c.env, c.dir.file(""), "killed", CM_CUDAMASTER_BIN);
    bool killed = false;
    for (int i = 0; i < 3000 && !killed; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (!std::filesystem::exists(c.db())) continue;
      try {
        auto s = store::RunStore::open(c.db());
        if (s->runs().empty()) continue;
        if (s->count(k.table, 1) >= k.count) {
          ::kill(pid, SIGKILL);
          killed = true;
        }
      } catch (const store::StoreError&) {
        // the writer holds the lock while creating the schema: try again
      }
    }
    const Proc first = finish(pid, c.dir.file(""), "killed");
    ASSERT_TRUE(killed);
    ASSERT_EQ(first.code, 128 + SIGKILL);
    {
      auto s = store::RunStore::open(c.db());
      EXPECT_EQ(s->integrity_check(), "ok");
      EXPECT_EQ(s->run(1)->status, cudamaster::store::Status::running);
      EXPECT_LT(call_trace(*s, 1).size() + s->rows("rounds", s->jobs(1)[0].id).size(), ref_trace.size() + 2);
    }
    const Proc listed = c.run({"runs", "--db", c.db()});
    EXPECT_NE(listed.out.find("interrupted"), std::string::npos) << listed.out;
    const std::size_t evaluations_before = lines_in(c.dir.file("runner.log"));

    c.env.erase("FAKE_RUNNER_SLEEP_MS");
    const Proc resumed = c.run({"optimize", "--resume", "1", "--db", c.db()});
    ASSERT_EQ(resumed.code, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("resuming:"), std::string::npos) << resumed.err;

    auto s = store::RunStore::open(c.db());
    EXPECT_EQ(s->integrity_check(), "ok");
    EXPECT_EQ(s->run(1)->status, cudamaster::store::Status::finished);
    EXPECT_EQ(s->run(1)->sessions, 2);
    EXPECT_EQ(call_trace(*s, 1), ref_trace);
    const auto job = s->jobs(1)[0];
    const auto steps = s->journal(job.id);
    ASSERT_EQ(steps.size(), ref_steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].kind, ref_steps[i].kind) << "step " << i;
    std::vector<std::string> shas;
    for (const json& cand : s->rows("candidates", job.id)) shas.push_back(cand["sha256"]);
    EXPECT_EQ(shas, ref_shas);
    EXPECT_EQ(s->rows("rounds", job.id).size(), 2u);
    // At most the evaluation in flight at the kill ran twice.
    const std::size_t evaluations = lines_in(c.dir.file("runner.log"));
    EXPECT_LE(evaluations, 10u) << evaluations_before << " before the resume";
    EXPECT_GE(evaluations, 9u);
    EXPECT_EQ(read_file(c.dir.file("out") + "/spmv_csr_fp32.cu"), read_file(ref.dir.file("out") + "/spmv_csr_fp32.cu"));
  }
}

TEST(Cli, ResumingARunningRunIsRefused) {
  Cli c;
  const std::string cassette = record_story(c.dir.file("story.jsonl"));
  c.env["FAKE_RUNNER_SLEEP_MS"] = "2000";
  const pid_t pid = spawn(optimize_args(cassette, c.db(), c.dir.file("out")), c.env, c.dir.file(""), "slow", CM_CUDAMASTER_BIN);
  bool started = false;
  for (int i = 0; i < 2000 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    try {
      started = std::filesystem::exists(c.db()) && !store::RunStore::open(c.db())->runs().empty();
    } catch (const store::StoreError&) {
    }
  }
  ASSERT_TRUE(started);
  const Proc second = c.run({"optimize", "--resume", "1", "--db", c.db()});
  EXPECT_EQ(second.code, 1);
  EXPECT_NE(second.err.find("is still running"), std::string::npos) << second.err;
  ::kill(pid, SIGINT);  // the first Ctrl-C stops at the next step boundary
  const Proc first = finish(pid, c.dir.file(""), "slow");
  EXPECT_EQ(first.code, 3) << first.err;
  EXPECT_NE(first.err.find("continue it with: cudamaster optimize --resume 1"), std::string::npos) << first.err;
  auto s = store::RunStore::open(c.db());
  EXPECT_EQ(s->run(1)->status, cudamaster::store::Status::stopped);
  EXPECT_EQ(s->jobs(1)[0].stop_reason, "interrupted");
}

#if CM_HAVE_HTTPLIB
TEST(Cli, LiveRoundAgainstALoopbackOpenAICompatibleServer) {
  Cli c;
  FakeLlmServer server;
  server.enqueue(ScriptedReply(200, openai_reply(plan_answer("warp per row"), 900, 120)));
  server.enqueue(ScriptedReply(200, openai_reply(code_answer(spmv_kernel("// fake-eval: speed=2\n")), 1500, 400)));
  const Proc p = c.run({"optimize", "--task", "spmv_csr", "--llm", "openai-compatible:" + server.url() + "/v1:test-model", "--rounds",
                        "1", "--profile", "none", "--db", c.db(), "--out", c.dir.file("out"), "--json"});
  ASSERT_EQ(p.code, 0) << p.err;
  ASSERT_EQ(server.request_count(), 2u);
  const auto reqs = server.requests();
  EXPECT_EQ(reqs[0].path, "/v1/chat/completions");
  EXPECT_EQ(reqs[0].json["model"], "test-model");
  EXPECT_EQ(reqs[0].json["messages"][0]["content"].get<std::string>().rfind("You are the Planner", 0), 0u);
  EXPECT_EQ(reqs[1].json["messages"][0]["content"].get<std::string>().rfind("You are the Coder", 0), 0u);
  // The round's plan reached the Coder.
  EXPECT_NE(reqs[1].json["messages"][1]["content"].get<std::string>().find("1. warp per row: do it"), std::string::npos);

  auto s = store::RunStore::open(c.db());
  const auto job = s->jobs(1)[0];
  const auto calls = s->rows("llm_calls", job.id);
  ASSERT_EQ(calls.size(), 2u);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i]["provider"], "openai-compatible");
    EXPECT_EQ(calls[i]["model"], "test-model");
    EXPECT_EQ(calls[i]["endpoint"].get<std::string>().rfind(server.url(), 0), 0u) << calls[i]["endpoint"];
    EXPECT_EQ(calls[i]["replayed"], 0);
    EXPECT_EQ(json::parse(calls[i]["raw_request"].get<std::string>()), reqs[i].json);
    EXPECT_NE(calls[i]["raw_response"].get<std::string>().find("chatcmpl-test"), std::string::npos);
  }
  EXPECT_EQ(calls[0]["input_tokens"], 900);
  EXPECT_EQ(calls[1]["output_tokens"], 400);
  EXPECT_EQ(s->rows("rounds", job.id).size(), 1u);
  const json summary = json::parse(p.out);
  EXPECT_EQ(summary["tasks"][0]["best_origin"], "candidate");
  EXPECT_EQ(summary["tokens"]["input"], 2400);
}
#endif

// mskb itself over the fake runner: a timed run spreads (task, precision) groups over the GPU
// lanes and keeps each group on one GPU; wrong/ kernels are judged against their declared
// disposition (the fake runner passes everything, so each one is a FAIL and the exit code is 1).
TEST(MskbCli, LanesKeepEachGroupOnOneGpuAndWrongKernelsMustMatchTheirDeclaration) {
  Cli c;
  c.env["FAKE_GPUS"] = "2";
  c.env["FAKE_RUNNER_SLEEP_MS"] = "150";
  c.env.erase("CUDA_VISIBLE_DEVICES");
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "all", "--budget", "0.01", "--json", c.dir.file("run.json")}, CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  std::set<std::string> used;
  for (const std::string& line : read_lines(c.dir.file("runner.log"))) {
    const auto at = line.find(" gpu=");
    ASSERT_NE(at, std::string::npos) << "a runner without CUDA_VISIBLE_DEVICES: " << line;
    used.insert(line.substr(at + 5));
  }
  EXPECT_EQ(used, (std::set<std::string>{"0", "1"}));
  const json report = json::parse(read_file(c.dir.file("run.json")));
  std::map<std::string, std::set<std::string>> by_precision;
  for (const json& r : report["contenders"]) by_precision[r["precision"].get<std::string>()].insert(r["gpu"].get<std::string>());
  ASSERT_EQ(by_precision.size(), 2u);
  for (const auto& [prec, gpus] : by_precision) EXPECT_EQ(gpus.size(), 1u) << prec << ": baseline and vendor on different GPUs";
  EXPECT_NE(*by_precision["fp32"].begin(), *by_precision["bf16"].begin());

  const Proc bad = c.run({"run", "--task", "spmv_csr", "--gpus", "2"}, CM_MSKB_BIN);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--gpus: no GPU 2 (2 visible)"), std::string::npos) << bad.err;

  const Proc wrong = c.run({"check", "--task", "spmv_csr", "--contenders", "wrong", "--gpus", "1", "--precision", "fp32"}, CM_MSKB_BIN);
  EXPECT_EQ(wrong.code, 1) << wrong.err;
  EXPECT_NE(wrong.out.find("FAIL spmv_csr fp32 wrong/"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find(", got passed"), std::string::npos) << wrong.out;
  EXPECT_EQ(wrong.out.find("PASS"), std::string::npos) << wrong.out;
}

// --category picks every task of one category (and only those); it excludes --all and --task.
TEST(MskbCli, CategorySelectsEveryTaskOfThatCategory) {
  Cli c;
  const Proc p = c.run({"check", "--category", "scientific", "--contenders", "baseline", "--precision", "fp32", "--checks-per-gpu", "4",
                        "--json", c.dir.file("check.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  std::set<std::string> want, got;
  for (const auto& t : mskb::all_tasks())
    if (t.category == "scientific") want.insert(t.name);
  const json report = json::parse(read_file(c.dir.file("check.json")));
  for (const json& r : report["contenders"]) got.insert(r["task"].get<std::string>());
  EXPECT_EQ(got, want);
  EXPECT_GE(want.size(), 7u);
  for (const auto& args : std::vector<std::vector<std::string>>{{"check", "--category", "sparse", "--all"},
                                                                 {"run", "--category", "sparse", "--task", "spmv_csr"}}) {
    const Proc bad = c.run(args, CM_MSKB_BIN);
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_NE(bad.err.find("needs exactly one of --task T[,T...], --category C or --all"), std::string::npos) << bad.err;
  }
  EXPECT_NE(c.run({"check", "--category", "physics"}, CM_MSKB_BIN).code, 0);
}

// Device-busy gaps after a call are `unsynced` in a plain check, but not judged under the
// sanitizer (its instrumentation distorts them); memcheck leaves API errors to the harness.
// mskb run --sanitize: memcheck and racecheck on the smallest shapes before a contender (not a
// vendor) is timed; a report makes it sanitizer_error and it is not timed.
TEST(MskbCli, RunSanitizeGatesTheTimingOnComputeSanitizer) {
  Cli c;
  c.env["MSKB_SANITIZER"] = std::string(CM_AGENTS_FAKES) + "/compute-sanitizer";
  c.env["FAKE_SANITIZER_LOG"] = c.dir.file("sanitizer.log");
  const std::string kernel = c.dir.file("racy.cu");
  std::ofstream(kernel) << read_file(mskb::source_root() + "/tasks/sparse/spmv_csr/baseline_fp32.cu")
                        << "\n// fake-sanitizer: racecheck Race reported between Write access and Read access\n";
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--contenders", "baseline", "--kernel", kernel,
                        "--sanitize", "--budget", "0.01", "--json", c.dir.file("run.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 1) << p.err;  // a contender is not correct
  const json report = json::parse(read_file(c.dir.file("run.json")));
  ASSERT_EQ(report["contenders"].size(), 2u) << report.dump();
  for (const json& r : report["contenders"]) {
    if (r["contender"] == "baseline") {
      EXPECT_EQ(r["disposition"], "passed") << r.dump();
      EXPECT_EQ(r["sanitized"]["tools"], json({"memcheck", "racecheck"})) << r.dump();
      EXPECT_EQ(r["sanitized"]["shapes"], mskb::kSanitizerShapes) << r.dump();
      EXPECT_GT(r["phase_seconds"].value("sanitizer", 0.0), 0.0) << r.dump();
    } else {
      EXPECT_EQ(r["sanitized"]["tools"], json({"memcheck"})) << "memcheck ran clean before racecheck failed: " << r.dump();
      EXPECT_EQ(r["disposition"], "sanitizer_error") << r.dump();
      const std::string msg = r["message"];
      EXPECT_EQ(msg.rfind(std::string("racecheck on ") + mskb::kSanitizerShapes, 0), 0u) << msg;
      EXPECT_NE(msg.find("Race reported between Write access and Read access"), std::string::npos) << msg;
    }
  }
  for (const json& t : report["results"]) EXPECT_EQ(t["contender"], "baseline") << "only the baseline was timed";
  // Baseline: memcheck and racecheck; the racy kernel: memcheck (clean) and racecheck (the report).
  const auto calls = read_lines(c.dir.file("sanitizer.log"));
  ASSERT_EQ(calls.size(), 4u);
  for (const std::string& call : calls) EXPECT_NE(call.find("--target-processes all"), std::string::npos) << call;
}

TEST(MskbCli, MemcheckWrapsTheRunnerAndDoesNotJudgeGaps) {
  Cli c;
  c.env["FAKE_RUNNER_GAP_US"] = "5000";
  c.env["MSKB_SANITIZER"] = std::string(CM_AGENTS_FAKES) + "/compute-sanitizer";
  c.env["FAKE_SANITIZER_LOG"] = c.dir.file("sanitizer.log");
  const std::vector<std::string> args = {"check", "--task", "spmv_csr", "--precision", "fp32", "--contenders", "baseline"};
  const Proc plain = c.run(args, CM_MSKB_BIN);
  EXPECT_EQ(plain.code, 1) << plain.err;
  EXPECT_NE(plain.out.find("FAIL spmv_csr fp32 baseline"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("unsynced"), std::string::npos) << plain.out;
  EXPECT_TRUE(read_lines(c.dir.file("sanitizer.log")).empty()) << "a plain check ran under the sanitizer";

  std::vector<std::string> mem = args;
  mem.push_back("--memcheck");
  const Proc checked = c.run(mem, CM_MSKB_BIN);
  EXPECT_EQ(checked.code, 0) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("PASS spmv_csr fp32 baseline"), std::string::npos) << checked.out;
  const auto calls = read_lines(c.dir.file("sanitizer.log"));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].rfind("--tool memcheck --report-api-errors no --error-exitcode 86", 0), 0u) << calls[0];

  // --racecheck: the same plan under the racecheck tool (shared-memory hazards).
  std::vector<std::string> race = args;
  race.push_back("--racecheck");
  const Proc raced = c.run(race, CM_MSKB_BIN);
  EXPECT_EQ(raced.code, 0) << raced.out << raced.err;
  const auto calls2 = read_lines(c.dir.file("sanitizer.log"));
  ASSERT_EQ(calls2.size(), 2u);
  EXPECT_EQ(calls2[1].rfind("--tool racecheck --report-api-errors no --error-exitcode 86", 0), 0u) << calls2[1];
  race.push_back("--memcheck");
  const Proc both = c.run(race, CM_MSKB_BIN);
  EXPECT_NE(both.code, 0);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
}

// mskb merge: reports of separate runs (one per category or cluster job) become one; a
// (task, precision) group comes whole from the last report that has it.
TEST(MskbCli, MergeJoinsReportsGroupByGroup) {
  Cli c;
  const std::vector<std::string> common = {"--precision", "fp32", "--budget", "0.01", "-q"};
  auto run = [&](const std::vector<std::string>& what, const std::string& out) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), what.begin(), what.end());
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), {"--json", c.dir.file(out)});
    const Proc p = c.run(args, CM_MSKB_BIN);
    EXPECT_EQ(p.code, 0) << p.err;
  };
  run({"--task", "vector_add,spmv_csr"}, "a.json");
  run({"--task", "spmv_csr", "--contenders", "baseline"}, "b.json");
  const Proc m = c.run({"merge", c.dir.file("a.json"), c.dir.file("b.json"), "--json", c.dir.file("m.json"), "--markdown", c.dir.file("m.md")},
                       CM_MSKB_BIN);
  ASSERT_EQ(m.code, 0) << m.err;
  const json merged = json::parse(read_file(c.dir.file("m.json")));
  std::multiset<std::string> got;
  for (const json& x : merged["contenders"]) got.insert(x["task"].get<std::string>() + "/" + x["contender"].get<std::string>());
  // vector_add from a.json (baseline + vendor); spmv_csr whole from b.json (its baseline only).
  EXPECT_EQ(got, (std::multiset<std::string>{"vector_add/baseline", "vector_add/vendor", "spmv_csr/baseline"}));
  for (const json& r : merged["results"]) {
    if (r["task"] == "spmv_csr") {
      EXPECT_EQ(r["contender"], "baseline") << r.dump();
    }
  }
  EXPECT_NE(read_file(c.dir.file("m.md")).find("| vector_add | fp32 | vendor | passed |"), std::string::npos);
  EXPECT_NE(m.err.find("mskb merge: 2 reports, 3 contenders"), std::string::npos) << m.err;

  json other = json::parse(read_file(c.dir.file("b.json")));
  other["device"]["name"] = "NVIDIA A100";
  std::ofstream(c.dir.file("other.json")) << other.dump();
  std::ofstream(c.dir.file("bad.json")) << "{not json";
  const Proc mixed = c.run({"merge", c.dir.file("a.json"), c.dir.file("other.json")}, CM_MSKB_BIN);
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find("reports from different GPU models"), std::string::npos) << mixed.err;
  const Proc bad = c.run({"merge", c.dir.file("bad.json")}, CM_MSKB_BIN);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("is not valid JSON"), std::string::npos) << bad.err;

  // --expect: the merge must hold these tasks' groups whole. spmv_csr fp32 comes from b.json,
  // which lacks its vendor; no bf16 group was run.
  const Proc e = c.run({"merge", c.dir.file("a.json"), c.dir.file("b.json"), "--expect", "vector_add,spmv_csr", "--json", c.dir.file("e.json"),
                        "--markdown", c.dir.file("e.md")},
                       CM_MSKB_BIN);
  ASSERT_EQ(e.code, 1) << "a merge missing expected groups is written but fails: " << e.err;
  const json ej = json::parse(read_file(c.dir.file("e.json")));
  EXPECT_TRUE(ej.value("partial", false));
  EXPECT_EQ(ej["incomplete_groups"], json({"vector_add|bf16", "spmv_csr|fp32", "spmv_csr|bf16"}));
  EXPECT_NE(e.err.find("3 expected groups missing or not finished: vector_add|bf16 spmv_csr|fp32 spmv_csr|bf16"), std::string::npos) << e.err;
  EXPECT_NE(read_file(c.dir.file("e.md")).find("missing or not finished: vector_add|bf16, spmv_csr|fp32"), std::string::npos);
  // A bf16 run of vector_add completes that task: a.json (fp32) + d.json (bf16) hold it whole,
  // although a.json alone would not.
  const Proc d = c.run({"run", "--task", "vector_add", "--precision", "bf16", "--budget", "0.01", "-q", "--json", c.dir.file("d.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(d.code, 0) << d.err;
  const Proc whole = c.run({"merge", c.dir.file("a.json"), c.dir.file("d.json"), "--expect", "vector_add", "--json", c.dir.file("w.json")},
                           CM_MSKB_BIN);
  ASSERT_EQ(whole.code, 0) << whole.err;
  const json wj = json::parse(read_file(c.dir.file("w.json")));
  EXPECT_FALSE(wj.value("partial", false)) << wj.dump().substr(0, 400);
  EXPECT_FALSE(wj.contains("incomplete_groups"));
  EXPECT_NE(whole.err.find("every expected group whole"), std::string::npos) << whole.err;
  // A contender still waiting for its timing leaves its group unfinished.
  json pending = json::parse(read_file(c.dir.file("d.json")));
  pending["partial"] = true;
  for (json& x : pending["contenders"])
    if (x["contender"] == "vendor") x["timing_pending"] = true;
  std::ofstream(c.dir.file("pending.json")) << pending.dump();
  const Proc p = c.run({"merge", c.dir.file("a.json"), c.dir.file("pending.json"), "--expect", "vector_add", "--json", c.dir.file("p.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 1) << p.err;
  EXPECT_EQ(json::parse(read_file(c.dir.file("p.json")))["incomplete_groups"], json({"vector_add|bf16"}));
  const Proc unknown = c.run({"merge", c.dir.file("a.json"), "--expect", "no_such_task"}, CM_MSKB_BIN);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("no_such_task"), std::string::npos) << unknown.err;
}

// --skip-done continues a run from its (partial) report: complete groups are not run again, a
// group with a contender still waiting for its timing is; merge joins the two reports.
TEST(MskbCli, SkipDoneContinuesFromAPreviousReport) {
  Cli c;
  const std::vector<std::string> common = {"--precision", "fp32", "--budget", "0.01", "-q"};
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    args.insert(args.end(), common.begin(), common.end());
    return c.run(args, CM_MSKB_BIN);
  };
  ASSERT_EQ(run({"--task", "vector_add,spmv_csr", "--json", c.dir.file("a.json")}).code, 0);
  // As if the run had been killed while spmv_csr's vendor waited for its timing.
  json a = json::parse(read_file(c.dir.file("a.json")));
  for (json& x : a["contenders"])
    if (x["task"] == "spmv_csr" && x["contender"] == "vendor") x["timing_pending"] = true;
  a["partial"] = true;
  std::ofstream(c.dir.file("a.json")) << a.dump();
  std::remove(c.dir.file("runner.log").c_str());
  const Proc b = run({"--task", "vector_add,spmv_csr,dot_product", "--skip-done", c.dir.file("a.json"), "--json", c.dir.file("b.json")});
  ASSERT_EQ(b.code, 0) << b.err;
  std::set<std::string> ran;
  const json bj = json::parse(read_file(c.dir.file("b.json")));
  for (const json& x : bj["contenders"]) ran.insert(x["task"].get<std::string>());
  EXPECT_EQ(ran, (std::set<std::string>{"spmv_csr", "dot_product"}));
  EXPECT_EQ(read_file(c.dir.file("runner.log")).find("vector_add"), std::string::npos) << "a complete group ran again";
  const Proc m = c.run({"merge", c.dir.file("a.json"), c.dir.file("b.json"), "--json", c.dir.file("m.json")}, CM_MSKB_BIN);
  ASSERT_EQ(m.code, 0) << m.err;
  const json merged = json::parse(read_file(c.dir.file("m.json")));
  EXPECT_EQ(merged["contenders"].size(), 6u);
  for (const json& x : merged["contenders"]) EXPECT_FALSE(x.contains("timing_pending")) << x.dump();
  // A report from before `timing_pending`: a passed contender without any timed shape is not done.
  json old = json::parse(read_file(c.dir.file("m.json")));
  json kept = json::array();
  for (const json& r : old["results"])
    if (!(r["task"] == "dot_product" && r["contender"] == "baseline")) kept.push_back(r);
  old["results"] = kept;
  std::ofstream(c.dir.file("old.json")) << old.dump();
  const Proc again = run({"--task", "vector_add,spmv_csr,dot_product", "--skip-done", c.dir.file("old.json"), "--json", c.dir.file("c.json")});
  ASSERT_EQ(again.code, 0) << again.err;
  const json cj = json::parse(read_file(c.dir.file("c.json")));
  ASSERT_EQ(cj["contenders"].size(), 2u) << cj.dump();
  EXPECT_EQ(cj["contenders"][0]["task"], "dot_product");
  // The same file for both is refused (the new report would overwrite what it continues).
  const Proc same = run({"--task", "vector_add", "--skip-done", c.dir.file("a.json"), "--json", c.dir.file("a.json")});
  EXPECT_EQ(same.code, 2);
  EXPECT_NE(same.err.find("write the new report to another file"), std::string::npos) << same.err;
}

// `mskb build --task A,B` builds the shipped kernels of both tasks (setup.sh builds the slice that
// way on a machine without a GPU); an unknown name in the list is a one-line usage error.
TEST(MskbCli, BuildTakesAListOfTasks) {
  Cli c;
  c.env["FAKE_NVCC_EXPORTS"] = "extern-c";  // mskb build checks each kernel's entry points
  const Proc p = c.run({"build", "--task", "vector_add,dot_product", "--json", "-"}, CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  std::set<std::string> folders;
  for (const json& k : json::parse(p.out)) {
    const std::string path = k["kernel"].get<std::string>();
    if (path.find("/tasks/algebra/vector_add/") != std::string::npos) folders.insert("vector_add");
    if (path.find("/tasks/algebra/dot_product/") != std::string::npos) folders.insert("dot_product");
  }
  EXPECT_EQ(folders, (std::set<std::string>{"vector_add", "dot_product"})) << p.out.substr(0, 600);
  const Proc repeated = c.run({"build", "--task", "vector_add", "--task", "dot_product", "--json", "-"}, CM_MSKB_BIN);
  ASSERT_EQ(repeated.code, 0) << repeated.err;
  EXPECT_EQ(json::parse(repeated.out).size(), json::parse(p.out).size());
  const Proc bad = c.run({"build", "--task", "vector_add,bogus"}, CM_MSKB_BIN);
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_NE(bad.err.find("unknown task 'bogus'"), std::string::npos) << bad.err;
}

// The slowest input generation of each contender (its shape and seconds, over both parts of a
// two-phase run) is in the JSON report and named in the Markdown's phase section.
TEST(MskbCli, SlowestInputGenerationIsReported) {
  Cli c;
  const mskb::TaskSpec& spec = mskb::get_task("spmv_csr");
  const std::string slow = spec.heldout.back().str();  // checked in the checks part only
  c.env["FAKE_RUNNER_SLOW_GENERATE"] = slow;
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--checks-per-gpu", "2", "--json",
                        c.dir.file("run.json"), "--markdown", c.dir.file("run.md")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  const json report = json::parse(read_file(c.dir.file("run.json")));
  ASSERT_EQ(report["contenders"].size(), 2u);
  for (const json& r : report["contenders"]) {
    ASSERT_TRUE(r["slowest_generate"].is_object()) << r.dump();
    EXPECT_EQ(r["slowest_generate"]["shape"], slow) << r.dump();
    EXPECT_DOUBLE_EQ(r["slowest_generate"]["seconds"].get<double>(), 1.5) << "survives the timing part's merge: " << r.dump();
  }
  const std::string md = read_file(c.dir.file("run.md"));
  EXPECT_NE(md.find("Slowest input generation of the run: 1.50 s (spmv_csr fp32 "), std::string::npos) << md;
  EXPECT_NE(md.find("1.50 (" + slow + ")"), std::string::npos) << md;

  // Without a slow shape every check takes the same 0.25 s: the first shape that took it is named.
  c.env.erase("FAKE_RUNNER_SLOW_GENERATE");
  const Proc q = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--json", c.dir.file("run2.json")}, CM_MSKB_BIN);
  ASSERT_EQ(q.code, 0) << q.err;
  for (const json& r : json::parse(read_file(c.dir.file("run2.json")))["contenders"])
    EXPECT_DOUBLE_EQ(r["slowest_generate"]["seconds"].get<double>(), 0.25) << r.dump();
}

// --checks-per-gpu > 1 makes a timed run two-phase: every contender's checks (no timing) first,
// then a timing part per contender that passed; counts add up and the scores are the same kind.
TEST(MskbCli, TwoPhaseRunChecksInParallelThenTimes) {
  Cli c;
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--checks-per-gpu", "3", "--json",
                        c.dir.file("run.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  const mskb::TaskSpec& spec = mskb::get_task("spmv_csr");
  const std::size_t paper = spec.paper.size(), heldout = spec.heldout.size(), random = 2;
  int checks_parts = 0, timing_parts = 0;
  for (const std::string& line : read_lines(c.dir.file("runner.log"))) {
    if (line.find(" timings=0 ") != std::string::npos) {
      ++checks_parts;  // every seed but the last two of each paper shape; held-out and random shapes whole
      EXPECT_NE(line.find(" checks=" + std::to_string(paper + 3 * heldout + 3 * random) + " "), std::string::npos) << line;
    } else {
      ++timing_parts;  // the last two seeds of each paper shape (the second in the first's buffers), then timed
      EXPECT_NE(line.find(" timings=" + std::to_string(paper) + " checks=" + std::to_string(2 * paper) + " "), std::string::npos) << line;
    }
  }
  EXPECT_EQ(checks_parts, 2);  // baseline and vendor
  EXPECT_EQ(timing_parts, 2);
  const json report = json::parse(read_file(c.dir.file("run.json")));
  ASSERT_EQ(report["contenders"].size(), 2u);
  const int full = 3 * static_cast<int>(spec.paper.size() + spec.heldout.size() + random);
  for (const json& r : report["contenders"]) {
    EXPECT_EQ(r["disposition"], "passed") << r.dump();
    EXPECT_EQ(r["checks_total"].get<int>(), full) << "every check once: the last two seeds of each paper shape in the timing part";
    // Runner time by phase, summed over both parts (the fake reports 0.25/0.125/0.0625/0.5 s per check, 2 s per timing).
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["generate"].get<double>(), 0.25 * full) << r.dump();
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["reference"].get<double>(), 0.125 * full);
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["waited"].get<double>(), 0.0625 * full);
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["check"].get<double>(), 0.5 * full);
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["timing"].get<double>(), 2.0 * static_cast<double>(paper));
    EXPECT_EQ(r["checks_passed"], r["checks_total"]);
  }
  int timed = 0;
  for (const json& t : report["results"]) timed += t["sweep"] == "paper" ? 1 : 0;
  EXPECT_EQ(timed, 2 * static_cast<int>(spec.paper.size()));
  EXPECT_FALSE(report["scores"].empty());

  // With the large sweep timed, its shapes (one seed each) are generated in the timing part only.
  std::remove(c.dir.file("runner.log").c_str());
  const Proc big = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--contenders", "baseline", "--sweep", "paper,large",
                          "--budget", "0.01", "--checks-per-gpu", "2", "--markdown", c.dir.file("big.md")},
                         CM_MSKB_BIN);
  ASSERT_EQ(big.code, 0) << big.err;
  // The Markdown summary scores each timed sweep and says where the evaluation time went.
  const std::string md = read_file(c.dir.file("big.md"));
  EXPECT_NE(md.find("| P [interval] paper | geomean paper | P [interval] large | geomean large |"), std::string::npos) << md;
  EXPECT_NE(md.find("| spmv_csr | fp32 | baseline | passed | "), std::string::npos) << md;
  EXPECT_NE(md.find("## Evaluation time by phase"), std::string::npos) << md;
  EXPECT_NE(md.find("| generate | reference | waited | check | timing | total |"), std::string::npos) << md;
  const std::vector<std::string> lines = read_lines(c.dir.file("runner.log"));
  ASSERT_EQ(lines.size(), 2u);
  const std::size_t large = spec.large.size();
  EXPECT_NE(lines[0].find(" timings=0 checks=" + std::to_string(paper + 3 * heldout + 3 * random) + " large=0"), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[1].find(" timings=" + std::to_string(paper + large) + " checks=" + std::to_string(2 * (paper + large)) +
                          " large=" + std::to_string(large)),
            std::string::npos)
      << lines[1];
}

// --json is rewritten after every contender ("partial": true), so a run killed mid-way leaves
// valid JSON with what it measured; a finished run's JSON has no "partial".
TEST(MskbCli, KilledRunLeavesAValidPartialReport) {
  Cli c;
  c.env["FAKE_RUNNER_SLEEP_MS"] = "400";
  const std::string out = c.dir.file("run.json"), md = c.dir.file("run.md");
  // One check and one timing at a time: on a many-core machine the four contenders would otherwise
  // all end together, before the first partial report is read.
  const pid_t pid = spawn({"run", "--task", "spmv_csr", "--precision", "all", "--budget", "0.01", "--checks-per-gpu", "1",
                           "--timing-overlap", "1", "--json", out, "--markdown", md},
                          c.env, c.dir.file(""), "partial", CM_MSKB_BIN);
  json seen;
  for (int i = 0; i < 300 && seen.is_null(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::string text = read_file(out);
    if (text.empty()) continue;
    json j = json::parse(text, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "a half-written report: " << text.substr(0, 200);
    // The Markdown is written right after the JSON: wait for both before the kill.
    if (!j["contenders"].empty() && read_file(md).find("Partial report") != std::string::npos) seen = j;
  }
  ::kill(pid, SIGKILL);
  finish(pid, c.dir.file(""), "partial");
  ASSERT_FALSE(seen.is_null()) << "no partial report appeared";
  EXPECT_EQ(seen.value("partial", false), true);
  EXPECT_LT(seen["contenders"].size(), 4u);
  EXPECT_EQ(seen["contenders"][0]["disposition"], "passed");
  EXPECT_NE(read_file(md).find("Partial report"), std::string::npos);
  const json after_kill = json::parse(read_file(out));  // still valid after SIGKILL
  EXPECT_TRUE(after_kill.value("partial", false));

  c.env.erase("FAKE_RUNNER_SLEEP_MS");
  const Proc done = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--json", out}, CM_MSKB_BIN);
  ASSERT_EQ(done.code, 0) << done.err;
  const json final_report = json::parse(read_file(out));
  EXPECT_FALSE(final_report.contains("partial"));
  EXPECT_EQ(final_report["contenders"].size(), 2u);
}

// The command-line contract of both tools: a usage error (unknown command or option, a value out
// of range or not among the choices, nothing to do) is one line on stderr and exit 2.
TEST(CliContract, UsageErrorsAreOneLineAndExitTwo) {
  Cli c;
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {CM_MSKB_BIN, {"bogus"}},
      {CM_MSKB_BIN, {}},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--budget", "-1"}},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--budget", "abc"}},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--nope"}},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--jobs", "0"}},
      {CM_MSKB_BIN, {"check", "--task", "vector_add", "--timeout", "0"}},
      {CM_MSKB_BIN, {"list", "--category", "nope"}},
      {CM_MSKB_BIN, {"build"}},
      {CM_CUDAMASTER_BIN, {"bogus"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--rounds", "-1"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--debug-loops", "-2"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--jobs", "0"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--budget-usd", "-5"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--attempts", "0"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--max-tokens", "-5"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--timeout", "0"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--reasoning-effort", "extreme"}},
      {CM_CUDAMASTER_BIN, {"llm-check", "--attempts", "0"}},
  };
  for (const auto& [program, args] : cases) {
    const Proc p = c.run(args, program);
    std::string what = program.substr(program.rfind('/') + 1);
    for (const std::string& a : args) what += " " + a;
    EXPECT_EQ(p.code, 2) << what << "\n" << p.err;
    EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << what << ": " << p.err;
    // "mskb: ..." or, naming the subcommand, "mskb run: ..."
    const std::string tool = program.substr(program.rfind('/') + 1);
    EXPECT_TRUE(p.err.rfind(tool + ": ", 0) == 0 || p.err.rfind(tool + " " + (args.empty() ? "" : args[0]) + ": ", 0) == 0) << what << ": " << p.err;
    EXPECT_TRUE(p.out.empty()) << what << ": " << p.out;
  }
  const Proc unknown = c.run({"bogus"}, CM_MSKB_BIN);
  EXPECT_NE(unknown.err.find("unknown command 'bogus' (one of: list, device, run, check, build, merge, "), std::string::npos)
      << unknown.err;
  const Proc range = c.run({"optimize", "--task", "vector_add", "--rounds", "-1"});
  EXPECT_NE(range.err.find("--rounds"), std::string::npos) << range.err;
}

// --version on both tools: version, the commit built from, the CUDA toolkit, the default GPU
// architecture of kernels and the data folder.
TEST(CliContract, VersionSaysCommitCudaArchitectureAndData) {
  Cli c;
  for (const std::string program : {CM_MSKB_BIN, CM_CUDAMASTER_BIN}) {
    const Proc p = c.run({"--version"}, program);
    EXPECT_EQ(p.code, 0) << p.err;
    const std::string tool = program.substr(program.rfind('/') + 1);
    EXPECT_EQ(p.out.rfind(tool + " 0.1.0 (commit ", 0), 0u) << p.out;
    EXPECT_NE(p.out.find("\nCUDA 1"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("kernels compiled for sm_"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("\ndata: /"), std::string::npos) << p.out;
  }
  const Proc help = c.run({"build", "--help"}, CM_MSKB_BIN);
  EXPECT_NE(help.out.find("(default: sm_"), std::string::npos) << help.out;
}

// `mskb list` fits 100 columns; `mskb list TASK` shows one task in full (semantics, both entry
// points, every sweep, vendor, cost model), `--json` the same task as an object.
TEST(CliContract, ListShowsOneTaskInFullAndTheTableFits) {
  Cli c;
  const Proc table = c.run({"list"}, CM_MSKB_BIN);
  ASSERT_EQ(table.code, 0) << table.err;
  std::istringstream lines(table.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  const mskb::TaskSpec& t = mskb::get_task("spmv_csr");
  const Proc one = c.run({"list", "spmv_csr"}, CM_MSKB_BIN);
  ASSERT_EQ(one.code, 0) << one.err;
  for (const std::string& want : {t.semantics, t.signature(mskb::Precision::fp32), t.signature(mskb::Precision::bf16), t.vendor,
                                  std::string("Paper sweep (6 shapes, timed)"), std::string("Held-out shapes (7 shapes"),
                                  std::string("Large sweep (--sweep large) (4 shapes"), std::string("rows=100003,cols=5000,skew=1"),
                                  std::string("Cost model")})
    EXPECT_NE(one.out.find(want), std::string::npos) << want << "\n" << one.out;
  const Proc js = c.run({"list", "spmv_csr", "--json"}, CM_MSKB_BIN);
  ASSERT_EQ(js.code, 0) << js.err;
  const json j = json::parse(js.out);
  EXPECT_EQ(j.value("name", ""), "spmv_csr");
  EXPECT_EQ(j["heldout_shapes"].size(), t.heldout.size());
  // The work the ABI forces on the vendor route, next to it; a task without a vendor says why.
  ASSERT_FALSE(t.vendor_abi_cost.empty());
  EXPECT_NE(one.out.find(t.vendor_abi_cost), std::string::npos) << one.out;
  EXPECT_EQ(j.value("vendor_abi_cost", ""), t.vendor_abi_cost);
  EXPECT_TRUE(j["vendor_none_reason"].is_null());
  const mskb::TaskSpec& none = mskb::get_task("spmv_coo");
  ASSERT_TRUE(none.vendor.empty());
  ASSERT_FALSE(none.vendor_none_reason.empty());
  const Proc no_vendor = c.run({"list", "spmv_coo"}, CM_MSKB_BIN);
  ASSERT_EQ(no_vendor.code, 0) << no_vendor.err;
  EXPECT_NE(no_vendor.out.find("Vendor contender: none: " + none.vendor_none_reason), std::string::npos) << no_vendor.out;
  const Proc no_vendor_js = c.run({"list", "spmv_coo", "--json"}, CM_MSKB_BIN);
  ASSERT_EQ(no_vendor_js.code, 0) << no_vendor_js.err;
  const json nj = json::parse(no_vendor_js.out);
  EXPECT_TRUE(nj["vendor"].is_null());
  EXPECT_EQ(nj.value("vendor_none_reason", ""), none.vendor_none_reason);
  const Proc unknown = c.run({"list", "nope"}, CM_MSKB_BIN);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("unknown task 'nope'"), std::string::npos) << unknown.err;
}

namespace {

// The fields of RFC 4180 CSV text (quoted fields may hold commas, quotes and line breaks).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, ended = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (ch == '\r' || ch == '\n') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
      ended = true;
      continue;
    } else {
      field += ch;
    }
    ended = false;
  }
  if (!ended) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

std::string shape_text(const json& shape) {
  std::string s;
  for (auto it = shape.begin(); it != shape.end(); ++it) s += (s.empty() ? "" : ",") + it.key() + "=" + std::to_string(it.value().get<long long>());
  return s;
}

std::string number_text(const json& v) { return v.is_null() ? "" : v.dump(); }

}  // namespace

// No GPU: both tools say so in one line without source locations and exit 1; optimize stops
// before the run store exists, mskb run writes no report, and mskb check --kernel still reports a
// compile error (file:line) first.
TEST(CliContract, NoGpuIsOneCleanLineAndWritesNothing) {
  Cli c;
  c.env["FAKE_GPUS"] = "0";
  const std::string line = "no CUDA device (cudaGetDeviceCount: no CUDA-capable device is detected)\n";
  const std::string cassette = record_story(c.dir.file("story.jsonl"));
  const Proc opt = c.run(optimize_args(cassette, c.db(), c.dir.file("out")));
  EXPECT_EQ(opt.code, 1) << opt.err;
  EXPECT_EQ(opt.err, "cudamaster: " + line);
  EXPECT_FALSE(std::filesystem::exists(c.db())) << "a run store was created without a GPU";
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("out")));

  const Proc dev = c.run({"device"}, CM_MSKB_BIN);
  EXPECT_EQ(dev.code, 1);
  EXPECT_EQ(dev.err, "mskb: " + line);
  const Proc run = c.run({"run", "--task", "vector_add", "--json", c.dir.file("run.json"), "--csv", c.dir.file("run.csv"), "-q"}, CM_MSKB_BIN);
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "mskb: " + line);
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("run.json")));
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("run.csv")));

  const std::string good = c.dir.file("good.cu"), bad = c.dir.file("bad.cu");
  std::ofstream(good) << read_file(mskb::source_root() + "/tasks/algebra/vector_add/baseline_fp32.cu");
  std::ofstream(bad) << read_file(mskb::source_root() + "/tasks/algebra/vector_add/baseline_fp32.cu")
                     << "\n// fake-build: error expected an expression\n";
  const Proc ok = c.run({"check", "--task", "vector_add", "--kernel", good, "-q"}, CM_MSKB_BIN);
  EXPECT_EQ(ok.code, 1);
  EXPECT_EQ(ok.out, "");
  EXPECT_EQ(ok.err, "mskb: " + line);
  const Proc broken = c.run({"check", "--task", "vector_add", "--kernel", bad, "-q"}, CM_MSKB_BIN);
  EXPECT_EQ(broken.code, 1);
  EXPECT_EQ(broken.out.rfind("FAIL vector_add bad.cu: compile error: bad.cu:", 0), 0u) << broken.out;
  EXPECT_NE(broken.out.find("expected an expression"), std::string::npos) << broken.out;
  EXPECT_EQ(broken.err, "mskb: " + line);
}

// mskb run|check --csv: a row per timed shape (run) or per contender (check), RFC 4180 quoting,
// the same numbers as the JSON report.
TEST(MskbCli, CsvHasARowPerTimedShapeOrPerContender) {
  Cli c;
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "-q", "--json", c.dir.file("run.json"), "--csv",
                        c.dir.file("run.csv")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  const json report = json::parse(read_file(c.dir.file("run.json")));
  const std::string text = read_file(c.dir.file("run.csv"));
  const auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), report["results"].size() + 1) << text;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"task", "precision", "contender", "sweep", "shape", "complexity", "disposition", "median_us",
                                               "min_us", "max_us", "n", "noise", "speedup_vs_baseline", "ratio_vs_vendor", "sol_fraction",
                                               "launch_bound", "vendor", "device_us", "host_share", "device_samples", "host_bound",
                                               "device_note"}));
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const json& r = report["results"][i - 1];
    ASSERT_EQ(rows[i].size(), 22u) << i;
    EXPECT_EQ(rows[i][15], r["launch_bound"].get<bool>() ? "true" : "false");
    EXPECT_EQ(rows[i][0], "spmv_csr");
    EXPECT_EQ(rows[i][2], r["contender"].get<std::string>());
    EXPECT_EQ(rows[i][4], shape_text(r["shape"]));
    EXPECT_EQ(rows[i][7], number_text(r["time_us"]["median"]));
    EXPECT_EQ(rows[i][10], number_text(r["time_us"]["n"]));
    EXPECT_EQ(rows[i][12], number_text(r["speedup_vs_baseline"]));
    EXPECT_EQ(rows[i][13], number_text(r["ratio_vs_vendor"]));
  }
  EXPECT_NE(text.find(",\"" + shape_text(report["results"][0]["shape"]) + "\","), std::string::npos) << "a shape with commas is quoted";

  const Proc chk = c.run({"check", "--task", "spmv_csr", "--contenders", "wrong", "--precision", "fp32", "-q", "--csv", c.dir.file("check.csv")},
                         CM_MSKB_BIN);
  EXPECT_EQ(chk.code, 1) << chk.err;
  const auto crows = parse_csv(read_file(c.dir.file("check.csv")));
  ASSERT_GE(crows.size(), 2u);
  EXPECT_EQ(crows[0], (std::vector<std::string>{"task", "precision", "contender", "disposition", "checks_passed", "checks_total", "message"}));
  std::size_t fails = 0;
  for (std::size_t i = 1; i < crows.size(); ++i) {
    ASSERT_EQ(crows[i].size(), 7u);
    EXPECT_EQ(crows[i][2].rfind("wrong/", 0), 0u) << crows[i][2];
    fails += chk.out.find("FAIL spmv_csr fp32 " + crows[i][2] + ":") != std::string::npos;
  }
  EXPECT_EQ(fails, crows.size() - 1) << chk.out;
  // --csv -: the CSV alone on stdout, the PASS / FAIL lines on stderr.
  const Proc dash = c.run({"check", "--task", "spmv_csr", "--contenders", "wrong", "--precision", "fp32", "-q", "--csv", "-"}, CM_MSKB_BIN);
  EXPECT_EQ(dash.code, 1);
  EXPECT_EQ(parse_csv(dash.out), crows);
  EXPECT_NE(dash.err.find("FAIL spmv_csr fp32 wrong/"), std::string::npos) << dash.err;
}

// --help shows the defaults of the options that have one (CLI11 2.3, Debian 12, prints
// "=0.25"; 2.4, Ubuntu 24.04, "[0.25]").
TEST(CliContract, HelpShowsDefaults) {
  Cli c;
  auto option_line = [](const std::string& help, const std::string& option) {
    const auto at = help.find("\n  " + option + " ");
    return at == std::string::npos ? std::string() : help.substr(at + 1, help.find('\n', at + 1) - at - 1);
  };
  auto shows = [](const std::string& line, const std::string& value) {
    return line.find("=" + value) != std::string::npos || line.find("[" + value + "]") != std::string::npos;
  };
  const Proc run = c.run({"run", "--help"}, CM_MSKB_BIN);
  ASSERT_EQ(run.code, 0);
  EXPECT_TRUE(shows(option_line(run.out, "--budget"), "0.25")) << run.out;
  EXPECT_TRUE(shows(option_line(run.out, "--contenders"), "baseline,vendor")) << run.out;
  const std::string task = option_line(run.out, "--task");
  EXPECT_FALSE(task.empty()) << run.out;
  EXPECT_EQ(task.find('='), std::string::npos) << "no default shown for an empty list: " << run.out;
  EXPECT_EQ(task.find("[]"), std::string::npos) << "no default shown for an empty list: " << run.out;
  EXPECT_EQ(task.find("{}"), std::string::npos) << "no default shown for an empty list (CLI11 2.4): " << run.out;
  const Proc opt = c.run({"optimize", "--help"});
  ASSERT_EQ(opt.code, 0);
  EXPECT_TRUE(shows(option_line(opt.out, "--rounds"), "5")) << opt.out;
  EXPECT_TRUE(shows(option_line(opt.out, "--db"), "cudamaster.db")) << opt.out;
  EXPECT_FALSE(shows(option_line(opt.out, "--budget-usd"), "-1")) << "a negative 'not given' is not a default: " << opt.out;
}

// --json on every command of both tools: `--json -` (or a bare --json) prints only JSON on
// stdout; `--json FILE` writes the same JSON to FILE.
TEST(CliContract, JsonIsAFileOrDashForStdoutOnEveryCommand) {
  Cli c;
  c.env["FAKE_NVCC_EXPORTS"] = "extern-c";  // mskb build checks each kernel's entry points
  const std::string kernel = c.dir.file("k.cu");
  std::ofstream(kernel) << read_file(mskb::source_root() + "/tasks/algebra/vector_add/baseline_fp32.cu");
  const std::string cassette = record_story(c.dir.file("story.jsonl"));
  ASSERT_EQ(c.run({"run", "--task", "vector_add", "--precision", "fp32", "--budget", "0.01", "-q", "--json", c.dir.file("a.json")}, CM_MSKB_BIN).code, 0);
  ASSERT_EQ(c.run(optimize_args(cassette, c.db(), c.dir.file("out"))).code, 0);
  struct Case {
    std::string program;
    std::vector<std::string> args;
    bool same;  // both outputs equal (nothing measured or timed differs between the two calls)
  };
  const std::vector<Case> cases = {
      {CM_MSKB_BIN, {"list"}, true},
      {CM_MSKB_BIN, {"list", "spmv_csr"}, true},
      {CM_MSKB_BIN, {"device"}, false},
      {CM_MSKB_BIN, {"build", "--kernel", kernel}, false},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--precision", "fp32", "--budget", "0.01", "-q"}, false},
      {CM_MSKB_BIN, {"check", "--task", "vector_add", "--precision", "fp32", "-q"}, false},
      {CM_MSKB_BIN, {"merge", c.dir.file("a.json")}, true},
      {CM_CUDAMASTER_BIN, {"runs", "--db", c.db()}, true},
      {CM_CUDAMASTER_BIN, {"show", "1", "--db", c.db()}, true},
      {CM_CUDAMASTER_BIN, {"show", "1", "--db", c.db(), "--candidate", "6"}, true},
  };
  for (const Case& k : cases) {
    std::string what = k.program.substr(k.program.rfind('/') + 1);
    for (const std::string& a : k.args) what += " " + a;
    for (const std::string& dash : {std::string("-"), std::string()}) {
      std::vector<std::string> args = k.args;
      args.push_back("--json");
      if (!dash.empty()) args.push_back(dash);
      const Proc p = c.run(args, k.program);
      ASSERT_EQ(p.code, 0) << what << "\n" << p.err;
      const json j = json::parse(p.out, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << what << " --json " << dash << ": stdout is not JSON alone:\n" << p.out.substr(0, 400);
      std::vector<std::string> to_file = k.args;
      const std::string file = c.dir.file("out" + std::to_string(c.runs) + ".json");
      to_file.insert(to_file.end(), {"--json", file});
      const Proc f = c.run(to_file, k.program);
      ASSERT_EQ(f.code, 0) << what << "\n" << f.err;
      const json fj = json::parse(read_file(file), nullptr, false);
      ASSERT_FALSE(fj.is_discarded()) << what << " --json FILE: " << read_file(file).substr(0, 400);
      EXPECT_EQ(fj.type(), j.type()) << what;
      if (k.same) {
        EXPECT_EQ(fj, j) << what;
      }
      if (!f.out.empty()) {
        EXPECT_TRUE(json::parse(f.out, nullptr, false).is_discarded()) << what << ": --json FILE keeps the text output";
      }
    }
  }
}

namespace {

// A file of the test folder, its folders made.
void write_kernel(const Cli& c, const std::string& rel, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(c.dir.file(rel)).parent_path());
  std::ofstream(c.dir.file(rel)) << text << "\n";
}

const json* summary_row(const json& report, const std::string& category) {
  for (const json& r : report["submission_summary"]["rows"])
    if (r["category"] == category) return &r;
  return nullptr;
}

}  // namespace

// mskb run --submission DIR: both naming layouts, a TASK.cu that exports only its fp32 entry point
// (no bf16 group at all), an unknown name and a file in another folder (skipped, not fatal), two
// files with the same stem (both in every report, told apart by their folder), and the summary
// against numbers worked out by hand from the fake runner's speeds (every shape's time is the
// baseline's divided by the speed; the vendor is as fast as the baseline, spmv_csr's 1.5x).
TEST(MskbCli, SubmissionJudgesAFolderOfKernelsAndSummarizesIt) {
  Cli c;
  write_kernel(c, "sub/vector_add.cu", "// fake-eval: speed=2.5\n// fake-build: exports vector_add");
  write_kernel(c, "sub/fp32/vector_add.cu", "// fake-eval: speed=0.5");
  write_kernel(c, "sub/RELU.cu", "// fake-eval: speed=1.25");  // fp32 alone: bf16/RELU.cu is the bf16 one
  write_kernel(c, "sub/bf16/RELU.cu", "// fake-eval: speed=3");
  write_kernel(c, "sub/sigmoid_bf16.cu", "// fake-eval: wrong_result");
  write_kernel(c, "sub/fp32/spmv_csr.cu", "// fake-eval: speed=3");
  write_kernel(c, "sub/nosuchtask.cu", "// fake-eval: speed=9");
  write_kernel(c, "sub/misc/helper.cu", "// fake-eval: speed=9");
  write_kernel(c, "sub/README.md", "not a kernel");
  const Proc p = c.run({"run", "--submission", c.dir.file("sub"), "--budget", "0.01", "-q", "--json", c.dir.file("run.json"), "--markdown",
                        c.dir.file("run.md"), "--csv", c.dir.file("run.csv")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 1) << p.err;  // sigmoid_bf16 is wrong; the skipped files are not failures
  const json report = json::parse(read_file(c.dir.file("run.json")));
  std::set<std::string> got;
  for (const json& e : report["contenders"])
    got.insert(e["task"].get<std::string>() + " " + e["precision"].get<std::string>() + " " + e["contender"].get<std::string>());
  EXPECT_EQ(got, (std::set<std::string>{"vector_add fp32 baseline", "vector_add fp32 vendor", "vector_add fp32 sub/vector_add",
                                        "vector_add fp32 fp32/vector_add", "RELU fp32 baseline", "RELU fp32 vendor", "RELU fp32 sub/RELU",
                                        "RELU bf16 baseline", "RELU bf16 vendor", "RELU bf16 bf16/RELU", "sigmoid bf16 baseline",
                                        "sigmoid bf16 vendor", "sigmoid bf16 sigmoid_bf16", "spmv_csr fp32 baseline", "spmv_csr fp32 vendor",
                                        "spmv_csr fp32 spmv_csr"}));

  // Skipped files: one line each on stdout, in the JSON and the Markdown.
  const json& skipped = report["submission"]["skipped"];
  ASSERT_EQ(skipped.size(), 2u) << skipped;
  EXPECT_EQ(skipped[0]["file"], "misc/helper.cu");
  EXPECT_EQ(skipped[1]["file"], "nosuchtask.cu");
  EXPECT_NE(skipped[1]["reason"].get<std::string>().find("no task named 'nosuchtask'"), std::string::npos);
  const std::string md = read_file(c.dir.file("run.md"));
  for (const json& f : skipped) {
    const std::string line = f["file"].get<std::string>() + ": " + f["reason"].get<std::string>();
    EXPECT_NE(p.out.find("skipped " + line + "\n"), std::string::npos) << p.out;
    EXPECT_NE(md.find("- " + line + "\n"), std::string::npos) << md;
  }

  // The two vector_add kernels stay apart in the table, the Markdown and the CSV.
  for (const std::string name : {"sub/vector_add", "fp32/vector_add"}) {
    EXPECT_NE(p.out.find(" " + name + " "), std::string::npos) << p.out;
    EXPECT_NE(md.find("| vector_add | fp32 | " + name + " |"), std::string::npos) << md;
    EXPECT_NE(read_file(c.dir.file("run.csv")).find("vector_add,fp32," + name + ",paper,"), std::string::npos);
  }

  // The summary, by hand: P per kernel = its speed; vs vendor = speed / vendor speed.
  const json& sum = report["submission_summary"];
  EXPECT_EQ(sum["kernels"], 6);
  EXPECT_EQ(sum["correct"], 5);
  EXPECT_EQ(sum["skipped"], 2);
  struct Want {
    const char* category;
    int entries, correct;
    double share, f1, f15, f2, mean, geo, vendor;
  };
  const std::vector<Want> want = {
      {"algebra", 2, 2, 1.0, 0.5, 0.5, 0.5, (2.5 + 0.5) / 2, std::sqrt(2.5 * 0.5), std::sqrt(2.5 * 0.5)},
      {"llm", 3, 2, 2.0 / 3, 2.0 / 3, 1.0 / 3, 1.0 / 3, (1.25 + 3) / 2, std::sqrt(1.25 * 3), std::sqrt(1.25 * 3)},
      {"sparse", 1, 1, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 2.0},
      {"all", 6, 5, 5.0 / 6, 4.0 / 6, 3.0 / 6, 3.0 / 6, (2.5 + 0.5 + 1.25 + 3 + 3) / 5, std::pow(2.5 * 0.5 * 1.25 * 3 * 3, 0.2),
       std::pow(2.5 * 0.5 * 1.25 * 3 * 2, 0.2)},
  };
  ASSERT_EQ(sum["rows"].size(), want.size()) << sum.dump(1);
  for (const Want& w : want) {
    const json* r = summary_row(report, w.category);
    ASSERT_NE(r, nullptr) << w.category;
    EXPECT_EQ((*r)["sweep"], "paper");
    EXPECT_EQ((*r)["entries"], w.entries) << w.category;
    EXPECT_EQ((*r)["correct"], w.correct) << w.category;
    EXPECT_NEAR((*r)["share_correct"].get<double>(), w.share, 1e-9) << w.category;
    EXPECT_NEAR((*r)["fast_1"].get<double>(), w.f1, 1e-9) << w.category;
    EXPECT_NEAR((*r)["fast_1_5"].get<double>(), w.f15, 1e-9) << w.category;
    EXPECT_NEAR((*r)["fast_2"].get<double>(), w.f2, 1e-9) << w.category;
    EXPECT_NEAR((*r)["mean_P"].get<double>(), w.mean, 1e-6) << w.category;
    EXPECT_NEAR((*r)["geomean_P"].get<double>(), w.geo, 1e-6) << w.category;
    EXPECT_NEAR((*r)["vendor_ratio"].get<double>(), w.vendor, 1e-6) << w.category;
  }
  EXPECT_NE(p.out.find("paper    all                6       83%       67%       50%       50%      2.05      1.70      1.56\n"), std::string::npos)
      << p.out;
  EXPECT_NE(md.find("| paper | all | 6 | 83% | 67% | 50% | 50% | 2.05 | 1.70 | 1.56 |"), std::string::npos) << md;

  // mskb check --submission, narrowed to two tasks: the kernels alone, by name where the file names repeat.
  const Proc chk = c.run({"check", "--submission", c.dir.file("sub"), "--task", "vector_add,RELU", "--precision", "fp32", "-q", "--json",
                          c.dir.file("check.json")},
                         CM_MSKB_BIN);
  ASSERT_EQ(chk.code, 0) << chk.err << chk.out;
  for (const char* line : {"PASS vector_add fp32 sub/vector_add: ", "PASS vector_add fp32 fp32/vector_add: ", "PASS RELU fp32 sub/RELU: "})
    EXPECT_NE(chk.out.find(line), std::string::npos) << chk.out;
  const json checked = json::parse(read_file(c.dir.file("check.json")));
  EXPECT_EQ(checked["contenders"].size(), 3u) << "no baseline or vendor in a check";
  EXPECT_EQ(checked["submission_summary"]["rows"].back()["fast_1"], nullptr);
  EXPECT_NE(chk.out.find("submission: 3 kernels judged (3 correct), 2 files skipped; not timed"), std::string::npos) << chk.out;

  // mskb merge keeps the skipped files and computes the summary again.
  const Proc merged = c.run({"merge", c.dir.file("check.json"), c.dir.file("run.json"), "--json", c.dir.file("merged.json")}, CM_MSKB_BIN);
  ASSERT_EQ(merged.code, 0) << merged.err;
  const json m = json::parse(read_file(c.dir.file("merged.json")));
  EXPECT_EQ(m["submission"]["skipped"], skipped);
  EXPECT_EQ(m["submission_summary"], sum);

  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"run", "--submission", c.dir.file("sub"), "--kernel", c.dir.file("sub/RELU.cu")}, "--submission names the kernels: drop --kernel and --task-file"},
           {{"run", "--submission", c.dir.file("sub"), "--category", "scientific"}, ": no kernel of the selected tasks"},
           {{"check", "--submission", c.dir.file("nowhere")}, "--submission: no such folder: " + c.dir.file("nowhere")}}) {
    const Proc bad = c.run(args, CM_MSKB_BIN);
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_NE(bad.err.find(message), std::string::npos) << bad.err;
  }
}

// Two --kernel files with the same name: each contender is named with its folder, so the lines
// and the report tell them apart; a file named like a shipped contender kind is still a candidate.
TEST(MskbCli, KernelsWithTheSameFileNameAreToldApartByTheirFolder) {
  Cli c;
  write_kernel(c, "a/softmax.cu", "// fake-eval: speed=2");
  write_kernel(c, "b/softmax.cu", "// fake-eval: wrong_result");
  write_kernel(c, "c/vendor.cu", "// fake-eval: speed=3");
  const Proc p = c.run({"check", "--task", "softmax", "--precision", "fp32", "-q", "--kernel", c.dir.file("a/softmax.cu"), "--kernel", c.dir.file("b/softmax.cu"),
                        "--kernel", c.dir.file("c/vendor.cu"), "--json", c.dir.file("check.json")},
                       CM_MSKB_BIN);
  EXPECT_EQ(p.code, 1) << p.err;
  EXPECT_NE(p.out.find("PASS softmax fp32 a/softmax: "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("FAIL softmax fp32 b/softmax: "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("PASS softmax fp32 candidate/vendor: "), std::string::npos) << "a user's vendor.cu is no vendor contender\n" << p.out;
  std::set<std::string> names;
  const json report = json::parse(read_file(c.dir.file("check.json")));
  for (const json& e : report["contenders"]) names.insert(e["contender"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"a/softmax", "b/softmax", "candidate/vendor"}));
}

// A task of the user's own (examples/bias_gelu/task.toml) is optimized like a built-in one: its
// baseline evaluated through the harness, the run recorded with the task file, which a resume
// registers again on its own; a bad task file is a one-line usage error.
TEST(Cli, TaskFileTaskIsOptimizedAndResumedLikeABuiltInOne) {
  Cli c;
  const std::string root = std::string(CM_AGENTS_FAKES) + "/../../..";
  const std::string task_file = root + "/examples/bias_gelu/task.toml";
  const std::string cassette = record_story(c.dir.file("story.jsonl"));  // never reached with 0 rounds
  const Proc p = c.run({"optimize", "--task-file", task_file, "--llm", "replay:" + cassette, "--rounds", "0", "--profile", "none",
                        "--db", c.db(), "--out", c.dir.file("out"), "--json"});
  ASSERT_EQ(p.code, 0) << p.err;
  const json summary = json::parse(p.out);
  EXPECT_EQ(summary["status"], "finished") << summary.dump();
  ASSERT_EQ(summary["tasks"].size(), 1u) << summary.dump();
  EXPECT_EQ(summary["tasks"][0]["task"], "bias_gelu") << summary.dump();
  const json shown = json::parse(c.run({"show", "1", "--db", c.db(), "--json"}).out);
  const std::string recorded = shown.dump();
  EXPECT_NE(recorded.find("examples/bias_gelu/task.toml"), std::string::npos) << "the task file is part of the run";
  EXPECT_GE(lines_in(c.dir.file("runner.log")), 1u) << "its baseline went through the runner";

  // A run of the task stopped by its wall clock, resumed by a process that was never told the
  // file: the run's record registers it (an unregistered task would be "unknown task").
  const std::string db2 = c.dir.file("stopped.db");
  const Proc stopped = c.run({"optimize", "--task-file", task_file, "--llm", "replay:" + cassette, "--rounds", "1", "--profile", "none",
                              "--db", db2, "--out", c.dir.file("out2"), "--max-minutes", "0.001"});
  EXPECT_EQ(stopped.code, 3) << stopped.err;
  const Proc resumed = c.run({"optimize", "--resume", "1", "--db", db2});
  EXPECT_EQ(resumed.code, 3) << resumed.err;
  EXPECT_EQ(resumed.err.find("unknown task"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("run 1 stopped early"), std::string::npos) << resumed.err;

  const Proc bad = c.run({"optimize", "--task-file", c.dir.file("missing.toml"), "--llm", "replay:" + cassette, "--db", c.db()});
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}
