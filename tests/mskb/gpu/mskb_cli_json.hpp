// What the GPU tests that drive the mskb binary share: a work folder per test process, and
// `mskb ARGS --json FILE` with its exit code, report and output. The including test defines
// MSKB_BINARY (the mskb executable).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mskb/util/process.hpp"
#include "mskb/util/text.hpp"

namespace mskb_gpu_test {

// A fresh folder under the test temp dir, named `prefix` and this process's id.
inline std::filesystem::path fresh_work_dir(const std::string& prefix) {
  const std::filesystem::path p = std::filesystem::path(::testing::TempDir()) / (prefix + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

struct Outcome {
  int rc = -1;
  nlohmann::json report;
  std::string output;
};

// `mskb ARGS --json DIR/TAG.json`: the exit code, the report (empty when none was written) and the
// output, for failure messages.
inline Outcome run_mskb_json(std::vector<std::string> args, const std::filesystem::path& dir, const std::string& tag) {
  const std::string json_path = (dir / (tag + ".json")).string();
  args.insert(args.begin(), MSKB_BINARY);
  args.insert(args.end(), {"--json", json_path});
  Outcome o;
  o.rc = mskb::run_command(args, o.output, 1500);
  std::error_code ec;
  if (std::filesystem::is_regular_file(json_path, ec)) o.report = nlohmann::json::parse(mskb::read_text(json_path));
  return o;
}

}  // namespace mskb_gpu_test
