// cm_demo_cassette: records the shipped demo cassette (data/demo/spmv_csr_fp32.jsonl) by running
// the real loop against the scripted answers in data/demo/spmv_csr_fp32/ (see demo_support.hpp).
//   cm_demo_cassette [--real-nvcc] [--out FILE] [--demo DIR]
// --real-nvcc builds every candidate with the harness's nvcc recipe (needs the CUDA toolkit, no
// GPU), so the Debug agent's prompt carries nvcc's genuine diagnostics; without it the build
// verdicts come from script.json. Either way the cassette replays the same story.
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "demo_support.hpp"

int main(int argc, char** argv) {
  std::string out = cmtest::demo_cassette(), dir = cmtest::demo_dir();
  bool real_nvcc = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--real-nvcc") real_nvcc = true;
    else if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--demo" && i + 1 < argc) dir = argv[++i];
    else {
      std::fprintf(stderr, "usage: cm_demo_cassette [--real-nvcc] [--out FILE] [--demo DIR]\n");
      return 2;
    }
  }
  try {
    cmtest::TempDir work;
    const std::string tmp = out + ".tmp";
    const auto summary = cmtest::record_demo(dir, tmp, real_nvcc, work.file(""));
    std::filesystem::rename(tmp, out);
    std::fprintf(stderr, "wrote %s (%zu exchanges); mean P in the recording %.2f (synthetic timings)\n", out.c_str(),
                 cmtest::read_lines(out).size(), summary["suite"]["mean_p"].get<double>());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cm_demo_cassette: %s\n", e.what());
    return 1;
  }
}
