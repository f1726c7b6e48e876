// What the fuzz targets share: a defect is reported by aborting with a one-line reason (libFuzzer
// and fuzz_driver.cpp both keep the input that caused it), errors that users read must be one
// non-empty line, and readers that take a path get the input through a scratch file.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>

namespace fuzz {

[[noreturn]] inline void defect(const std::string& what) {
  std::fprintf(stderr, "FUZZ DEFECT: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_REQUIRE(cond, what)                                               \
  do {                                                                         \
    if (!(cond)) ::fuzz::defect(std::string(#cond) + ": " + std::string(what)); \
  } while (0)

// With FUZZ_VERBOSE set, what an input came to (a refusal's message, or "accepted"): for seeing how
// deep the corpus reaches.
inline void note(const char* where, const std::string& what) {
  static const bool verbose = std::getenv("FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "  %s: %s\n", where, what.c_str());
}

// An error message a user reads: one line, not empty (noted with FUZZ_VERBOSE).
inline void require_one_line(const std::string& message, const char* where) {
  note(where, message);
  if (message.empty()) defect(std::string(where) + ": empty error message");
  if (message.find('\n') != std::string::npos) defect(std::string(where) + ": error message of several lines: " + message);
}

// An exception the API does not document: always a defect.
[[noreturn]] inline void undocumented(const std::exception& e, const char* where) {
  defect(std::string(where) + ": undocumented exception " + typeid(e).name() + ": " + e.what());
}

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A file this process rewrites for every input (readers that take a path), in a folder of its
// own under $TMPDIR, removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name) {
    const char* tmp = std::getenv("TMPDIR");
    dir_ = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") / ("mskb-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / name).string();
  }
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) defect("cannot write the scratch file " + path_);
    return path_;
  }
  const std::string& path() const { return path_; }
  std::filesystem::path dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

}  // namespace fuzz
