// Owns a child `mskb-runner` process started by the verifier (the candidate, `--candidate 3`, or a
// task file's reference kernel, `--reference 3`) and our end of its channel. The child gets the
// channel as fd 3 and nothing else beyond stdin/stdout/stderr: the verifier's report pipe is
// closed in it, whatever its number; its stdout/stderr are a pipe the verifier drains into its own
// log, its environment is scrubbed (no keys or tokens), and the verifier is not dumpable. It dies with the verifier (the child sets PR_SET_PDEATHSIG);
// it is killed and reaped on destruction unless it was reaped before. How its messages and its
// death are judged is the owner's business (CandidateProcess below, KernelReference).
#pragma once

#include <chrono>
#include <optional>

#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/gpu/candidate_fatal.cuh"
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
  // What the child used, from the kernel (wait4), once wait_exit() reaped it: its CPU time and
  // context switches over its whole life, all threads (diagnostics: a thread of CUDA's or the
  // kernel's that spins on a call the sandbox refuses shows as CPU time no honest call needs).
  struct Usage {
    double wall_s = 0, user_s = 0, system_s = 0;
    long voluntary_switches = 0, involuntary_switches = 0;
  };
  std::optional<Usage> usage() const { return usage_; }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::optional<Usage> usage_;
  std::chrono::steady_clock::time_point started_;
  Channel ch_;
  sandbox::OutputDrain drain_;  // the child's stdout/stderr into our log; joined after the child is gone
};

// The candidate process (the only one that loads the contender's kernel), as the verifier sees
// it: its messages, its fatal reports and its death, judged as the contender's (CandidateFatal).
class CandidateProcess {
 public:
  explicit CandidateProcess(int report_fd);

  void send(const nlohmann::json& j, const std::vector<int>& fds = {}) {
    if (!child_.send(j, fds)) died();
  }
  // After "exit": waits until the candidate has gone (its context with it).
  void wait_exit() { child_.wait_exit(); }
  std::optional<RunnerChild::Usage> usage() const { return child_.usage(); }
  // The candidate's answer; its death or its fatal report ends the evaluation.
  Message reply();

 private:
  [[noreturn]] void died();

  RunnerChild child_;
};

// The dispositions a candidate may end itself with (launch_error, out_of_memory, missing_entry);
// anything else it claims, or a string that is no disposition, is a harness error.
Disposition candidate_disposition(const std::string& claimed);

}  // namespace mskb::gpu
