// Fuzz target: a run store that is not what CUDAMaster wrote (a disk that flipped bytes, a copy cut
// short, a hand-edited row, a store from a tool that wrote other JSON) read by everything that
// reads one: the store's own API (RunStore::open, runs, jobs, journal - what --resume replays -,
// rows, usage, cost, counts) and the commands `cudamaster runs`, `show` (each view), `report`,
// `compare` and `optimize --resume` (up to its checks before any work), through cudamaster_main as
// a user calls them.
//
// The store starts as tests/cudamaster/loop/report_fixture.hpp's (two runs, every kind of row),
// built once per process. An input changes it in one of two ways (its first byte, even or odd):
// - rows (even): records [column][row][kind][length][value...], each setting one cell (a column
//   from kCells, the row-th row of its table) to a value of the given kind: text, a number read
//   from the text, SQL NULL, or a blob - any value SQLite lets a column hold;
// - bytes (odd): records [offset:3][length][bytes...] written over the database file's bytes.
// Defects: the store API throwing anything but StoreError, a command ending with an exit code other
// than 0, 1 (an error) or 2 (no such run), an error of several lines, and whatever ASan/UBSan see.
// The commands' stdout and stderr go to files in the scratch folder while they run; a crash's
// report is therefore in $TMPDIR/mskb-fuzz-PID/stderr.txt (the input is kept as usual).
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cudamaster/cli.hpp"
#include "cudamaster/loop/report_fixture.hpp"
#include "cudamaster/store/store.hpp"
#include "fuzz_support.hpp"

namespace {

namespace store = cudamaster::store;

struct Cell {
  const char* table;
  const char* column;
};

// The cells an input may set: every column a reader interprets (JSON, enums, numbers, names).
constexpr Cell kCells[] = {
    {"runs", "status"},           {"runs", "llm"},               {"runs", "config"},
    {"runs", "summary"},          {"runs", "created_at"},        {"runs", "active_seconds"},
    {"runs", "sessions"},         {"runs", "pid"},               {"jobs", "task"},
    {"jobs", "precision"},        {"jobs", "status"},            {"jobs", "stop_reason"},
    {"jobs", "result"},           {"jobs", "run_id"},            {"llm_calls", "agent"},
    {"llm_calls", "round"},       {"llm_calls", "request"},      {"llm_calls", "response"},
    {"llm_calls", "input_tokens"}, {"llm_calls", "output_tokens"}, {"llm_calls", "cost_usd"},
    {"llm_calls", "latency_ms"},  {"llm_calls", "error"},        {"llm_calls", "payload"},
    {"llm_calls", "seq"},         {"candidates", "origin"},      {"candidates", "source"},
    {"candidates", "payload"},    {"candidates", "round"},       {"builds", "ok"},
    {"builds", "flags"},          {"builds", "diagnostics"},     {"builds", "payload"},
    {"builds", "candidate_id"},   {"evaluations", "contender"},  {"evaluations", "disposition"},
    {"evaluations", "p"},         {"evaluations", "vs_vendor"},  {"evaluations", "payload"},
    {"evaluations", "checks_total"}, {"eval_shapes", "sweep"},   {"eval_shapes", "shape"},
    {"eval_shapes", "median_us"}, {"eval_shapes", "speedup"},    {"eval_shapes", "disposition"},
    {"eval_shapes", "complexity"}, {"profiles", "mode"},         {"profiles", "class"},
    {"profiles", "confidence"},   {"profiles", "rendered"},      {"profiles", "payload"},
    {"rounds", "round"},          {"rounds", "outcome"},         {"rounds", "p"},
    {"rounds", "best_p_after"},   {"rounds", "payload"},         {"rounds", "candidate_id"},
};
constexpr std::size_t kCellCount = sizeof kCells / sizeof kCells[0];

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The fixture's store as one file (the WAL folded in when the store closed).
const std::string& template_bytes(const fuzz::ScratchFile& scratch) {
  static const std::string bytes = [&] {
    const std::string path = (scratch.dir() / "template.db").string();
    {
      auto s = store::RunStore::open(path);
      cmtest::report_fixture::build_store(*s);
    }
    std::string b = read_bytes(path);
    if (b.empty()) fuzz::defect("the fixture store is empty");
    return b;
  }();
  return bytes;
}

// Sets the cells the records name, straight through SQLite (as another tool or a hand edit would).
void set_cells(const std::string& path, const std::uint8_t* p, std::size_t n) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(db);
    fuzz::defect("cannot open the fixture copy");
  }
  sqlite3_exec(db, "PRAGMA foreign_keys=OFF", nullptr, nullptr, nullptr);
  for (std::size_t i = 0; i + 4 <= n;) {
    const Cell& c = kCells[p[i] % kCellCount];
    const int row = p[i + 1] % 8;
    const int kind = p[i + 2] % 4;
    const std::size_t len = std::min<std::size_t>(p[i + 3], n - i - 4);
    const std::string value(reinterpret_cast<const char*>(p + i + 4), len);
    i += 4 + len;
    const std::string sql = std::string("UPDATE ") + c.table + " SET " + c.column + " = ?1 WHERE id = (SELECT id FROM " +
                            c.table + " ORDER BY id LIMIT 1 OFFSET ?2)";
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) fuzz::defect("prepare: " + sql);
    switch (kind) {
      case 0: sqlite3_bind_text(st, 1, value.data(), static_cast<int>(len), SQLITE_TRANSIENT); break;
      case 1: sqlite3_bind_double(st, 1, std::strtod(value.c_str(), nullptr)); break;
      case 2: sqlite3_bind_null(st, 1); break;
      default: sqlite3_bind_blob(st, 1, value.data(), static_cast<int>(len), SQLITE_TRANSIENT); break;
    }
    sqlite3_bind_int(st, 2, row);
    sqlite3_step(st);  // a NOT NULL or UNIQUE column may refuse: the store stays as it was
    sqlite3_finalize(st);
  }
  sqlite3_close_v2(db);
}

// Writes the records' bytes over the file.
void patch_bytes(std::string& file, const std::uint8_t* p, std::size_t n) {
  for (std::size_t i = 0; i + 4 <= n;) {
    const std::size_t offset = ((std::size_t{p[i]} << 16) | (std::size_t{p[i + 1]} << 8) | p[i + 2]) % file.size();
    const std::size_t len = std::min<std::size_t>({p[i + 3], n - i - 4, file.size() - offset});
    file.replace(offset, len, reinterpret_cast<const char*>(p + i + 4), len);
    i += 4 + len;
  }
}

// The store API: anything but StoreError is a defect; its messages are one line.
void read_through_api(const std::string& path) {
  try {
    auto s = store::RunStore::open(path);
    (void)s->integrity_check();
    for (const store::RunInfo& r : s->runs()) {
      (void)s->run(r.id);
      (void)s->usage_by_agent(r.id);
      (void)s->run_cost(r.id);
      for (const char* t : {"llm_calls", "candidates", "evaluations"}) (void)s->count(t, r.id);
      for (const store::JobInfo& j : s->jobs(r.id)) {
        (void)s->journal(j.id);
        for (const char* t : {"llm_calls", "candidates", "builds", "evaluations", "eval_shapes", "profiles", "rounds"})
          (void)s->rows(t, j.id);
      }
    }
  } catch (const store::StoreError& e) {
    fuzz::require_one_line(e.what(), "run store");
  } catch (const std::exception& e) {
    fuzz::undocumented(e, "run store");
  }
}

// Runs `cudamaster ARGS...` with stdout and stderr in files; returns what it wrote to stderr.
std::string run_cli(const fuzz::ScratchFile& scratch, std::vector<std::string> args, int& code) {
  const std::string out = (scratch.dir() / "stdout.txt").string(), err = (scratch.dir() / "stderr.txt").string();
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = ::dup(1), saved_err = ::dup(2);
  const int fo = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const int fe = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (saved_out < 0 || saved_err < 0 || fo < 0 || fe < 0) fuzz::defect("cannot redirect the command's output");
  ::dup2(fo, 1);
  ::dup2(fe, 2);
  ::close(fo);
  ::close(fe);
  args.insert(args.begin(), "cudamaster");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  code = cudamaster::cudamaster_main(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  return read_bytes(err);
}

void read_through_commands(const fuzz::ScratchFile& scratch, const std::string& db) {
  const std::string html = (scratch.dir() / "report.html").string();
  const std::string no_prompts = (scratch.dir() / "no-prompts").string();
  std::filesystem::create_directories(no_prompts);
  const std::vector<std::vector<std::string>> commands = {
      {"runs", "--db", db},
      {"runs", "--db", db, "--json", "-"},
      {"show", "1", "--db", db},
      {"show", "1", "--db", db, "--calls"},
      {"show", "1", "--db", db, "--json", "-"},
      {"show", "1", "--db", db, "--call", "1"},
      {"show", "1", "--db", db, "--candidate", "1"},
      {"show", "2", "--db", db},
      {"report", "--db", db, "--run", "1", "--html", html},
      {"report", "--db", db, "--run", "2", "--html", html},
      {"compare", "1", "2", "--db", db, "--html", html},
      {"compare", "1", "2", "--db", db},
      // Last (a resume that got past its checks would claim the run): reads the run's row and
      // recorded configuration, then stops before any work at the empty prompts folder (or at a
      // missing compute-sanitizer).
      {"optimize", "--resume", "1", "--db", db, "--prompts", no_prompts},
  };
  for (const auto& c : commands) {
    int code = 0;
    std::string err = run_cli(scratch, c, code);
    std::string what = "cudamaster";
    for (const std::string& a : c) what += " " + (a == db ? std::string("DB") : a == html ? std::string("OUT") : a == no_prompts ? std::string("EMPTY") : a);
    if (code < 0 || code > 2) fuzz::defect(what + ": exit code " + std::to_string(code) + ": " + err);
    if (code == 0) fuzz::note(what.c_str(), "exit 0");
    if (code != 0) {
      while (!err.empty() && err.back() == '\n') err.pop_back();
      fuzz::require_one_line(err, what.c_str());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile scratch("run.db");
  const std::string& original = template_bytes(scratch);
  std::string file = original;
  const bool bytes_mode = size > 0 && (data[0] & 1) != 0;
  if (bytes_mode) patch_bytes(file, data + 1, size - 1);
  std::error_code ec;
  for (const char* suffix : {"-wal", "-shm", "-journal"})
    std::filesystem::remove(scratch.path() + suffix, ec);
  scratch.write(reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
  if (!bytes_mode && size > 1) set_cells(scratch.path(), data + 1, size - 1);

  read_through_api(scratch.path());
  read_through_commands(scratch, scratch.path());
  return 0;
}
