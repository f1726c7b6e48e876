// The run store's runs and jobs: creating, claiming and finishing runs, a run's jobs and their
// status; the Status vocabulary and timestamps.
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <ostream>
#include <utility>

#include "cudamaster/store/store.hpp"
#include "sqlite_db.hpp"

namespace cudamaster::store {

using nlohmann::json;

namespace {
constexpr mskb::EnumName<Status> kStatuses[] = {
    {Status::pending, "pending"}, {Status::running, "running"}, {Status::finished, "finished"},
    {Status::stopped, "stopped"}, {Status::failed, "failed"},
};

Status status_from(const std::string& text) {
  try {
    return mskb::util::enum_parse(kStatuses, text, "status");
  } catch (const std::invalid_argument& e) {
    throw StoreError(std::string("run store: ") + e.what());
  }
}

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}
}  // namespace

std::string to_string(Status s) { return mskb::util::enum_name(kStatuses, s); }
std::ostream& operator<<(std::ostream& os, Status s) { return os << to_string(s); }
void to_json(json& j, Status s) { j = to_string(s); }

std::string now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
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
  r.status = status_from(s.text(3));
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

void RunStore::set_run_status(std::int64_t id, Status status, const json& summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  impl_->transaction([&] {
    Impl::Stmt s(*impl_, "UPDATE runs SET status = ?, summary = ?, updated_at = ? WHERE id = ?");
    s.bind(to_string(status)).bind(summary).bind(now_iso8601()).bind(id).run();
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
    j.status = status_from(s.text(4));
    j.stop_reason = s.text(5);
    j.result = s.json_col(6);
    out.push_back(std::move(j));
  }
  return out;
}

void RunStore::set_job_status(std::int64_t job_id, Status status, const std::string& stop_reason,
                              const json& result) {
  std::lock_guard<std::mutex> lock(mutex_);
  impl_->transaction([&] {
    Impl::Stmt s(*impl_, "UPDATE jobs SET status = ?, stop_reason = ?, result = ? WHERE id = ?");
    s.bind(to_string(status)).bind(stop_reason).bind(result).bind(job_id).run();
    return 0;
  });
}

}  // namespace cudamaster::store

MSKB_DEFINE_VOCABULARY_SPECIALIZATIONS(cudamaster::store::Status, cudamaster::store::kStatuses, "status")
