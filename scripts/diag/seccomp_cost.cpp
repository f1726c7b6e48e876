// What the candidate's sandbox adds to one system call on this host (docs/harness.md section 10):
// the same calls timed in a forked child before and after each sandbox step, for the calls the
// CUDA runtime's host path makes (ioctl runs the whole filter; getppid, futex and sched_yield are
// answered from the kernel's seccomp action cache; clock_gettime normally never enters the kernel).
// Built against the project's util library:
//   g++ -std=c++17 -O2 -Iinclude scripts/diag/seccomp_cost.cpp build/cpu/src/libmskb_util.a -lpthread -o seccomp_cost
//   ./seccomp_cost [calls per measurement, default 200000]
#include <linux/futex.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "mskb/util/sandbox.hpp"

namespace {

double ns_per_call(int n, const std::function<void()>& call) {
  std::vector<double> rounds;
  for (int r = 0; r < 5; ++r) {
    const auto a = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) call();
    const auto b = std::chrono::steady_clock::now();
    rounds.push_back(std::chrono::duration<double, std::nano>(b - a).count() / n);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];  // median of 5 rounds
}

void measure(const char* step, int n, int pipe_fd) {
  int futex_word = 0;
  timespec t{};
  int avail = 0;
  std::printf("%-22s", step);
  std::printf(" %10.1f", ns_per_call(n, [] { ::syscall(SYS_getppid); }));
  std::printf(" %10.1f", ns_per_call(n, [&] { ::ioctl(pipe_fd, FIONREAD, &avail); }));
  std::printf(" %10.1f", ns_per_call(n, [&] { ::syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0); }));
  std::printf(" %10.1f", ns_per_call(n, [] { ::sched_yield(); }));
  std::printf(" %10.1f\n", ns_per_call(n, [&] { ::clock_gettime(CLOCK_MONOTONIC, &t); }));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
  std::printf("ns per call (median of 5 rounds of %d)\n%-22s %10s %10s %10s %10s %10s\n", n, "step", "getppid", "ioctl",
              "futex", "sched_yield", "clock_get");
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) {
    int fds[2];
    if (::pipe(fds) != 0) return 1;
    namespace sb = mskb::sandbox;
    measure("unconfined", n, fds[0]);
    try {
      sb::CandidateSandbox box;
      box.confine_files({"/nonexistent/kernel.so", "", {}, false});
      measure("limits + landlock", n, fds[0]);
      box.confine_calls();
      measure("+ seccomp", n, fds[0]);
      std::printf("level: %s\n", box.level().c_str());
    } catch (const std::exception& e) {
      std::printf("sandbox: %s\n", e.what());
      return 1;
    }
    return 0;
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
