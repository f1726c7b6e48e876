// A scratch folder for one test, named after the test and this process, removed at scope exit;
// and writing a text file into it. For the harness tests that build kernels from sources they write.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace mskb_test {

struct ScratchDir {
  std::filesystem::path p;
  explicit ScratchDir(const std::string& tag)
      : p(std::filesystem::temp_directory_path() / ("mskb-" + tag + "-test-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(p);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(p, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

// Writes `text` to `path`; returns the path as a string.
inline std::string write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace mskb_test
