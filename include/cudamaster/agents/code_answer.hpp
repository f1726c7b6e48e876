// Owns reading a kernel file out of a model's answer (the Coder's and the Debug agent's output
// parser). Models wrap code in prose, split it over several blocks, get cut off at the token
// limit, or name the entry point wrongly; the parser copes where it safely can and otherwise says
// precisely what is wrong, in words the Debug agent can act on.
#pragma once

#include <string>
#include <vector>

namespace cudamaster::agents {

// What the harness will call: `extern "C" void <symbol>(<params>)`.
struct EntryPoint {
  std::string symbol;                // "spmv_csr" / "spmv_csr_bf16"
  std::string signature;             // "void spmv_csr(int rows, const float* values, ...)"
  std::vector<bool> pointer_params;  // per parameter: a device pointer (true) or a scalar
};

struct CodeAnswer {
  bool ok = false;                    // code found, complete, exporting the entry point correctly
  std::string code;                   // the extracted file (may be partial when !ok)
  std::vector<std::string> problems;  // what is wrong, one sentence each (empty when ok)
  std::vector<std::string> notes;     // what the parser did about harmless irregularities
  int blocks = 0;                     // fenced code blocks in the answer
  bool truncated = false;

  // "problem 1; problem 2" (or "" when ok).
  std::string describe() const;
};

// `finish_truncated`: the provider reported the answer was cut at the token limit.
CodeAnswer parse_code_answer(const std::string& answer, const EntryPoint& entry, bool finish_truncated = false);

}  // namespace cudamaster::agents
