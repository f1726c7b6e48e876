// Owns the run store: one SQLite file (WAL) holding everything a CUDAMaster run did - the run's
// configuration, its jobs (task x precision), rounds, every agent call (prompt, response, tokens,
// cost, latency), candidates (source + hash), builds, evaluations (per shape), profiles.
//
// Every row a job writes carries (job_id, seq): seq numbers the job's steps in the order the loop
// took them, and a UNIQUE(job_id, seq) index makes each step exist at most once. That is the
// journal `cudamaster optimize --resume` replays: a resumed job walks the same steps, takes the
// stored result of each step already recorded, and performs only the ones that are missing.
// Each step is written in one transaction after it completed, so a process killed at any point
// (kill -9 included) leaves a consistent prefix of steps.
//
// The implementation (src/cudamaster/store/) is the only code that includes sqlite3.h. All
// methods are thread-safe (one connection behind a mutex); errors throw StoreError.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/util/enum_names.hpp"

namespace cudamaster::store {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The kinds of journaled steps; the string forms are the table names.
enum class StepKind { llm_call, candidate, build, evaluation, profile, round };
const char* to_string(StepKind k);

// Where a run or a job stands; the strings are the runs and jobs tables' `status` column (a run is
// never pending).
enum class Status { pending, running, finished, stopped, failed };
std::string to_string(Status s);
std::ostream& operator<<(std::ostream& os, Status s);
void to_json(nlohmann::json& j, Status s);

struct RunInfo {
  std::int64_t id = 0;
  std::string created_at, updated_at;  // ISO 8601 UTC
  Status status = Status::running;
  std::string llm;
  nlohmann::json config = nlohmann::json::object();
  nlohmann::json summary;              // null until a session ends
  std::int64_t pid = 0;                // the process that holds (or last held) the run
  std::string host;
  double active_seconds = 0;           // wall clock spent in all sessions
  int sessions = 0;                    // 1 + number of resumes
};

struct JobInfo {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string task, precision;
  Status status = Status::pending;
  std::string stop_reason;  // why a job ended (rounds done, budget, patience, llm error ...)
  nlohmann::json result;    // the job's outcome: best candidate, P, vs vendor, tokens ...
};

// One stored step of a job, as the journal returns it.
struct Step {
  StepKind kind = StepKind::round;
  std::int64_t seq = 0;
  std::int64_t row_id = 0;
  nlohmann::json payload;
};

struct LlmCallRow {
  std::int64_t job_id = 0;
  std::optional<std::int64_t> seq;  // empty for failed calls (not part of the journal)
  int round = 0;
  std::string agent;                // planner | coder | compiler | debug
  int attempt = 0;                  // debug/compiler attempt within the round (0: first)
  std::string provider, model, endpoint;
  nlohmann::json request;           // messages + params (llm::to_json(ChatRequest))
  std::string response_text;
  std::string finish_reason;
  std::int64_t input_tokens = 0, cached_input_tokens = 0, output_tokens = 0, reasoning_tokens = 0;
  std::optional<double> cost_usd;
  double latency_ms = 0;
  int http_attempts = 1;
  bool replayed = false;
  std::string raw_request, raw_response;
  std::string error;                // one line, for failed calls
  nlohmann::json payload;           // what a resumed job needs (the response in llm::to_json form)
};

struct CandidateRow {
  std::int64_t job_id = 0, seq = 0;
  int round = 0;
  std::string origin;  // baseline | vendor | coder | debug
  int attempt = 0;
  std::string source;
  std::string sha256;
  nlohmann::json payload;  // parse notes and problems
};

struct BuildRow {
  std::int64_t job_id = 0, seq = 0, candidate_id = 0;
  bool ok = false, cache_hit = false;
  std::string arch;
  nlohmann::json flags = nlohmann::json::array();
  bool lineinfo = false;
  double seconds = 0;
  std::string error, log, so_path;
  nlohmann::json diagnostics = nlohmann::json::array();
  nlohmann::json payload;
};

struct ShapeRow {
  std::string sweep, shape;
  std::uint64_t complexity = 0;
  double median_us = 0, min_us = 0, max_us = 0, noise = 0;
  int n = 0;
  std::optional<double> speedup, vs_vendor, sol_fraction;
  std::string disposition;
};

struct EvaluationRow {
  std::int64_t job_id = 0, seq = 0;
  std::optional<std::int64_t> candidate_id;
  std::string contender;  // baseline | vendor | candidate
  std::string disposition, message;
  int checks_passed = 0, checks_total = 0;
  std::optional<double> p, geomean, vs_vendor, noise;
  double seconds = 0;
  std::vector<ShapeRow> shapes;
  nlohmann::json payload;
};

struct ProfileRow {
  std::int64_t job_id = 0, seq = 0;
  std::optional<std::int64_t> candidate_id;
  int round = 0;
  std::string mode;  // filtered | full
  bool ok = false;
  std::string cls, source, rendered, message;
  double confidence = 0;
  nlohmann::json payload;
};

struct RoundRow {
  std::int64_t job_id = 0, seq = 0;
  int round = 0;
  std::string outcome;  // accepted | rejected | failed | stopped
  std::optional<std::int64_t> candidate_id;
  std::optional<double> p;
  double best_p_before = 0, best_p_after = 0;
  int attempts = 0;
  nlohmann::json payload;
};

class RunStore {
 public:
  // Opens (creating if needed) the database at `path`: WAL journal, synchronous=FULL, foreign
  // keys on, a busy timeout so readers (`cudamaster runs`) and a writer can share the file.
  static std::unique_ptr<RunStore> open(const std::string& path);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  const std::string& path() const { return path_; }
  std::string journal_mode();     // "wal" once opened
  std::string integrity_check();  // "ok" for an intact database (PRAGMA integrity_check)

  // ---- runs
  std::int64_t create_run(const std::string& llm, const nlohmann::json& config);
  std::optional<RunInfo> run(std::int64_t id);
  std::vector<RunInfo> runs();
  // Marks a new session of `id` held by this process (pid, host, sessions + 1).
  void claim_run(std::int64_t id);
  void set_run_status(std::int64_t id, Status status, const nlohmann::json& summary);
  void set_run_config(std::int64_t id, const nlohmann::json& config);
  void set_active_seconds(std::int64_t id, double seconds);

  // ---- jobs
  // Returns the existing job for (run, task, precision) or creates it (status pending).
  std::int64_t ensure_job(std::int64_t run_id, const std::string& task, const std::string& precision);
  std::vector<JobInfo> jobs(std::int64_t run_id);
  void set_job_status(std::int64_t job_id, Status status, const std::string& stop_reason,
                      const nlohmann::json& result);

  // ---- journaled steps; each returns the new row id. A second write of the same (job, seq)
  // throws StoreError (the journal never repeats a step).
  std::int64_t record_llm_call(const LlmCallRow& row);
  std::int64_t record_candidate(const CandidateRow& row);
  std::int64_t record_build(const BuildRow& row);
  std::int64_t record_evaluation(const EvaluationRow& row);
  std::int64_t record_profile(const ProfileRow& row);
  std::int64_t record_round(const RoundRow& row);

  // The job's journal: every step with a seq, ordered by seq.
  std::vector<Step> journal(std::int64_t job_id);

  // ---- reading back (`cudamaster show`): rows as JSON objects (column -> value), ordered by id.
  // `table` is one of llm_calls, candidates, builds, evaluations, eval_shapes, profiles, rounds.
  std::vector<nlohmann::json> rows(const std::string& table, std::int64_t job_id);
  // Per agent over a run: calls, failed, input/output/cached/reasoning tokens, cost, latency.
  std::vector<nlohmann::json> usage_by_agent(std::int64_t run_id);
  double run_cost(std::int64_t run_id);
  std::int64_t count(const std::string& table, std::int64_t run_id);

  struct Impl;

 private:
  RunStore(std::string path, std::unique_ptr<Impl> impl);
  static void setup(Impl& impl, const std::string& path);
  std::string path_;
  std::unique_ptr<Impl> impl_;
  std::mutex mutex_;
};

// Current time as ISO 8601 UTC ("2026-11-30T07:16:53Z").
std::string now_iso8601();

}  // namespace cudamaster::store

MSKB_DECLARE_VOCABULARY_SPECIALIZATIONS(cudamaster::store::Status)
