// Owns a child `mskb-runner` process started by the verifier (the candidate, `--candidate 3`, or a
// task file's reference kernel, `--reference 3`) and our end of its channel. The child gets the
// channel as fd 3 and nothing else beyond stdin/stdout/stderr: the verifier's report pipe is
// closed in it, whatever its number; its stdout/stderr are a pipe the verifier drains into its own
// log, its environment is scrubbed (no keys or tokens), and the verifier is not dumpable. It dies with the verifier (the child sets PR_SET_PDEATHSIG);
// it is killed and reaped on destruction unless it was reaped before. How its messages and its
// death are judged is the owner's business (runner.cu's CandidateProcess, KernelReference).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/util/channel.hpp"
#include "mskb/util/sandbox.hpp"

namespace mskb::gpu {

class RunnerChild {
 public:
  // `mode`: "--candidate" or "--reference". Throws std::runtime_error when it cannot be started.
  RunnerChild(const char* mode, int report_fd);
  ~RunnerChild();
  RunnerChild(const RunnerChild&) = delete;
  RunnerChild& operator=(const RunnerChild&) = delete;

  // False when the channel is broken (the child is gone).
  bool send(const nlohmann::json& j, const std::vector<int>& fds = {});
  // False when the channel closed (the child is gone); throws std::runtime_error on a message that
  // cannot be read.
  bool recv(Message& m);
  // After the channel broke: reaps the child and says how it ended ("died of SIGSEGV", "exited
  // with code 3"); `signaled` tells which. Killed by the OS sandbox (SIGSYS): exactly kSandboxKill.
  std::string reap(bool& signaled);
  static constexpr const char* kSandboxKill = "was killed by the OS sandbox (SIGSYS: a refused system call)";
  // After "exit": waits until the child has gone (its CUDA context with it).
  void wait_exit();

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  Channel ch_;
  sandbox::OutputDrain drain_;  // the child's stdout/stderr into our log; joined after the child is gone
};

}  // namespace mskb::gpu
