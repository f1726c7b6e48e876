// Reading the run store back as JSON (`cudamaster show`, `runs`, reports): a job's rows of one
// table, usage per agent, a run's cost and row counts.
#include <string>

#include "cudamaster/store/store.hpp"
#include "sqlite_db.hpp"

namespace cudamaster::store {

using nlohmann::json;

namespace {
// The tables rows() and count() read; the name is spliced into SQL, so anything else is refused.
void require_step_table(const std::string& table) {
  static const char* const kTables[] = {"llm_calls", "candidates", "builds", "evaluations",
                                        "eval_shapes", "profiles", "rounds"};
  bool known = false;
  for (const char* t : kTables) known |= table == t;
  if (!known) throw StoreError("unknown table '" + table + "'");
}
}  // namespace

json RunStore::Impl::Stmt::row_object() const {
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

std::vector<json> RunStore::rows(const std::string& table, std::int64_t job_id) {
  require_step_table(table);
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, "SELECT * FROM " + table + " WHERE job_id = ? ORDER BY id");
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
  require_step_table(table);
  std::lock_guard<std::mutex> lock(mutex_);
  Impl::Stmt s(*impl_, "SELECT COUNT(*) FROM " + table + " WHERE job_id IN (SELECT id FROM jobs WHERE run_id = ?)");
  s.bind(run_id);
  return s.step() ? s.i64(0) : 0;
}

}  // namespace cudamaster::store
