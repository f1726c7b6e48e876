// The marker language of the agent-loop fakes. A kernel file's comments tell the fake builder
// and the fake evaluators (in-process, and the fake mskb-runner behind MSKB_RUNNER) what to do:
//   // fake-build: error <message>     the build fails with "<file>(<line>): error: <message>"
//   // fake-build: needs-90a           the build fails (ptxas, a toolchain error) unless arch is 90a
//   // fake-build: exports SYM...      the built object exports these functions (the fake nvcc;
//                                      without it, it exports none and mskb cannot tell, unless
//                                      FAKE_NVCC_EXPORTS=extern-c: the source's extern "C" functions,
//                                      which `mskb build` needs to find its entry points)
//   // fake-build: policy-refuses      the binary policy refuses the built object (it imports the
//                                      stream-creating runtime call; only when the policy applies)
//   // fake-eval: wrong_result         the first paper check fails
//   // fake-eval: heldout_wrong        the first held-out check fails
//   // fake-eval: crash                the runner dies with SIGSEGV
//   // fake-eval: speed=<x>            correct; every median is the baseline's divided by x
//   // fake-eval: sleep_ms=<n>         the runner sleeps n ms first (kill tests)
//   // fake-eval: remeasure_speed=<x>  the acceptance re-measurement (mode remeasure) sees speed x
//   // fake-sanitizer: <tool> <line>   compute-sanitizer <tool> (memcheck|racecheck) fails with
//                                      "========= <line>" (the fake sanitizer and FakeEvaluator)
// A file without markers is correct with speed 1 (a baseline); a file mentioning cusparse (the
// task's vendor contender) gets speed 1.5.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace cmtest {

struct Markers {
  std::string build_error;  // non-empty: fail with this message
  int build_error_line = 0;
  bool needs_90a = false;
  bool policy_refuses = false;
  std::string eval = "passed";  // passed | wrong_result | heldout_wrong | crash
  double speed = 1.0;
  int sleep_ms = 0;
  double remeasure_speed = 0;     // 0: as speed
  std::string sanitizer_tool;     // the tool that fails (fake-sanitizer:)
  std::string sanitizer_line;     // its report's first line
};

inline Markers read_markers(const std::string& text) {
  Markers m;
  if (text.find("cusparse") != std::string::npos) m.speed = 1.5;
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    auto at = [&](const char* key) -> std::optional<std::string> {
      const std::size_t p = line.find(key);
      if (p == std::string::npos) return std::nullopt;
      std::string rest = line.substr(p + std::string(key).size());
      rest.erase(0, rest.find_first_not_of(' '));
      return rest;
    };
    if (auto v = at("fake-build: error")) {
      if (m.build_error.empty()) {
        m.build_error = *v;
        m.build_error_line = line_no;
      }
    }
    if (at("fake-build: needs-90a")) m.needs_90a = true;
    if (at("fake-build: policy-refuses")) m.policy_refuses = true;
    if (auto v = at("fake-sanitizer:")) {
      m.sanitizer_tool = v->substr(0, v->find(' '));
      m.sanitizer_line = v->find(' ') == std::string::npos ? std::string("Invalid __global__ write of size 4 bytes") : v->substr(v->find(' ') + 1);
    }
    if (auto v = at("fake-eval:")) {
      const std::string s = *v;
      if (s.rfind("speed=", 0) == 0) m.speed = std::atof(s.c_str() + 6);
      else if (s.rfind("remeasure_speed=", 0) == 0) m.remeasure_speed = std::atof(s.c_str() + 16);
      else if (s.rfind("sleep_ms=", 0) == 0) m.sleep_ms = std::atoi(s.c_str() + 9);
      else m.eval = s.substr(0, s.find(' '));
    }
  }
  return m;
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The fake time of one call at a shape: a few microseconds of launch plus work that grows with
// the product of the dimensions.
inline double fake_base_us(double dims_product) { return 5.0 + 2e-6 * dims_product; }

}  // namespace cmtest
