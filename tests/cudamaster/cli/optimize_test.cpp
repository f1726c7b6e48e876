// The real `cudamaster` binary, faked only at the process boundary: MSKB_NVCC is the fake nvcc
// script, MSKB_RUNNER the fake mskb-runner, the LLM a replay cassette or a loopback HTTP server.
// A run is killed with SIGKILL at several points and resumed; the store must end up exactly as
// an uninterrupted run leaves it. (mskb's commands over the same fakes: mskb_cli_test.cpp; what
// every command of both tools promises: cli_contract_test.cpp.)
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

#include "cli_fixture.hpp"
#include "mskb/core/registry.hpp"
#if CM_HAVE_HTTPLIB
#include "support/fake_llm_server.hpp"
#endif

using namespace cmtest;
using agents::Agent;

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
