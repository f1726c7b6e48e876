// mskb/util/command_line.hpp: how both command lines report usage errors - the nearest option or
// command to a misspelt one, one line naming the command, input files checked at parse time - run
// on a small CLI11 app with the tools' shape (a tool, subcommands, options, a positional).
#include "mskb/util/command_line.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace mskb {
namespace {

TEST(EditDistance, CountsEditsAndSwapsOfNeighbours) {
  EXPECT_EQ(edit_distance("--task", "--task"), 0u);
  EXPECT_EQ(edit_distance("--taks", "--task"), 1u);  // two letters swapped
  EXPECT_EQ(edit_distance("--tsk", "--task"), 1u);
  EXPECT_EQ(edit_distance("--tasks", "--task"), 1u);
  EXPECT_EQ(edit_distance("--kernal", "--kernel"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("--json", "--jobs"), 3u);
}

TEST(NearestName, TheClosestNameWithinReachOrNone) {
  const std::vector<std::string> names = {"--task", "--task-file", "--all", "--kernel", "-j", "--jobs", "--json"};
  EXPECT_EQ(nearest_name("--taks", names), "--task");
  EXPECT_EQ(nearest_name("--task-fil", names), "--task-file");
  EXPECT_EQ(nearest_name("--kernels", names), "--kernel");
  EXPECT_EQ(nearest_name("--jsno", names), "--json");
  EXPECT_EQ(nearest_name("--frobnicate", names), "");  // nothing near
  EXPECT_EQ(nearest_name("--ker", names), "--kernel");  // the only name it begins
  const std::vector<std::string> commands = {"list", "device", "run", "check", "build", "merge"};
  EXPECT_EQ(nearest_name("buidl", commands), "build");
  EXPECT_EQ(nearest_name("chekc", commands), "check");
  EXPECT_EQ(nearest_name("xyzzy", commands), "");
}

// A tool like mskb: `tool build --task T --kernel F`, `tool report FILE`, `tool task validate FILE`.
struct Tool {
  CLI::App app{"test tool", "tool"};
  std::vector<std::string> tasks, kernels;
  std::string report, task_file;
  int jobs = 0;
  Tool() {
    app.require_subcommand(1);
    CLI::App* build = app.add_subcommand("build", "build");
    build->add_option("--task", tasks)->delimiter(',');
    build->add_option("--task-file", task_file)->check(existing_file());
    build->add_option("--kernel", kernels)->check(existing_file());
    build->add_option("-j,--jobs", jobs);
    CLI::App* rep = app.add_subcommand("report", "report");
    rep->add_option("report", report)->required()->check(existing_file());
    CLI::App* task = app.add_subcommand("task", "tasks");
    task->require_subcommand(1);
    task->add_subcommand("validate", "validate")->add_option("file", task_file)->required()->check(existing_file());
  }
  // The line run_command_line prints (without its newline) and the exit code.
  std::pair<std::string, int> run(std::vector<std::string> args) {
    args.insert(args.begin(), "tool");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    testing::internal::CaptureStderr();
    const int code = run_command_line(app, static_cast<int>(argv.size()), argv.data(), 1);
    std::string err = testing::internal::GetCapturedStderr();
    if (!err.empty() && err.back() == '\n') err.pop_back();
    return {err, code};
  }
};

TEST(UsageMessage, AnUnknownOptionNamesItAndTheNearestOne) {
  Tool t;
  const auto [line, code] = t.run({"build", "--taks", "vector_add"});
  EXPECT_EQ(code, kUsageExitCode);
  EXPECT_EQ(line, "tool build: unknown option '--taks' (did you mean '--task'?)");
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(UsageMessage, AnUnknownOptionWithNothingNearPointsToHelp) {
  Tool t;
  const auto [line, code] = t.run({"build", "--task", "x", "--frobnicate=3"});
  EXPECT_EQ(code, kUsageExitCode);
  EXPECT_EQ(line, "tool build: unknown option '--frobnicate' (tool build --help lists them)");
}

TEST(UsageMessage, ANegativeNumberIsAValueNotAnOption) {
  Tool t;
  EXPECT_EQ(unknown_option(*t.app.get_subcommand("build"), 3, std::vector<char*>{nullptr, const_cast<char*>("-1"), const_cast<char*>("-j")}.data()), "");
}

TEST(UsageMessage, AnUnknownCommandSuggestsTheNearest) {
  Tool t;
  auto [line, code] = t.run({"buidl", "--task", "x"});
  EXPECT_EQ(code, kUsageExitCode);
  EXPECT_EQ(line, "tool: unknown command 'buidl' (did you mean 'build'?)");
  std::tie(line, code) = t.run({"zzzzzz"});
  EXPECT_EQ(line, "tool: unknown command 'zzzzzz' (one of: build, report, task) (tool --help)");
}

TEST(UsageMessage, AMissingFileIsOneLineWithoutDoubledNames) {
  Tool t;
  auto [line, code] = t.run({"report", "/nonexistent/nope.json"});
  EXPECT_EQ(code, kUsageExitCode);
  EXPECT_EQ(line, "tool report: no such file: /nonexistent/nope.json (tool report --help)");
  std::tie(line, code) = t.run({"build", "--kernel", "/nonexistent/k.cu"});
  EXPECT_EQ(code, kUsageExitCode);
  EXPECT_EQ(line, "tool build: --kernel: no such file: /nonexistent/k.cu (tool build --help)");
  std::tie(line, code) = t.run({"task", "validate", "/nonexistent/t.toml"});
  EXPECT_EQ(code, kUsageExitCode);
  EXPECT_EQ(line, "tool task validate: no such file: /nonexistent/t.toml (tool task validate --help)");
  std::tie(line, code) = t.run({"build", "--task-file", "/tmp"});
  EXPECT_EQ(code, kUsageExitCode);
  EXPECT_EQ(line, "tool build: --task-file: /tmp is a folder, not a file (tool build --help)");
}

TEST(UsageMessage, AnExistingFilePasses) {
  const std::string path = (std::filesystem::temp_directory_path() / ("mskb_cl_test_" + std::to_string(::getpid()) + ".cu")).string();
  std::ofstream(path) << "// kernel\n";
  Tool t;
  const auto [line, code] = t.run({"build", "--kernel", path});
  EXPECT_EQ(code, 0) << line;
  EXPECT_EQ(t.kernels, std::vector<std::string>{path});
  std::remove(path.c_str());
}

TEST(ExistingFolder, RefusesAFileAndAMissingPath) {
  std::string dir = std::filesystem::temp_directory_path().string(), missing = "/nonexistent/dir", file = "/proc/self/status";
  EXPECT_EQ(existing_folder()(dir), "");
  EXPECT_EQ(existing_folder()(missing), "no such folder: /nonexistent/dir");
  EXPECT_EQ(existing_folder()(file), "/proc/self/status is a file, not a folder");
}

}  // namespace
}  // namespace mskb
