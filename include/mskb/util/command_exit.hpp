// Owns CommandExit, how a command-line subcommand (mskb's, cudamaster's) ends the process with an
// exit code after it has printed its own output or message: its callback throws, main returns
// code(). Host-only.
#pragma once

#include <exception>

namespace mskb {

class CommandExit : public std::exception {
 public:
  explicit CommandExit(int code) : code_(code) {}
  int code() const noexcept { return code_; }
  const char* what() const noexcept override { return "command exit"; }

 private:
  int code_;
};

}  // namespace mskb
