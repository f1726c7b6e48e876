// The committed store of the H200 replay demo (tests/fixtures/h200/demo.db) opens with the
// reading commands on any machine, as the README shows: runs, show, report and compare work on a copy
// (never on the committed file) and the committed file's bytes stay as they were; a damaged copy is
// refused with one line naming it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "support/agent_doubles.hpp"
#include "support/child_process.hpp"

using namespace cmtest;

TEST(DemoStore, RunsShowAndReportReadTheCommittedDemo) {
  const std::string committed = CM_DEMO_DB;
  ASSERT_TRUE(std::filesystem::exists(committed)) << committed;
  const std::string before = read_file(committed);
  TempDir dir;
  const std::string db = dir.file("demo.db");
  std::filesystem::copy_file(committed, db);
  int n = 0;
  auto run = [&](const std::vector<std::string>& args) {
    const std::string tag = "run" + std::to_string(++n);
    return finish(spawn(args, {}, dir.file(""), tag, CM_CUDAMASTER_BIN), dir.file(""), tag);
  };
  const Proc runs = run({"runs", "--db", db});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_NE(runs.out.find("finished"), std::string::npos) << runs.out;
  EXPECT_NE(runs.out.find("spmv_csr"), std::string::npos) << runs.out;
  const Proc show = run({"show", "1", "--db", db});
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("NVIDIA H200"), std::string::npos) << show.out;
  const Proc report = run({"report", "--run", "1", "--db", db, "--html", dir.file("demo.html")});
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_NE(read_file(dir.file("demo.html")).find("<svg"), std::string::npos);
  const Proc compare = run({"compare", "1", "--db", db});
  ASSERT_EQ(compare.code, 0) << compare.err;
  EXPECT_EQ(compare.out.rfind("| run | status | tasks |", 0), 0u) << compare.out;
  EXPECT_NE(compare.out.find("| 1 | finished | 1 | 1 | 100% | 100% | 0% | 0% | 1.03 | 4.61 |"), std::string::npos) << compare.out;
  EXPECT_EQ(read_file(committed), before) << "the committed store changed";
}

// A copy of the demo store damaged several ways - a value no cudamaster wrote (a status with a
// newline), stored JSON of another shape (a round that is an array, a summary without its fields,
// a recorded configuration whose loop or tasks are of another type), a page of garbage - is refused
// by the reading commands and by `optimize --resume` with one line that names the store, exit
// code 1 (tests/fuzz/run_store_fuzz.cpp tries many more).
TEST(DemoStore, ADamagedStoreEndsInOneLineNamingTheStore) {
  TempDir dir;
  int n = 0;
  auto damaged = [&](const std::function<void(const std::string&)>& damage) {
    const std::string db = dir.file("damaged" + std::to_string(++n) + ".db");
    std::filesystem::copy_file(CM_DEMO_DB, db);
    damage(db);
    return db;
  };
  auto sql = [](const char* statement) {
    return [statement](const std::string& db) {
      sqlite3* h = nullptr;
      ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
      char* err = nullptr;
      EXPECT_EQ(sqlite3_exec(h, statement, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
      sqlite3_free(err);
      sqlite3_close(h);
    };
  };
  auto garbage_page = [](const std::string& db) {
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);  // the second page (the demo store's pages are 4 KiB): the first table's
    const std::string junk(4096, '\xa5');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  };
  struct Case {
    std::string db, command, expect;
  };
  const std::vector<Case> cases = {
      {damaged(sql("UPDATE runs SET status = 'running\nlater' WHERE id = 1")), "runs", "unknown status 'running\\x0alater'"},
      {damaged(sql("UPDATE rounds SET payload = '[1]'")), "show", "a stored record is not as cudamaster writes it ("},
      {damaged(sql("UPDATE runs SET summary = '{\"jobs\": 5}'")), "show", "a stored record is not as cudamaster writes it (malformed JSON"},
      {damaged(garbage_page), "report", "malformed"},
      // A resume reads the run's recorded configuration before any work (no GPU, LLM or sanitizer needed).
      {damaged(sql("UPDATE runs SET config = json_set(config, '$.loop', json('[1]'))")), "optimize",
       "a stored record is not as cudamaster writes it ([json.exception.type_error"},
      {damaged(sql("UPDATE runs SET config = json_set(config, '$.tasks', 5)")), "optimize",
       "a stored record is not as cudamaster writes it ("},
      {damaged(sql("UPDATE runs SET status = 'paused'")), "optimize", "unknown status 'paused'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {c.command, "--db", c.db};
    if (c.command == "show") args.insert(args.begin() + 1, "1");
    if (c.command == "report") args.insert(args.end(), {"--html", dir.file("r.html")});
    if (c.command == "optimize") args.insert(args.begin() + 1, {"--resume", "1"});
    const std::string tag = "damaged" + std::to_string(++n);
    const Proc p = finish(spawn(args, {}, dir.file(""), tag, CM_CUDAMASTER_BIN), dir.file(""), tag);
    EXPECT_EQ(p.code, 1) << c.command << ": " << p.err;
    const std::string head = (c.command == "optimize" ? "cudamaster optimize: " : "cudamaster: error: ") + std::string("run store '") + c.db + "': ";
    EXPECT_EQ(p.err.rfind(head, 0), 0u) << c.command << ": " << p.err;
    EXPECT_NE(p.err.find(c.expect), std::string::npos) << c.command << ": " << p.err;
    EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << c.command << ": " << p.err;
  }
}

// A resume refused before any work (here: a prompts folder without templates, or no compute-sanitizer
// on this machine) leaves the run as the store had it: still finished, no session counted, no pid.
TEST(DemoStore, ARefusedResumeLeavesTheRunAsItWas) {
  TempDir dir;
  const std::string db = dir.file("demo.db");
  std::filesystem::copy_file(CM_DEMO_DB, db);
  std::filesystem::create_directories(dir.file("no-prompts"));
  auto row = [&] {
    sqlite3* h = nullptr;
    EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(h, "SELECT status, pid, sessions FROM runs WHERE id = 1", -1, &st, nullptr), SQLITE_OK);
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW)
      out = std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) + " " + std::to_string(sqlite3_column_int64(st, 1)) +
            " " + std::to_string(sqlite3_column_int64(st, 2));
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
  };
  const std::string before = row();
  ASSERT_EQ(before.rfind("finished ", 0), 0u) << before;
  const Proc p = finish(spawn({"optimize", "--resume", "1", "--db", db, "--prompts", dir.file("no-prompts")}, {}, dir.file(""), "resume",
                              CM_CUDAMASTER_BIN),
                        dir.file(""), "resume");
  EXPECT_EQ(p.code, 1) << p.err;
  EXPECT_TRUE(p.err.find("cannot read prompt template") != std::string::npos || p.err.find("compute-sanitizer not found") != std::string::npos)
      << p.err;
  EXPECT_EQ(row(), before) << "a refused resume changed the run's row";
}
