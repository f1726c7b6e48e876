// The run store's schema and its migrations, and opening a store (WAL, synchronous=FULL, foreign
// keys, busy timeout, the retried first setup).
#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "cudamaster/store/store.hpp"
#include "sqlite_db.hpp"

namespace cudamaster::store {

namespace {

constexpr int kSchemaVersion = 1;

// A journaled step's table: id, job_id, seq (unique per job when present), created_at, then
// `columns` (each line "  name TYPE,\n"), then the constraints.
std::string step_table(const char* name, const char* columns, const char* seq_type = "INTEGER NOT NULL",
                       const char* more_constraints = "") {
  return std::string("CREATE TABLE IF NOT EXISTS ") + name +
         " (\n"
         "  id INTEGER PRIMARY KEY,\n"
         "  job_id INTEGER NOT NULL REFERENCES jobs(id),\n"
         "  seq " + seq_type + ",\n"
         "  created_at TEXT NOT NULL,\n" +
         columns + "  UNIQUE(job_id, seq)" + more_constraints + "\n);\n";
}

constexpr const char* kRunsAndJobs = R"SQL(
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,
  llm TEXT NOT NULL,
  config TEXT NOT NULL,
  summary TEXT,
  pid INTEGER NOT NULL DEFAULT 0,
  host TEXT NOT NULL DEFAULT '',
  active_seconds REAL NOT NULL DEFAULT 0,
  sessions INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  task TEXT NOT NULL,
  precision TEXT NOT NULL,
  status TEXT NOT NULL,
  stop_reason TEXT NOT NULL DEFAULT '',
  result TEXT,
  UNIQUE(run_id, task, precision)
);
)SQL";

constexpr const char* kEvalShapes = R"SQL(CREATE TABLE IF NOT EXISTS eval_shapes (
  id INTEGER PRIMARY KEY,
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id),
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  sweep TEXT NOT NULL,
  shape TEXT NOT NULL,
  complexity INTEGER NOT NULL,
  median_us REAL NOT NULL,
  min_us REAL NOT NULL,
  max_us REAL NOT NULL,
  n INTEGER NOT NULL,
  noise REAL NOT NULL,
  speedup REAL,
  vs_vendor REAL,
  sol_fraction REAL,
  disposition TEXT NOT NULL
);
)SQL";

// Every table of schema version 1.
std::string schema() {
  std::string sql = kRunsAndJobs;
  sql += step_table("llm_calls",
                    "  round INTEGER NOT NULL,\n  agent TEXT NOT NULL,\n  attempt INTEGER NOT NULL,\n"
                    "  provider TEXT NOT NULL,\n  model TEXT NOT NULL,\n  endpoint TEXT NOT NULL,\n"
                    "  request TEXT NOT NULL,\n  response TEXT NOT NULL,\n  finish_reason TEXT NOT NULL,\n"
                    "  input_tokens INTEGER NOT NULL,\n  cached_input_tokens INTEGER NOT NULL,\n"
                    "  output_tokens INTEGER NOT NULL,\n  reasoning_tokens INTEGER NOT NULL,\n"
                    "  cost_usd REAL,\n  latency_ms REAL NOT NULL,\n  http_attempts INTEGER NOT NULL,\n"
                    "  replayed INTEGER NOT NULL,\n  raw_request TEXT NOT NULL,\n  raw_response TEXT NOT NULL,\n"
                    "  error TEXT NOT NULL,\n  payload TEXT NOT NULL,\n",
                    "INTEGER");
  sql += step_table("candidates",
                    "  round INTEGER NOT NULL,\n  origin TEXT NOT NULL,\n  attempt INTEGER NOT NULL,\n"
                    "  source TEXT NOT NULL,\n  sha256 TEXT NOT NULL,\n  payload TEXT NOT NULL,\n");
  sql += step_table("builds",
                    "  candidate_id INTEGER NOT NULL REFERENCES candidates(id),\n  ok INTEGER NOT NULL,\n"
                    "  cache_hit INTEGER NOT NULL,\n  arch TEXT NOT NULL,\n  flags TEXT NOT NULL,\n"
                    "  lineinfo INTEGER NOT NULL,\n  seconds REAL NOT NULL,\n  error TEXT NOT NULL,\n"
                    "  log TEXT NOT NULL,\n  so_path TEXT NOT NULL,\n  diagnostics TEXT NOT NULL,\n"
                    "  payload TEXT NOT NULL,\n");
  sql += step_table("evaluations",
                    "  candidate_id INTEGER REFERENCES candidates(id),\n  contender TEXT NOT NULL,\n"
                    "  disposition TEXT NOT NULL,\n  message TEXT NOT NULL,\n  checks_passed INTEGER NOT NULL,\n"
                    "  checks_total INTEGER NOT NULL,\n  p REAL,\n  geomean REAL,\n  vs_vendor REAL,\n"
                    "  noise REAL,\n  seconds REAL NOT NULL,\n  payload TEXT NOT NULL,\n");
  sql += kEvalShapes;
  sql += step_table("profiles",
                    "  candidate_id INTEGER REFERENCES candidates(id),\n  round INTEGER NOT NULL,\n"
                    "  mode TEXT NOT NULL,\n  ok INTEGER NOT NULL,\n  class TEXT NOT NULL,\n"
                    "  confidence REAL NOT NULL,\n  source TEXT NOT NULL,\n  rendered TEXT NOT NULL,\n"
                    "  message TEXT NOT NULL,\n  payload TEXT NOT NULL,\n");
  sql += step_table("rounds",
                    "  round INTEGER NOT NULL,\n  outcome TEXT NOT NULL,\n"
                    "  candidate_id INTEGER REFERENCES candidates(id),\n  p REAL,\n"
                    "  best_p_before REAL NOT NULL,\n  best_p_after REAL NOT NULL,\n"
                    "  attempts INTEGER NOT NULL,\n  payload TEXT NOT NULL,\n",
                    "INTEGER NOT NULL", ",\n  UNIQUE(job_id, round)");
  sql +=
      "CREATE INDEX IF NOT EXISTS llm_calls_job ON llm_calls(job_id);\n"
      "CREATE INDEX IF NOT EXISTS eval_shapes_eval ON eval_shapes(evaluation_id);\n";
  return sql;
}

}  // namespace

RunStore::RunStore(std::string path, std::unique_ptr<Impl> impl) : path_(std::move(path)), impl_(std::move(impl)) {}
RunStore::~RunStore() = default;

std::unique_ptr<RunStore> RunStore::open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &impl->db, flags, nullptr) != SQLITE_OK) {
    const std::string msg = impl->db != nullptr ? sqlite3_errmsg(impl->db) : "out of memory";
    throw StoreError("cannot open run store '" + path + "': " + msg);
  }
  sqlite3_busy_timeout(impl->db, 30000);
  // Two processes opening a new store at once can see SQLITE_BUSY outside the busy handler
  // (switching to WAL needs the file to themselves): such a setup is retried, for up to 30 s.
  for (int attempt = 0;; ++attempt) {
    try {
      setup(*impl, path);
      break;
    } catch (const StoreError&) {
      const int code = sqlite3_extended_errcode(impl->db) & 0xff;
      if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || attempt >= 300) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return std::unique_ptr<RunStore>(new RunStore(path, std::move(impl)));
}

void RunStore::setup(Impl& db, const std::string& path) {
  Impl* impl = &db;
  try {
    impl->exec("PRAGMA journal_mode=WAL");
    impl->exec("PRAGMA synchronous=FULL");
    impl->exec("PRAGMA foreign_keys=ON");
    int version = 0;
    {
      Impl::Stmt s(*impl, "PRAGMA user_version");
      if (s.step()) version = static_cast<int>(s.i64(0));
    }
    if (version > kSchemaVersion)
      throw StoreError("run store '" + path + "' has schema version " + std::to_string(version) +
                       ", newer than this cudamaster (" + std::to_string(kSchemaVersion) + ")");
    if (version < kSchemaVersion) {  // readers of an existing store take no write lock
      impl->transaction([&] {
        impl->exec(schema().c_str());
        impl->exec(("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
        return 0;
      });
    }
  } catch (const StoreError& e) {
    throw StoreError("run store '" + path + "': " + e.what());
  }
}

std::string RunStore::journal_mode() {
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, "PRAGMA journal_mode");
  return s.step() ? s.text(0) : std::string();
}

std::string RunStore::integrity_check() {
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, "PRAGMA integrity_check");
  std::string out;
  while (s.step()) out += (out.empty() ? "" : "; ") + s.text(0);
  return out;
}

}  // namespace cudamaster::store
