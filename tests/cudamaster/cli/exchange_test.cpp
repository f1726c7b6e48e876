// `cudamaster optimize --llm exchange:DIR` through the real binary over the fake runner: a run
// carried to its end through stops (exit 4) and resumes by scripts/exchange_answer.py answering
// from the four-task cassette reaches the store and best kernels of the replay provider on the
// same answers; bad replies are recorded provider errors that lose nothing; a kill -9 while a
// call waits for its reply resumes cleanly.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <thread>

#include "support/agent_doubles.hpp"
#include "support/child_process.hpp"

using namespace cmtest;
namespace fs = std::filesystem;

namespace {

const std::string kAnswerer = std::string(CM_SOURCE_DIR) + "/scripts/exchange_answer.py";

struct Cli : FakeCliDir {
  Proc run(const std::vector<std::string>& args, const std::string& program = CM_CUDAMASTER_BIN) { return run_program(args, program); }
  // The answerer: every pending request of `folder` from the cassette.
  Proc answer(const std::string& folder, const std::string& cassette) {
    return run({kAnswerer, "--cassette", cassette, folder}, "/usr/bin/env");
  }
};

// The one request file of `folder` named run1-<job>-step<N>-<agent>.request.json ("" when none).
std::string request_of(const std::string& folder, const std::string& job, const std::string& agent) {
  std::string found;
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string name = e.path().filename().string();
    const std::string tail = "-" + agent + ".request.json";
    if (name.rfind("run1-" + job + "-step", 0) == 0 && name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0) {
      EXPECT_TRUE(found.empty()) << "two " << agent << " requests of " << job;
      found = e.path().string();
    }
  }
  return found;
}

// The four-task cassette with the fakes' markers in its kernels (tests/support/fake_markers.hpp), so
// that the fake nvcc and runner tell its story: spmv_csr's round 1 fails to build, is wrong after
// the first Debug attempt and slower after the second (rejected), its round 2 is accepted;
// softmax's round 1 fails to build and is accepted after a Debug attempt, its round 2 is accepted.
std::string marked_cassette(const std::string& path) {
  const std::map<std::size_t, std::string> markers = {
      {1, "// fake-build: error identifier \"__shfl_down\" is undefined"}, {2, "// fake-eval: wrong_result"},
      {3, "// fake-eval: speed=0.3"}, {5, "// fake-eval: speed=2.5"},
      {11, "// fake-build: error a reinterpret_cast cannot cast away const or other type qualifiers"},
      {12, "// fake-eval: speed=1.6"}, {14, "// fake-eval: speed=2.2"}};
  std::string out;
  std::size_t i = 0;
  for (const std::string& line : read_lines(CM_SUITE4_CASSETTE)) {
    json e = json::parse(line);
    if (const auto m = markers.find(i); m != markers.end()) {
      std::string text = e["response"]["text"];
      const std::size_t at = text.find("```cuda\n");
      EXPECT_NE(at, std::string::npos) << "cassette line " << i + 1;
      text.insert(at + 8, m->second + "\n");
      e["response"]["text"] = text;
    }
    out += e.dump() + "\n";
    ++i;
  }
  write_file(path, out);
  return path;
}

std::vector<std::string> run_args(const std::vector<std::string>& tasks_llm, const std::string& db, const std::string& out) {
  std::vector<std::string> a = {"optimize", "--rounds", "2", "--profile", "none", "--db", db, "--out", out};
  a.insert(a.end(), tasks_llm.begin(), tasks_llm.end());
  return a;
}

// What a run left in its store that must not depend on the provider: per job (in job order) the
// journal's step kinds, the candidates' hashes, the evaluations' contenders and dispositions,
// the rounds' outcomes, and the token counts of the calls.
std::vector<std::string> store_view(store::RunStore& s, std::int64_t run) {
  std::vector<std::string> v;
  for (const store::JobInfo& j : s.jobs(run)) {
    const std::string tag = j.task + "/" + j.precision + ": ";
    v.push_back(tag + "status " + store::to_string(j.status) + " " + j.stop_reason);
    for (const store::Step& st : s.journal(j.id)) v.push_back(tag + "step " + std::to_string(st.seq) + " " + store::to_string(st.kind));
    for (const json& c : s.rows("candidates", j.id)) v.push_back(tag + "candidate " + c["origin"].get<std::string>() + " " + c["sha256"].get<std::string>());
    for (const json& e : s.rows("evaluations", j.id))
      v.push_back(tag + "evaluation " + e["contender"].get<std::string>() + " " + e["disposition"].get<std::string>());
    for (const json& r : s.rows("rounds", j.id)) v.push_back(tag + "round " + r["payload"].dump());
    for (const json& c : s.rows("llm_calls", j.id))
      if (!c["seq"].is_null())
        v.push_back(tag + "call " + c["agent"].get<std::string>() + " " + std::to_string(c["input_tokens"].get<std::int64_t>()) + "/" +
                    std::to_string(c["output_tokens"].get<std::int64_t>()) + " " + c["response"].get<std::string>().substr(0, 80));
  }
  return v;
}

// Answers and resumes until the run finishes; returns the number of stops (exit 4) on the way.
int carry_to_the_end(Cli& c, const std::string& folder, const std::string& cassette, std::vector<std::string> extra = {}) {
  for (int i = 0; i < 40; ++i) {
    const Proc a = c.answer(folder, cassette);
    EXPECT_EQ(a.code, 0) << a.out << a.err;
    std::vector<std::string> args = {"optimize", "--resume", "1", "--db", c.db()};
    args.insert(args.end(), extra.begin(), extra.end());
    const Proc p = c.run(args);
    if (p.code == 0) return i;
    EXPECT_EQ(p.code, 4) << p.err;
    if (p.code != 4) return -1;
  }
  ADD_FAILURE() << "the run did not finish in 40 resumes";
  return -1;
}

}  // namespace

TEST(Exchange, TwoTasksThroughStopsAndResumesEqualTheReplayProvider) {
  const std::vector<std::string> tasks = {"--task", "spmv_csr,softmax"};
  Cli ref;
  const std::string cassette = marked_cassette(ref.dir.file("suite4-marked.jsonl"));
  std::vector<std::string> ra = tasks;
  for (const std::string& a : {std::string("--llm"), "replay:" + cassette, std::string("--replay-match"), std::string("task")}) ra.push_back(a);
  const Proc rp = ref.run(run_args(ra, ref.db(), ref.dir.file("out")));
  ASSERT_EQ(rp.code, 0) << rp.err;

  Cli c;
  const std::string folder = c.dir.file("exchange");
  std::vector<std::string> ea = tasks;
  ea.push_back("--llm");
  ea.push_back("exchange:" + folder + ":demo-script");
  const Proc first = c.run(run_args(ea, c.db(), c.dir.file("out")));
  ASSERT_EQ(first.code, 4) << first.err;
  // Both jobs ask their Planner, and the one line says what to answer.
  const std::string spmv_req = request_of(folder, "spmv_csr-fp32", "planner");
  const std::string softmax_req = request_of(folder, "softmax-fp32", "planner");
  EXPECT_NE(first.err.find("run 1 waits for 2 replies: " + spmv_req + " (spmv_csr fp32 planner, round 1), " + softmax_req +
                           " (softmax fp32 planner, round 1); answer them, then: cudamaster optimize --resume 1 --db " + c.db()),
            std::string::npos)
      << first.err;
  EXPECT_TRUE(fs::exists(spmv_req));
  EXPECT_TRUE(fs::exists(softmax_req));
  const json req = json::parse(read_file(spmv_req));
  EXPECT_EQ(req["context"]["task"], "spmv_csr");
  EXPECT_EQ(req["context"]["agent"], "planner");
  EXPECT_EQ(req["model"], "demo-script");
  EXPECT_EQ(req["request"]["messages"][0]["content"].get<std::string>().rfind("You are the Planner", 0), 0u);

  const Proc runs = c.run({"runs", "--db", c.db()});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_NE(runs.out.find("waiting"), std::string::npos) << runs.out;
  EXPECT_NE(runs.out.find("      waiting: " + spmv_req + " (spmv_csr fp32 planner, round 1)"), std::string::npos) << runs.out;
  const json runs_json = json::parse(c.run({"runs", "--db", c.db(), "--json"}).out);
  EXPECT_EQ(runs_json[0]["status"], "waiting");
  EXPECT_EQ(runs_json[0]["waiting"].size(), 2u);
  const Proc show = c.run({"show", "1", "--db", c.db()});
  EXPECT_NE(show.out.find("waiting for a reply: " + softmax_req + " (planner, round 1)"), std::string::npos) << show.out;

  // A resume without answers stops again at once, nothing new evaluated.
  const std::size_t evaluated = read_lines(c.dir.file("runner.log")).size();
  const Proc again = c.run({"optimize", "--resume", "1", "--db", c.db(), "--quiet"});
  EXPECT_EQ(again.code, 4) << again.err;
  EXPECT_NE(again.err.find("run 1 waits for 2 replies"), std::string::npos) << again.err;
  EXPECT_EQ(read_lines(c.dir.file("runner.log")).size(), evaluated);

  const int stops = carry_to_the_end(c, folder, cassette);
  EXPECT_EQ(stops, 5);  // spmv_csr's six calls: one per session

  auto rs = store::RunStore::open(ref.db());
  auto es = store::RunStore::open(c.db());
  EXPECT_EQ(es->run(1)->status, store::Status::finished);
  EXPECT_EQ(call_trace(*es, 1), call_trace(*rs, 1));
  const std::vector<std::string> trace = call_trace(*es, 1);
  EXPECT_NE(std::find(trace.begin(), trace.end(), "softmax/debug/r1/a1"), trace.end()) << "a debug attempt";
  EXPECT_NE(std::find(trace.begin(), trace.end(), "spmv_csr/debug/r1/a2"), trace.end()) << "two debug attempts";
  EXPECT_EQ(trace.size(), 11u);
  EXPECT_EQ(store_view(*es, 1), store_view(*rs, 1));
  for (const char* f : {"spmv_csr_fp32.cu", "softmax_fp32.cu"})
    EXPECT_EQ(read_file(c.dir.file("out") + "/" + f), read_file(ref.dir.file("out") + "/" + f)) << f;
  for (const store::JobInfo& j : es->jobs(1))
    for (const json& call : es->rows("llm_calls", j.id)) {
      EXPECT_EQ(call["provider"], "exchange");
      EXPECT_EQ(call["model"], "demo-script");
      EXPECT_EQ(call["replayed"], 0);
      EXPECT_EQ(call["error"], "");
      EXPECT_EQ(call["endpoint"].get<std::string>().rfind(folder + "/run1-" + j.task + "-fp32-step", 0), 0u) << call["endpoint"];
      EXPECT_NE(call["raw_response"].get<std::string>().find("\"id\""), std::string::npos);
    }
}

TEST(Exchange, MalformedStaleEmptyAndOversizedRepliesAreRecordedErrorsAndLoseNothing) {
  Cli c;
  const std::string folder = c.dir.file("exchange");
  const Proc first = c.run(run_args({"--task", "spmv_csr", "--llm", "exchange:" + folder}, c.db(), c.dir.file("out")));
  ASSERT_EQ(first.code, 4) << first.err;
  const std::string req_path = request_of(folder, "spmv_csr-fp32", "planner");
  ASSERT_FALSE(req_path.empty());
  const std::string stem = fs::path(req_path).filename().string().substr(0, fs::path(req_path).filename().string().find(".request.json"));
  const std::string reply = folder + "/" + stem + ".reply.json";
  const std::string rejected = folder + "/" + stem + ".reply.rejected.json";
  const std::string id = json::parse(read_file(req_path))["id"];
  auto stored = [&] {
    auto s = store::RunStore::open(c.db());
    return std::make_pair(s->journal(s->jobs(1)[0].id).size(), s->rows("llm_calls", s->jobs(1)[0].id).size());
  };
  const auto [steps_before, calls_before] = stored();
  EXPECT_GE(steps_before, 3u);  // the baseline's candidate, build and evaluation (and the vendor's) are kept
  EXPECT_EQ(calls_before, 0u);  // waiting is not a call

  struct Case {
    std::string body;
    std::string says;
    std::vector<std::string> extra;
  };
  const std::vector<Case> cases = {
      {"{\"id\": \"" + id + "\", \"text\": \"half a fi", "exchange: malformed_response: " + stem + ".reply.json: not a JSON object", {}},
      {json{{"id", stem + "-0000000000000000"}, {"text", "an old answer"}}.dump(),
       "exchange: stale_reply: " + stem + ".reply.json: for '" + stem + "-0000000000000000'", {}},
      {json{{"id", id}, {"text", ""}}.dump(), "empty 'text'", {}},
      {json{{"id", id}, {"text", std::string(5000, 'x')}}.dump(), "exchange: reply_too_large", {"--max-reply-bytes", "4096"}}};
  std::size_t n = 0;
  for (const Case& k : cases) {
    SCOPED_TRACE(k.says);
    write_file(reply, k.body);
    std::vector<std::string> args = {"optimize", "--resume", "1", "--db", c.db()};
    args.insert(args.end(), k.extra.begin(), k.extra.end());
    const Proc p = c.run(args);
    EXPECT_EQ(p.code, 3) << p.err;  // stopped early: a provider error, resumable
    EXPECT_NE(p.err.find(k.says), std::string::npos) << p.err;
    EXPECT_NE(p.err.find("moved aside to " + stem + ".reply.rejected.json"), std::string::npos) << p.err;
    EXPECT_EQ(read_file(rejected), k.body);
    EXPECT_FALSE(fs::exists(reply));
    ++n;
    auto s = store::RunStore::open(c.db());
    const auto job = s->jobs(1)[0];
    EXPECT_EQ(job.status, store::Status::stopped);
    EXPECT_EQ(job.stop_reason, "llm_error");
    const auto calls = s->rows("llm_calls", job.id);
    ASSERT_EQ(calls.size(), n);
    EXPECT_TRUE(calls.back()["seq"].is_null()) << "a failed call is not part of the journal";
    EXPECT_NE(calls.back()["error"].get<std::string>().find(k.says), std::string::npos) << calls.back()["error"];
    EXPECT_EQ(s->journal(job.id).size(), steps_before) << "nothing stored is lost or added";
  }
  // A good answer then carries the run on; the request is the same as before the bad replies.
  EXPECT_EQ(json::parse(read_file(req_path))["id"], id);
  ASSERT_GE(carry_to_the_end(c, folder, marked_cassette(c.dir.file("suite4-marked.jsonl"))), 1);
  auto s = store::RunStore::open(c.db());
  EXPECT_EQ(s->run(1)->status, store::Status::finished);
  EXPECT_EQ(s->rows("rounds", s->jobs(1)[0].id).size(), 2u);
}

TEST(Exchange, KilledWithSigkillWhileWaitingForAReplyResumesToTheReplayResult) {
  Cli ref;
  const std::string cassette = marked_cassette(ref.dir.file("suite4-marked.jsonl"));
  ASSERT_EQ(ref.run(run_args({"--task", "spmv_csr", "--llm", "replay:" + cassette, "--replay-match", "task"}, ref.db(),
                             ref.dir.file("out")))
                .code,
            0);

  Cli c;
  const std::string folder = c.dir.file("exchange");
  // Answer the Planner, so that the kill lands between the Coder's request and its reply.
  const Proc first = c.run(run_args({"--task", "spmv_csr", "--llm", "exchange:" + folder}, c.db(), c.dir.file("out")));
  ASSERT_EQ(first.code, 4) << first.err;
  ASSERT_EQ(c.answer(folder, cassette).code, 0);
  const pid_t pid = spawn({"optimize", "--resume", "1", "--db", c.db(), "--exchange-wait", "120"}, c.env, c.dir.file(""), "waiting",
                          CM_CUDAMASTER_BIN);
  std::string coder_req;
  for (int i = 0; i < 6000 && coder_req.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    coder_req = request_of(folder, "spmv_csr-fp32", "coder");
  }
  ASSERT_FALSE(coder_req.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // polling for the reply now
  ::kill(pid, SIGKILL);
  const Proc killed = finish(pid, c.dir.file(""), "waiting");
  ASSERT_EQ(killed.code, 128 + SIGKILL);
  EXPECT_NE(killed.err.find("round 1: coder: request " + coder_req), std::string::npos) << killed.err;
  {
    auto s = store::RunStore::open(c.db());
    EXPECT_EQ(s->integrity_check(), "ok");
    EXPECT_EQ(s->run(1)->status, store::Status::running);
    const auto job = s->jobs(1)[0];
    EXPECT_EQ(s->rows("llm_calls", job.id).size(), 1u) << "the Planner's call only";
  }
  const Proc listed = c.run({"runs", "--db", c.db()});
  EXPECT_NE(listed.out.find("interrupted"), std::string::npos) << listed.out;
  const std::string id = json::parse(read_file(coder_req))["id"];

  // Answered afterwards, live: the resumed run waits and takes the reply as it arrives.
  const pid_t resumed = spawn({"optimize", "--resume", "1", "--db", c.db(), "--exchange-wait", "120"}, c.env, c.dir.file(""), "resumed",
                              CM_CUDAMASTER_BIN);
  const pid_t follower = spawn({kAnswerer, "--cassette", cassette, "--follow", "--quiet", folder}, c.env, c.dir.file(""),
                               "follow", "/usr/bin/env");
  const Proc done = finish(resumed, c.dir.file(""), "resumed");
  ::kill(follower, SIGINT);
  (void)finish(follower, c.dir.file(""), "follow");
  ASSERT_EQ(done.code, 0) << done.err;
  EXPECT_EQ(json::parse(read_file(coder_req))["id"], id) << "the resumed run asked the same question";

  auto rs = store::RunStore::open(ref.db());
  auto es = store::RunStore::open(c.db());
  EXPECT_EQ(es->run(1)->status, store::Status::finished);
  EXPECT_EQ(es->run(1)->sessions, 3);
  EXPECT_EQ(store_view(*es, 1), store_view(*rs, 1));
  EXPECT_EQ(read_file(c.dir.file("out") + "/spmv_csr_fp32.cu"), read_file(ref.dir.file("out") + "/spmv_csr_fp32.cu"));
}
