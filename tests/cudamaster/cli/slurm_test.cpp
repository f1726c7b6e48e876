// `cudamaster optimize --executor slurm` through the real binary with a fake srun
// (tests/support/fakes/srun: it checks srun's options and runs the "job step" here), the fake nvcc and the
// fake mskb-runner: every GPU process is a job step with one GPU and the user's srun options,
// the results equal a local run's, --slurm-jobs bounds the steps at once, a step that cannot be
// allocated is a harness_error and the run goes on, and a resumed run stays on Slurm.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "support/agent_doubles.hpp"
#include "support/child_process.hpp"

using namespace cmtest;

namespace {

// CM_TEST_SRUN: another srun for these tests, e.g. a real one behind a wrapper that writes
// FAKE_SRUN_LOG as the fake does (docs/agents.md: checking against a real Slurm).
const std::string kFakeSrun = [] {
  const char* e = std::getenv("CM_TEST_SRUN");
  return e != nullptr && *e != '\0' ? std::string(e) : std::string(CM_AGENTS_FAKES) + "/srun";
}();

// No lane device, allocation or fake-srun setting of this process may reach a step.
const std::vector<std::string> kNotInherited = {"CUDA_VISIBLE_DEVICES", "SLURM_JOB_ID", "FAKE_SRUN*"};

struct Cli : FakeCliDir {
  Cli() {
    env["FAKE_SRUN_LOG"] = dir.file("srun.log");
    drop = kNotInherited;
  }
  Proc run(const std::vector<std::string>& args) { return run_program(args, CM_CUDAMASTER_BIN); }
  std::string shared() const { return dir.file("shared"); }
  // The srun options of a Slurm run in this folder.
  std::vector<std::string> slurm(const std::string& user_args = "--partition=gpu --account=X --time=00:20:00") const {
    return {"--executor", "slurm", "--slurm-srun", kFakeSrun, "--slurm-args", user_args, "--slurm-workdir", shared()};
  }
};

std::vector<std::string> story_args(const std::string& cassette, const Cli& c) {
  return {"optimize", "--task", "spmv_csr", "--llm", "replay:" + cassette, "--rounds", "2", "--profile", "none",
          "--db", c.db(), "--out", c.dir.file("out")};
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Each srun call's fields (tab-separated: cvd=..., the options, the command).
std::vector<std::vector<std::string>> srun_calls(const std::string& log) {
  std::vector<std::vector<std::string>> calls;
  for (const std::string& line : read_lines(log)) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    for (std::string f; std::getline(in, f, '\t');) fields.push_back(f);
    calls.push_back(fields);
  }
  return calls;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::size_t count_with(const std::vector<std::vector<std::string>>& calls, const std::string& field) {
  return static_cast<std::size_t>(std::count_if(calls.begin(), calls.end(), [&](const auto& c) { return has(c, field); }));
}

// (contender, disposition, message) of every evaluation of run 1's only job.
std::vector<std::string> evaluations(const std::string& db) {
  auto s = store::RunStore::open(db);
  std::vector<std::string> out;
  for (const json& e : s->rows("evaluations", s->jobs(1)[0].id))
    out.push_back(e["contender"].get<std::string>() + " " + e["disposition"].get<std::string>() + " " + e["message"].get<std::string>());
  return out;
}

}  // namespace

TEST(Slurm, EveryEvaluationIsAOneGpuJobStepWithTheUsersOptionsAndTheResultsEqualALocalRun) {
  Cli local;
  const std::string cassette = record_story(local.dir.file("story.jsonl"));
  const Proc l = local.run(concat(story_args(cassette, local), {"--json"}));
  ASSERT_EQ(l.code, 0) << l.err;
  EXPECT_FALSE(std::filesystem::exists(local.dir.file("srun.log")));

  Cli c;
  const Proc p = c.run(concat(concat(story_args(cassette, c), c.slurm()), {"--json"}));
  ASSERT_EQ(p.code, 0) << p.err;
  const json sl = json::parse(p.out), lo = json::parse(l.out);
  EXPECT_EQ(sl["status"], "finished");
  EXPECT_EQ(sl["suite"], lo["suite"]);
  for (const char* k : {"status", "p", "best_origin", "vs_vendor", "vendor_p", "rounds"}) EXPECT_EQ(sl["tasks"][0][k], lo["tasks"][0][k]) << k;
  EXPECT_EQ(sl["config"]["device"]["name"], "Fake H200");  // measured in a job step too
  EXPECT_EQ(evaluations(c.db()), evaluations(local.db()));
  EXPECT_EQ(read_file(c.dir.file("out") + "/spmv_csr_fp32.cu"), read_file(local.dir.file("out") + "/spmv_csr_fp32.cu"));

  // Nine evaluations (baseline, vendor, three candidates, and for the accepted one memcheck,
  // racecheck and the re-measurement beside the baseline) and the two device queries, each one
  // srun call with one GPU and the user's options; no lane device passed down (the step's GRES
  // binding sets it: gpu=0 in the runner).
  const auto calls = srun_calls(c.dir.file("srun.log"));
  ASSERT_EQ(calls.size(), 11u) << read_file(c.dir.file("srun.log"));
  EXPECT_EQ(count_with(calls, "--job-name=cudamaster-eval"), 9u);
  EXPECT_EQ(count_with(calls, "--job-name=cudamaster-device"), 2u);
  for (const auto& call : calls) {
    EXPECT_EQ(call[0], "cvd=unset");
    for (const char* opt : {"--quiet", "--ntasks=1", "--nodes=1", "--gres=gpu:1", "--partition=gpu", "--account=X", "--time=00:20:00"})
      EXPECT_TRUE(has(call, opt)) << opt;
    EXPECT_TRUE(has(call, CM_FAKE_RUNNER));
    const auto req = std::find_if(call.begin(), call.end(), [](const std::string& f) { return f.find("request.json") != std::string::npos; });
    ASSERT_NE(req, call.end());
    EXPECT_EQ(req->rfind(c.shared() + "/", 0), 0u) << *req << " is not under the shared work folder";
  }
  const auto runner = read_lines(c.dir.file("runner.log"));
  ASSERT_EQ(runner.size(), 9u);
  for (const std::string& line : runner) EXPECT_NE(line.find(" gpu=0"), std::string::npos) << line;

  // Where it ran is part of the run.
  EXPECT_EQ(sl["config"]["executor"]["kind"], "slurm");
  EXPECT_EQ(sl["config"]["executor"]["args"], json({"--partition=gpu", "--account=X", "--time=00:20:00"}));
  EXPECT_EQ(lo["config"]["executor"]["kind"], "local");
  const Proc show = c.run({"show", "1", "--db", c.db()});
  EXPECT_NE(show.out.find("GPU work: slurm (srun --partition=gpu --account=X --time=00:20:00; work dir " + c.shared() +
                          "), 4 job steps at once"),
            std::string::npos)
      << show.out;
  EXPECT_NE(c.run({"show", "1", "--db", local.db()}).out.find("GPU work: local"), std::string::npos);
}

TEST(Slurm, SlurmJobsBoundsTheStepsAtOnce) {
  Cli c;
  write_file(c.dir.file("empty.jsonl"), "");  // no rounds: no LLM calls
  c.env["FAKE_SRUN_STATE"] = c.dir.file("");
  c.env["FAKE_RUNNER_SLEEP_MS"] = "300";
  const Proc p = c.run(concat({"optimize", "--task", "spmv_csr,vector_add", "--precision", "all", "--rounds", "0", "--llm",
                               "replay:" + c.dir.file("empty.jsonl"), "--profile", "none", "--jobs", "4", "--slurm-jobs", "2", "--db",
                               c.db(), "--out", c.dir.file("out")},
                              c.slurm("--partition=gpu")));
  ASSERT_EQ(p.code, 0) << p.err;
  // Four jobs, each its baseline and vendor: eight steps, two at a time (never three).
  EXPECT_EQ(count_with(srun_calls(c.dir.file("srun.log")), "--job-name=cudamaster-eval"), 8u) << p.err;
  EXPECT_EQ(read_lines(c.dir.file("runner.log")).size(), 8u);
  EXPECT_EQ(read_file(c.dir.file("max")), "2\n");
  EXPECT_EQ(read_file(c.dir.file("count")), "0\n");
  EXPECT_NE(p.err.find("GPU work: slurm (srun --partition=gpu; work dir"), std::string::npos) << p.err;
}

TEST(Slurm, AStepThatCannotBeAllocatedIsAHarnessErrorAndTheRunGoesOn) {
  Cli c;
  const std::string cassette = record_story(c.dir.file("story.jsonl"));
  c.env["FAKE_SRUN_FAIL"] = "/spmv_csr-fp32-vendor/request.json";  // the vendor's evaluation
  const Proc p = c.run(concat(concat(story_args(cassette, c), c.slurm()), {"--json"}));
  ASSERT_EQ(p.code, 0) << p.err;
  const std::string why = "harness_error: srun: error: Unable to allocate resources: Requested node configuration is not available";
  EXPECT_NE(p.err.find("vendor contender: " + why), std::string::npos) << p.err;
  const auto evals = evaluations(c.db());
  ASSERT_EQ(evals.size(), 9u);  // with the accepted candidate's sanitizer runs and re-measurement
  EXPECT_EQ(evals[1], "vendor harness_error " + why);
  EXPECT_EQ(evals.back().rfind("candidate", 0), 0u) << evals.back();
  EXPECT_NE(evals.back().find("passed"), std::string::npos) << evals.back();
  EXPECT_EQ(json::parse(p.out)["status"], "finished");
  EXPECT_EQ(read_lines(c.dir.file("runner.log")).size(), 8u);  // the vendor's runner never started
  EXPECT_NE(read_file(c.dir.file("out") + "/spmv_csr_fp32.cu").find("fake-eval: speed=2.5"), std::string::npos);
}

TEST(Slurm, UsageErrors) {
  Cli c;
  const std::vector<std::string> base = {"optimize", "--task", "spmv_csr", "--llm", "replay:x", "--db", c.db()};
  struct Case {
    std::vector<std::string> extra;
    int code;
    std::string message;
  };
  for (const Case& k : std::vector<Case>{
           {concat(c.slurm(), {"--gpus", "0"}), 2, "--gpus picks GPUs of this machine"},
           {{"--slurm-args", "--partition=gpu"}, 2, "--slurm-args needs --executor slurm"},
           {{"--executor", "pbs"}, 2, "--executor must be local or slurm"},
           {c.slurm("--partition=gpu --ntasks=2"), 2, "srun option '--ntasks=2' is not allowed"},
           {concat(c.slurm(), {"--slurm-jobs", "0"}), 2, "--slurm-jobs must be at least 1"},
           {{"--executor", "slurm", "--slurm-srun", "/nonexistent/srun", "--slurm-workdir", c.shared()}, 1, "srun not found at /nonexistent/srun"},
       }) {
    const Proc p = c.run(concat(base, k.extra));
    EXPECT_EQ(p.code, k.code) << k.message << ": " << p.err;
    EXPECT_NE(p.err.find(k.message), std::string::npos) << p.err;
  }
  EXPECT_FALSE(std::filesystem::exists(c.db()));  // nothing started
}

TEST(Slurm, AResumedRunStaysOnSlurmUnlessToldOtherwise) {
  Cli c;
  const std::string cassette = record_story(c.dir.file("story.jsonl"));
  c.env["FAKE_RUNNER_SLEEP_MS"] = "250";
  const pid_t pid = spawn(concat(story_args(cassette, c), c.slurm()), c.env, c.dir.file(""), "killed", CM_CUDAMASTER_BIN, kNotInherited);
  bool killed = false;
  for (int i = 0; i < 3000 && !killed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!std::filesystem::exists(c.db())) continue;
    try {
      auto s = store::RunStore::open(c.db());
      if (!s->runs().empty() && s->count("evaluations", 1) >= 2) {
        ::kill(pid, SIGKILL);
        killed = true;
      }
    } catch (const store::StoreError&) {
    }
  }
  finish(pid, c.dir.file(""), "killed");
  ASSERT_TRUE(killed);
  c.env.erase("FAKE_RUNNER_SLEEP_MS");
  const Proc resumed = c.run({"optimize", "--resume", "1", "--db", c.db()});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("GPU work: slurm"), std::string::npos) << resumed.err;
  EXPECT_EQ(store::RunStore::open(c.db())->run(1)->status, cudamaster::store::Status::finished);
  // Every runner of both sessions ran in a job step (the srun calls also count the device queries).
  const auto calls = srun_calls(c.dir.file("srun.log"));
  EXPECT_EQ(count_with(calls, "--job-name=cudamaster-eval"), read_lines(c.dir.file("runner.log")).size());
  EXPECT_GE(read_lines(c.dir.file("runner.log")).size(), 9u);
  EXPECT_EQ(evaluations(c.db()).size(), 9u);

  // Told otherwise, the session runs here and the record says so.
  const Proc local = c.run({"optimize", "--resume", "1", "--db", c.db(), "--executor", "local"});
  ASSERT_EQ(local.code, 0) << local.err;
  EXPECT_NE(local.err.find("this session runs GPU work on local (was slurm"), std::string::npos) << local.err;
  EXPECT_EQ(store::RunStore::open(c.db())->run(1)->config["executor"]["kind"], "local");
}
