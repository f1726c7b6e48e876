// SQLite implementation of the run store (the only file that includes sqlite3.h).
#include "cudamaster/store/store.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <thread>
#include <utility>

namespace cudamaster::store {

using nlohmann::json;

const char* to_string(StepKind k) {
  switch (k) {
    case StepKind::llm_call: return "llm_calls";
    case StepKind::candidate: return "candidates";
    case StepKind::build: return "builds";
    case StepKind::evaluation: return "evaluations";
    case StepKind::profile: return "profiles";
    case StepKind::round: return "rounds";
  }
  return "?";
}

std::string now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

constexpr int kSchemaVersion = 1;

// Tables. Every step table has (job_id, seq) with seq unique per job when present.
constexpr const char* kSchema = R"SQL(
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
CREATE TABLE IF NOT EXISTS llm_calls (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  seq INTEGER,
  created_at TEXT NOT NULL,
  round INTEGER NOT NULL,
  agent TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  request TEXT NOT NULL,
  response TEXT NOT NULL,
  finish_reason TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL,
  cost_usd REAL,
  latency_ms REAL NOT NULL,
  http_attempts INTEGER NOT NULL,
  replayed INTEGER NOT NULL,
  raw_request TEXT NOT NULL,
  raw_response TEXT NOT NULL,
  error TEXT NOT NULL,
  payload TEXT NOT NULL,
  UNIQUE(job_id, seq)
);
CREATE TABLE IF NOT EXISTS candidates (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  round INTEGER NOT NULL,
  origin TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  source TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  payload TEXT NOT NULL,
  UNIQUE(job_id, seq)
);
CREATE TABLE IF NOT EXISTS builds (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  ok INTEGER NOT NULL,
  cache_hit INTEGER NOT NULL,
  arch TEXT NOT NULL,
  flags TEXT NOT NULL,
  lineinfo INTEGER NOT NULL,
  seconds REAL NOT NULL,
  error TEXT NOT NULL,
  log TEXT NOT NULL,
  so_path TEXT NOT NULL,
  diagnostics TEXT NOT NULL,
  payload TEXT NOT NULL,
  UNIQUE(job_id, seq)
);
CREATE TABLE IF NOT EXISTS evaluations (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  candidate_id INTEGER REFERENCES candidates(id),
  contender TEXT NOT NULL,
  disposition TEXT NOT NULL,
  message TEXT NOT NULL,
  checks_passed INTEGER NOT NULL,
  checks_total INTEGER NOT NULL,
  p REAL,
  geomean REAL,
  vs_vendor REAL,
  noise REAL,
  seconds REAL NOT NULL,
  payload TEXT NOT NULL,
  UNIQUE(job_id, seq)
);
CREATE TABLE IF NOT EXISTS eval_shapes (
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
CREATE TABLE IF NOT EXISTS profiles (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  candidate_id INTEGER REFERENCES candidates(id),
  round INTEGER NOT NULL,
  mode TEXT NOT NULL,
  ok INTEGER NOT NULL,
  class TEXT NOT NULL,
  confidence REAL NOT NULL,
  source TEXT NOT NULL,
  rendered TEXT NOT NULL,
  message TEXT NOT NULL,
  payload TEXT NOT NULL,
  UNIQUE(job_id, seq)
);
CREATE TABLE IF NOT EXISTS rounds (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  round INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  candidate_id INTEGER REFERENCES candidates(id),
  p REAL,
  best_p_before REAL NOT NULL,
  best_p_after REAL NOT NULL,
  attempts INTEGER NOT NULL,
  payload TEXT NOT NULL,
  UNIQUE(job_id, seq),
  UNIQUE(job_id, round)
);
CREATE INDEX IF NOT EXISTS llm_calls_job ON llm_calls(job_id);
CREATE INDEX IF NOT EXISTS eval_shapes_eval ON eval_shapes(evaluation_id);
)SQL";

std::string dump(const json& j) {
  return j.is_null() ? std::string("null") : j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json parse_or_null(const unsigned char* text) {
  if (text == nullptr) return nullptr;
  json j = json::parse(reinterpret_cast<const char*>(text), nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace

struct RunStore::Impl {
  sqlite3* db = nullptr;

  ~Impl() {
    if (db != nullptr) sqlite3_close_v2(db);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw StoreError(what + ": " + (db != nullptr ? sqlite3_errmsg(db) : "no database"));
  }

  void exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string msg = err != nullptr ? err : "unknown error";
      sqlite3_free(err);
      throw StoreError(std::string("sqlite: ") + msg);
    }
  }

  // A prepared statement with positional binding (1-based, in call order).
  class Stmt {
   public:
    Stmt(Impl& impl, const char* sql) : impl_(impl) {
      if (sqlite3_prepare_v2(impl.db, sql, -1, &stmt_, nullptr) != SQLITE_OK) impl.fail("prepare");
    }
    ~Stmt() { sqlite3_finalize(stmt_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(std::int64_t v) { return check(sqlite3_bind_int64(stmt_, ++n_, v)); }
    Stmt& bind(int v) { return bind(static_cast<std::int64_t>(v)); }
    Stmt& bind(bool v) { return bind(static_cast<std::int64_t>(v ? 1 : 0)); }
    Stmt& bind(double v) { return check(sqlite3_bind_double(stmt_, ++n_, v)); }
    Stmt& bind(const std::string& v) {
      return check(sqlite3_bind_text(stmt_, ++n_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    }
    Stmt& bind(const char* v) { return bind(std::string(v)); }
    Stmt& bind(const json& v) { return bind(dump(v)); }
    template <class T>
    Stmt& bind(const std::optional<T>& v) {
      if (v) return bind(*v);
      return check(sqlite3_bind_null(stmt_, ++n_));
    }

    bool step() {
      const int rc = sqlite3_step(stmt_);
      if (rc == SQLITE_ROW) return true;
      if (rc == SQLITE_DONE) return false;
      impl_.fail("step");
    }
    void run() {
      while (step()) {
      }
    }

    std::int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
    double f64(int col) const { return sqlite3_column_double(stmt_, col); }
    bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
    std::string text(int col) const {
      const unsigned char* t = sqlite3_column_text(stmt_, col);
      return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t),
                                                        static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
    }
    json json_col(int col) const { return parse_or_null(sqlite3_column_text(stmt_, col)); }

    // The current row as a JSON object; columns named *payload/config/summary/result/flags/
    // diagnostics/request hold JSON text and are parsed.
    json row_object() const {
      json o = json::object();
      const int n = sqlite3_column_count(stmt_);
      for (int c = 0; c < n; ++c) {
        const std::string name = sqlite3_column_name(stmt_, c);
        switch (sqlite3_column_type(stmt_, c)) {
          case SQLITE_NULL: o[name] = nullptr; break;
          case SQLITE_INTEGER: o[name] = i64(c); break;
          case SQLITE_FLOAT: o[name] = f64(c); break;
          default: {
            static const char* const kJsonColumns[] = {"payload", "config", "summary", "result",
                                                       "flags", "diagnostics", "request"};
            bool is_json = false;
            for (const char* k : kJsonColumns) is_json |= name == k;
            o[name] = is_json ? json_col(c) : json(text(c));
          }
        }
      }
      return o;
    }

   private:
    Stmt& check(int rc) {
      if (rc != SQLITE_OK) impl_.fail("bind");
      return *this;
    }
    Impl& impl_;
    sqlite3_stmt* stmt_ = nullptr;
    int n_ = 0;
  };

  // BEGIN IMMEDIATE ... COMMIT, rolled back when the body throws.
  template <class F>
  auto transaction(F&& body) {
    exec("BEGIN IMMEDIATE");
    try {
      auto r = body();
      exec("COMMIT");
      return r;
    } catch (...) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  std::int64_t last_id() const { return sqlite3_last_insert_rowid(db); }
};

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
        impl->exec(kSchema);
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

// ---- runs

std::int64_t RunStore::create_run(const std::string& llm, const json& config) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    const std::string now = now_iso8601();
    Impl::Stmt s(*impl_,
                 "INSERT INTO runs(created_at, updated_at, status, llm, config, pid, host, sessions) "
                 "VALUES(?,?,?,?,?,?,?,1)");
    s.bind(now).bind(now).bind("running").bind(llm).bind(config).bind(static_cast<std::int64_t>(::getpid()))
        .bind(hostname()).run();
    return impl_->last_id();
  });
}

namespace {
RunInfo run_from(const RunStore::Impl::Stmt& s) {
  RunInfo r;
  r.id = s.i64(0);
  r.created_at = s.text(1);
  r.updated_at = s.text(2);
  r.status = s.text(3);
  r.llm = s.text(4);
  r.config = s.json_col(5);
  r.summary = s.json_col(6);
  r.pid = s.i64(7);
  r.host = s.text(8);
  r.active_seconds = s.f64(9);
  r.sessions = static_cast<int>(s.i64(10));
  return r;
}
constexpr const char* kRunColumns =
    "SELECT id, created_at, updated_at, status, llm, config, summary, pid, host, active_seconds, sessions FROM runs";
}  // namespace

std::optional<RunInfo> RunStore::run(std::int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, (std::string(kRunColumns) + " WHERE id = ?").c_str());
  s.bind(id);
  if (!s.step()) return std::nullopt;
  return run_from(s);
}

std::vector<RunInfo> RunStore::runs() {
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, (std::string(kRunColumns) + " ORDER BY id").c_str());
  std::vector<RunInfo> out;
  while (s.step()) out.push_back(run_from(s));
  return out;
}

void RunStore::claim_run(std::int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "UPDATE runs SET status = 'running', pid = ?, host = ?, sessions = sessions + 1, updated_at = ? "
                 "WHERE id = ?");
    s.bind(static_cast<std::int64_t>(::getpid())).bind(hostname()).bind(now_iso8601()).bind(id).run();
    return 0;
  });
}

void RunStore::set_run_status(std::int64_t id, const std::string& status, const json& summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  impl_->transaction([&] {
    Impl::Stmt s(*impl_, "UPDATE runs SET status = ?, summary = ?, updated_at = ? WHERE id = ?");
    s.bind(status).bind(summary).bind(now_iso8601()).bind(id).run();
    return 0;
  });
}

void RunStore::set_run_config(std::int64_t id, const json& config) {
  std::lock_guard<std::mutex> lock(mutex_);
  impl_->transaction([&] {
    Impl::Stmt s(*impl_, "UPDATE runs SET config = ?, updated_at = ? WHERE id = ?");
    s.bind(config).bind(now_iso8601()).bind(id).run();
    return 0;
  });
}

void RunStore::set_active_seconds(std::int64_t id, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  impl_->transaction([&] {
    Impl::Stmt s(*impl_, "UPDATE runs SET active_seconds = ?, updated_at = ? WHERE id = ?");
    s.bind(seconds).bind(now_iso8601()).bind(id).run();
    return 0;
  });
}

// ---- jobs

std::int64_t RunStore::ensure_job(std::int64_t run_id, const std::string& task, const std::string& precision) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    {
      Impl::Stmt s(*impl_, "SELECT id FROM jobs WHERE run_id = ? AND task = ? AND precision = ?");
      s.bind(run_id).bind(task).bind(precision);
      if (s.step()) return s.i64(0);
    }
    Impl::Stmt s(*impl_, "INSERT INTO jobs(run_id, task, precision, status) VALUES(?,?,?,'pending')");
    s.bind(run_id).bind(task).bind(precision).run();
    return impl_->last_id();
  });
}

std::vector<JobInfo> RunStore::jobs(std::int64_t run_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, "SELECT id, run_id, task, precision, status, stop_reason, result FROM jobs WHERE run_id = ? ORDER BY id");
  s.bind(run_id);
  std::vector<JobInfo> out;
  while (s.step()) {
    JobInfo j;
    j.id = s.i64(0);
    j.run_id = s.i64(1);
    j.task = s.text(2);
    j.precision = s.text(3);
    j.status = s.text(4);
    j.stop_reason = s.text(5);
    j.result = s.json_col(6);
    out.push_back(std::move(j));
  }
  return out;
}

void RunStore::set_job_status(std::int64_t job_id, const std::string& status, const std::string& stop_reason,
                              const json& result) {
  std::lock_guard<std::mutex> lock(mutex_);
  impl_->transaction([&] {
    Impl::Stmt s(*impl_, "UPDATE jobs SET status = ?, stop_reason = ?, result = ? WHERE id = ?");
    s.bind(status).bind(stop_reason).bind(result).bind(job_id).run();
    return 0;
  });
}

// ---- steps

std::int64_t RunStore::record_llm_call(const LlmCallRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO llm_calls(job_id, seq, created_at, round, agent, attempt, provider, model, endpoint, "
                 "request, response, finish_reason, input_tokens, cached_input_tokens, output_tokens, reasoning_tokens, "
                 "cost_usd, latency_ms, http_attempts, replayed, raw_request, raw_response, error, payload) "
                 "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.round).bind(r.agent).bind(r.attempt).bind(r.provider)
        .bind(r.model).bind(r.endpoint).bind(r.request).bind(r.response_text).bind(r.finish_reason)
        .bind(r.input_tokens).bind(r.cached_input_tokens).bind(r.output_tokens).bind(r.reasoning_tokens)
        .bind(r.cost_usd).bind(r.latency_ms).bind(r.http_attempts).bind(r.replayed).bind(r.raw_request)
        .bind(r.raw_response).bind(r.error).bind(r.payload).run();
    return impl_->last_id();
  });
}

std::int64_t RunStore::record_candidate(const CandidateRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO candidates(job_id, seq, created_at, round, origin, attempt, source, sha256, payload) "
                 "VALUES(?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.round).bind(r.origin).bind(r.attempt).bind(r.source)
        .bind(r.sha256).bind(r.payload).run();
    return impl_->last_id();
  });
}

std::int64_t RunStore::record_build(const BuildRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO builds(job_id, seq, created_at, candidate_id, ok, cache_hit, arch, flags, lineinfo, seconds, "
                 "error, log, so_path, diagnostics, payload) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.candidate_id).bind(r.ok).bind(r.cache_hit).bind(r.arch)
        .bind(r.flags).bind(r.lineinfo).bind(r.seconds).bind(r.error).bind(r.log).bind(r.so_path).bind(r.diagnostics)
        .bind(r.payload).run();
    return impl_->last_id();
  });
}

std::int64_t RunStore::record_evaluation(const EvaluationRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    std::int64_t id = 0;
    {
      Impl::Stmt s(*impl_,
                   "INSERT INTO evaluations(job_id, seq, created_at, candidate_id, contender, disposition, message, "
                   "checks_passed, checks_total, p, geomean, vs_vendor, noise, seconds, payload) "
                   "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.candidate_id).bind(r.contender).bind(r.disposition)
          .bind(r.message).bind(r.checks_passed).bind(r.checks_total).bind(r.p).bind(r.geomean).bind(r.vs_vendor)
          .bind(r.noise).bind(r.seconds).bind(r.payload).run();
      id = impl_->last_id();
    }
    for (const ShapeRow& sh : r.shapes) {
      Impl::Stmt s(*impl_,
                   "INSERT INTO eval_shapes(evaluation_id, job_id, sweep, shape, complexity, median_us, min_us, max_us, n, "
                   "noise, speedup, vs_vendor, sol_fraction, disposition) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      s.bind(id).bind(r.job_id).bind(sh.sweep).bind(sh.shape).bind(static_cast<std::int64_t>(sh.complexity))
          .bind(sh.median_us).bind(sh.min_us).bind(sh.max_us).bind(sh.n).bind(sh.noise).bind(sh.speedup)
          .bind(sh.vs_vendor).bind(sh.sol_fraction).bind(sh.disposition).run();
    }
    return id;
  });
}

std::int64_t RunStore::record_profile(const ProfileRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO profiles(job_id, seq, created_at, candidate_id, round, mode, ok, class, confidence, source, "
                 "rendered, message, payload) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.candidate_id).bind(r.round).bind(r.mode).bind(r.ok)
        .bind(r.cls).bind(r.confidence).bind(r.source).bind(r.rendered).bind(r.message).bind(r.payload).run();
    return impl_->last_id();
  });
}

std::int64_t RunStore::record_round(const RoundRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO rounds(job_id, seq, created_at, round, outcome, candidate_id, p, best_p_before, best_p_after, "
                 "attempts, payload) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.round).bind(r.outcome).bind(r.candidate_id).bind(r.p)
        .bind(r.best_p_before).bind(r.best_p_after).bind(r.attempts).bind(r.payload).run();
    return impl_->last_id();
  });
}

std::vector<Step> RunStore::journal(std::int64_t job_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  static const char* const kSql =
      "SELECT 0, seq, id, payload FROM llm_calls WHERE job_id = ?1 AND seq IS NOT NULL "
      "UNION ALL SELECT 1, seq, id, payload FROM candidates WHERE job_id = ?1 "
      "UNION ALL SELECT 2, seq, id, payload FROM builds WHERE job_id = ?1 "
      "UNION ALL SELECT 3, seq, id, payload FROM evaluations WHERE job_id = ?1 "
      "UNION ALL SELECT 4, seq, id, payload FROM profiles WHERE job_id = ?1 "
      "UNION ALL SELECT 5, seq, id, payload FROM rounds WHERE job_id = ?1 ORDER BY 2";
  Impl::Stmt s(*impl_, kSql);
  s.bind(job_id);
  std::vector<Step> out;
  while (s.step()) {
    Step st;
    st.kind = static_cast<StepKind>(s.i64(0));
    st.seq = s.i64(1);
    st.row_id = s.i64(2);
    st.payload = s.json_col(3);
    out.push_back(std::move(st));
  }
  return out;
}

std::vector<json> RunStore::rows(const std::string& table, std::int64_t job_id) {
  static const char* const kTables[] = {"llm_calls", "candidates", "builds", "evaluations",
                                        "eval_shapes", "profiles", "rounds"};
  bool known = false;
  for (const char* t : kTables) known |= table == t;
  if (!known) throw StoreError("unknown table '" + table + "'");
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, ("SELECT * FROM " + table + " WHERE job_id = ? ORDER BY id").c_str());
  s.bind(job_id);
  std::vector<json> out;
  while (s.step()) out.push_back(s.row_object());
  return out;
}

std::vector<json> RunStore::usage_by_agent(std::int64_t run_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_,
               "SELECT agent, COUNT(*) AS calls, SUM(error != '') AS failed, SUM(input_tokens) AS input_tokens, "
               "SUM(cached_input_tokens) AS cached_input_tokens, SUM(output_tokens) AS output_tokens, "
               "SUM(reasoning_tokens) AS reasoning_tokens, TOTAL(cost_usd) AS cost_usd, "
               "SUM(cost_usd IS NULL AND error = '') AS unpriced, TOTAL(latency_ms) AS latency_ms "
               "FROM llm_calls WHERE job_id IN (SELECT id FROM jobs WHERE run_id = ?) GROUP BY agent ORDER BY agent");
  s.bind(run_id);
  std::vector<json> out;
  while (s.step()) out.push_back(s.row_object());
  return out;
}

double RunStore::run_cost(std::int64_t run_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, "SELECT TOTAL(cost_usd) FROM llm_calls WHERE job_id IN (SELECT id FROM jobs WHERE run_id = ?)");
  s.bind(run_id);
  return s.step() ? s.f64(0) : 0.0;
}

std::int64_t RunStore::count(const std::string& table, std::int64_t run_id) {
  static const char* const kTables[] = {"llm_calls", "candidates", "builds", "evaluations",
                                        "eval_shapes", "profiles", "rounds"};
  bool known = false;
  for (const char* t : kTables) known |= table == t;
  if (!known) throw StoreError("unknown table '" + table + "'");
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, ("SELECT COUNT(*) FROM " + table + " WHERE job_id IN (SELECT id FROM jobs WHERE run_id = ?)").c_str());
  s.bind(run_id);
  return s.step() ? s.i64(0) : 0;
}

}  // namespace cudamaster::store
