// The run store: schema, WAL, journal order, one row per step, concurrent writers.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "support/agent_doubles.hpp"

using namespace cmtest;

TEST(RunStore, CreatesWalDatabaseAndRoundTripsRuns) {
  TempDir dir;
  auto s = store::RunStore::open(dir.file("a.db"));
  EXPECT_EQ(s->journal_mode(), "wal");
  const auto id = s->create_run("replay:x.jsonl", {{"tasks", {"spmv_csr"}}});
  auto r = s->run(id);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, cudamaster::store::Status::running);
  EXPECT_EQ(r->llm, "replay:x.jsonl");
  EXPECT_EQ(r->config["tasks"][0], "spmv_csr");
  EXPECT_EQ(r->sessions, 1);
  s->claim_run(id);
  s->set_run_status(id, cudamaster::store::Status::finished, {{"ok", true}});
  s->set_active_seconds(id, 12.5);
  r = s->run(id);
  EXPECT_EQ(r->status, cudamaster::store::Status::finished);
  EXPECT_EQ(r->summary["ok"], true);
  EXPECT_EQ(r->sessions, 2);
  EXPECT_DOUBLE_EQ(r->active_seconds, 12.5);
  EXPECT_EQ(s->runs().size(), 1u);
  EXPECT_FALSE(s->run(99));
}

TEST(RunStore, JournalIsOrderedAndStepsAreUnique) {
  TempDir dir;
  auto s = store::RunStore::open(dir.file("a.db"));
  const auto run = s->create_run("x", json::object());
  const auto job = s->ensure_job(run, "spmv_csr", "fp32");
  EXPECT_EQ(s->ensure_job(run, "spmv_csr", "fp32"), job);  // idempotent

  store::CandidateRow c;
  c.job_id = job;
  c.seq = 0;
  c.origin = "baseline";
  c.source = "src";
  c.sha256 = "abc";
  c.payload = {{"source", "src"}};
  const auto cid = s->record_candidate(c);
  store::BuildRow b;
  b.job_id = job;
  b.seq = 1;
  b.candidate_id = cid;
  b.ok = true;
  s->record_build(b);
  store::LlmCallRow failed;  // failed calls have no seq: not in the journal
  failed.job_id = job;
  failed.agent = "planner";
  failed.error = "openai: timeout";
  s->record_llm_call(failed);
  store::LlmCallRow call;
  call.job_id = job;
  call.seq = 2;
  call.agent = "planner";
  call.input_tokens = 100;
  call.output_tokens = 20;
  call.cost_usd = 0.5;
  call.payload = {{"response", {{"text", "plan"}}}};
  s->record_llm_call(call);
  store::EvaluationRow e;
  e.job_id = job;
  e.seq = 3;
  e.candidate_id = cid;
  e.contender = "candidate";
  e.disposition = "passed";
  e.p = 2.0;
  store::ShapeRow sh;
  sh.sweep = "paper";
  sh.shape = "rows=1024,cols=2048";
  sh.median_us = 5;
  sh.speedup = 2;
  e.shapes = {sh};
  s->record_evaluation(e);

  const auto j = s->journal(job);
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[0].kind, store::StepKind::candidate);
  EXPECT_EQ(j[1].kind, store::StepKind::build);
  EXPECT_EQ(j[2].kind, store::StepKind::llm_call);
  EXPECT_EQ(j[2].payload["response"]["text"], "plan");
  EXPECT_EQ(j[3].kind, store::StepKind::evaluation);
  for (std::size_t i = 0; i < j.size(); ++i) EXPECT_EQ(j[i].seq, static_cast<std::int64_t>(i));

  // The same step twice is refused: a resumed run can never repeat a step silently.
  EXPECT_THROW(s->record_build(b), store::StoreError);
  EXPECT_EQ(s->rows("builds", job).size(), 1u);
  EXPECT_EQ(s->rows("eval_shapes", job).size(), 1u);
  EXPECT_EQ(s->count("llm_calls", run), 2);

  const auto usage = s->usage_by_agent(run);
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_EQ(usage[0]["calls"], 2);
  EXPECT_EQ(usage[0]["failed"], 1);
  EXPECT_EQ(usage[0]["input_tokens"], 100);
  EXPECT_DOUBLE_EQ(usage[0]["cost_usd"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(s->run_cost(run), 0.5);
  EXPECT_THROW(s->rows("runs; DROP TABLE runs", job), store::StoreError);
}

TEST(RunStore, ConcurrentWritersAndASecondConnection) {
  TempDir dir;
  const std::string path = dir.file("a.db");
  auto s = store::RunStore::open(path);
  const auto run = s->create_run("x", json::object());
  std::vector<std::int64_t> jobs;
  for (int t = 0; t < 4; ++t) jobs.push_back(s->ensure_job(run, "task" + std::to_string(t), "fp32"));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        store::LlmCallRow c;
        c.job_id = jobs[static_cast<std::size_t>(t)];
        c.seq = i;
        c.agent = "coder";
        s->record_llm_call(c);
      }
    });
  auto reader = store::RunStore::open(path);  // another connection, as `cudamaster runs` is
  for (auto& th : threads) th.join();
  EXPECT_EQ(reader->count("llm_calls", run), 100);
  for (auto j : jobs) EXPECT_EQ(reader->journal(j).size(), 25u);
}

TEST(RunStore, ConfigUpdateAndJobs) {
  TempDir dir;
  auto s = store::RunStore::open(dir.file("a.db"));
  const auto run = s->create_run("x", {{"a", 1}});
  s->set_run_config(run, {{"a", 2}});
  EXPECT_EQ(s->run(run)->config["a"], 2);
  const auto job = s->ensure_job(run, "vector_add", "bf16");
  s->set_job_status(job, cudamaster::store::Status::stopped, "budget", {{"best", nullptr}});
  const auto jobs = s->jobs(run);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].status, cudamaster::store::Status::stopped);
  EXPECT_EQ(jobs[0].stop_reason, "budget");
  EXPECT_TRUE(jobs[0].result.contains("best"));
}

TEST(RunStore, ProcessesOpeningANewStoreAtOnceAllSucceed) {
  // Switching a new file to WAL needs it exclusively: without the retry, one of several processes
  // opening it at once got "database is locked" (a killed run's resume racing `cudamaster runs`).
  TempDir dir;
  int failures = 0;
  for (int it = 0; it < 15; ++it) {
    const std::string path = dir.file("s" + std::to_string(it) + ".db");
    std::vector<pid_t> kids;
    for (int k = 0; k < 4; ++k) {
      const pid_t p = fork();
      if (p == 0) {
        try {
          auto s = store::RunStore::open(path);
          if (k == 0) s->create_run("x", json::object());
          else (void)s->runs();
          _exit(0);
        } catch (const std::exception&) {
          _exit(1);
        }
      }
      kids.push_back(p);
    }
    for (pid_t p : kids) {
      int st = 0;
      waitpid(p, &st, 0);
      failures += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
  }
  EXPECT_EQ(failures, 0);
}
