// mskb-runner: the isolated child process of every evaluation. Usage (by the parent only):
//   mskb-runner REQUEST.json REPORT_FD      the verifier (trusted: judges, reports)
//   mskb-runner --candidate CHANNEL_FD      the candidate (started by the verifier; loads the kernel)
//   mskb-runner --reference CHANNEL_FD      a task file's reference kernel (started by the verifier):
//                                           a candidate that is not dumpable (it holds expected outputs)
#include <sys/prctl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "mskb/gpu/runner.cuh"

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--candidate") == 0) return mskb::gpu::run_candidate(std::atoi(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "--reference") == 0) {
    ::prctl(PR_SET_DUMPABLE, 0);  // the contender's process cannot read the expected outputs from it
    return mskb::gpu::run_candidate(std::atoi(argv[2]));
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: mskb-runner REQUEST.json REPORT_FD (started by mskb, not by hand)\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  mskb::RunRequest req = nlohmann::json::parse(in).get<mskb::RunRequest>();
  return mskb::gpu::run_child(req, std::atoi(argv[2]));
}
