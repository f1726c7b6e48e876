// mskb-runner: the isolated child process of every evaluation. Usage (by the parent only):
//   mskb-runner REQUEST.json REPORT_FD
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "mskb/gpu/runner.cuh"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: mskb-runner REQUEST.json REPORT_FD (started by mskb, not by hand)\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  mskb::RunRequest req = nlohmann::json::parse(in).get<mskb::RunRequest>();
  return mskb::gpu::run_child(req, std::atoi(argv[2]));
}
