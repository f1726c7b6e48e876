// The committed store of the H200 replay demo (tests/fixtures/h200/demo.db) opens with the
// reading commands on any machine, as the README shows: runs, show, report and compare work on a copy
// (never on the committed file) and the committed file's bytes stay as they were.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

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
