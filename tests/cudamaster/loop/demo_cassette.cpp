// cm_demo_cassette: records a shipped demo cassette by running the real loop against the scripted
// answers of a demo folder (see demo_support.hpp): by default data/demo/spmv_csr_fp32/ into
// data/demo/spmv_csr_fp32.jsonl; --demo DIR records DIR (one task, such as the README's demo
// data/demo/matrix_vector_mul_fp32, or a suite such as data/demo/suite4, whose script.json lists
// task folders) into DIR.jsonl unless --out says where.
//   cm_demo_cassette [--real-nvcc] [--demo DIR] [--out FILE]
// --real-nvcc builds every candidate with the harness's nvcc recipe (needs the CUDA toolkit, no
// GPU), so the Debug agent's prompt carries nvcc's genuine diagnostics; without it the build
// verdicts come from script.json. Either way the cassette replays the same story.
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "demo_support.hpp"

int main(int argc, char** argv) {
  std::string out, dir = cmtest::demo_dir();
  bool real_nvcc = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--real-nvcc") real_nvcc = true;
    else if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--demo" && i + 1 < argc) dir = argv[++i];
    else {
      std::fprintf(stderr, "usage: cm_demo_cassette [--real-nvcc] [--demo DIR] [--out FILE]\n");
      return 2;
    }
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (out.empty()) out = dir + ".jsonl";
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
