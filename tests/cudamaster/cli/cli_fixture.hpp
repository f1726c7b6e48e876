// The CLI tests' fixture (optimize_test.cpp, mskb_cli_test.cpp, cli_contract_test.cpp: one test program):
// a scratch folder whose environment fakes only the process boundary (support/agent_doubles.hpp's
// FakeCliDir: the fake nvcc, the fake mskb-runner, no GPU unless asked), the binaries under test, and
// the optimize command line the tests share.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "support/agent_doubles.hpp"
#include "support/child_process.hpp"

namespace cmtest {

struct Cli : FakeCliDir {
  Proc run(const std::vector<std::string>& args, const std::string& program = CM_CUDAMASTER_BIN) { return run_program(args, program); }
};

inline std::vector<std::string> optimize_args(const std::string& cassette, const std::string& db, const std::string& out) {
  return {"optimize", "--task", "spmv_csr", "--llm", "replay:" + cassette, "--rounds", "2", "--profile", "none",
          "--db", db, "--out", out};
}

inline std::size_t lines_in(const std::string& path) { return read_lines(path).size(); }

}  // namespace cmtest
